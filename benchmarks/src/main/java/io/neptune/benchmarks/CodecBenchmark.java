package io.neptune.benchmarks;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.MapperBuilder;
import com.fasterxml.jackson.dataformat.cbor.CBORFactory;
import com.fasterxml.jackson.dataformat.cbor.databind.CBORMapper;
import com.fasterxml.jackson.dataformat.smile.SmileFactory;
import com.fasterxml.jackson.dataformat.smile.databind.SmileMapper;
import io.neptune.benchmarks.EmulatedDiscussion.AddMsg;
import io.neptune.benchmarks.EmulatedDiscussion.Header;
import io.neptune.benchmarks.EmulatedDiscussion.Headers;
import io.neptune.core.AccessMode;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.Message;
import io.neptune.core.internal.wire.MessageDecoder;
import io.neptune.core.internal.wire.MessageEncoder;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encoding and decoding one message of the discussion workload the way a Neptune call does, with
 * the payload in our JSON and, for comparison, in two binary Jackson formats (Smile, CBOR) that
 * the product does not use.
 *
 * <ul>
 *   <li>{@code AddMsg}: the request frame of a post, as {@link OpenLoopProbe} sends it (120-character
 *       body); decoded on the server;
 *   <li>{@code Headers}: the response frame of a {@code ViewHeaders} read with a full page of
 *       {@value EmulatedDiscussion#HEADERS_PAGE} headers; decoded on the client.
 * </ul>
 *
 * <p>{@link #encode}: payload object to bytes with the format's mapper, the wire message, and
 * {@link MessageEncoder} into a pooled I/O buffer, as the pipeline's encoder does. {@link #decode}:
 * {@link MessageDecoder} of the frame (length prefix stripped, as the frame decoder hands it on)
 * and the payload read back into its record type. The binary mappers have the read
 * constraints and features of {@link Json#mapper()}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
public class CodecBenchmark {
    /** One message in one payload format, its encoded frame, and a buffer allocator. */
    @State(Scope.Thread)
    public static class Codec {
        /** Which message: {@code AddMsg} (request) or {@code Headers} (response). */
        @Param({"AddMsg", "Headers"})
        public String message;

        /** The payload format: {@code json} (the product's), {@code smile} or {@code cbor}. */
        @Param({"json", "smile", "cbor"})
        public String format;

        ObjectMapper mapper;
        Object payload;
        JavaType type;
        ByteBuf frame;

        /** Builds the mapper and the payload, and encodes the frame the decode benchmark reads. */
        @Setup(Level.Trial)
        public void setUp() {
            mapper = mapper(format);
            payload = payload(message);
            type = mapper.constructType(payload.getClass());
            ByteBuf full = encodeFrame(this);
            frame = full.skipBytes(4); // the frame decoder strips the length prefix
            frame.markReaderIndex();
        }

        /** Releases the frame buffer. */
        @TearDown(Level.Trial)
        public void tearDown() {
            frame.release();
        }
    }

    /**
     * The mapper of {@code format}: {@link Json#mapper()} itself for JSON, else a mapper of the
     * binary format with the same read constraints and the same features as {@link Json}'s.
     */
    static ObjectMapper mapper(String format) {
        StreamReadConstraints constraints = Json.mapper().getFactory().streamReadConstraints();
        MapperBuilder<?, ?> builder = switch (format) {
            case "json" -> null;
            case "smile" -> SmileMapper.builder(SmileFactory.builder().streamReadConstraints(constraints).build());
            case "cbor" -> CBORMapper.builder(CBORFactory.builder().streamReadConstraints(constraints).build());
            default -> throw new IllegalArgumentException("format: " + format + " (expected: json, smile or cbor)");
        };
        if (builder == null) {
            return Json.mapper();
        }
        return builder.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .build();
    }

    /** The payload object of {@code message}, with field values like the discussion workload's. */
    static Object payload(String message) {
        long postedAt = 1_795_000_000_000L;
        return switch (message) {
            case "AddMsg" -> new AddMsg("g17", 123_456, "u4242", "re: g17", DiscussionMix.BODY, postedAt);
            case "Headers" -> {
                List<Header> headers = new ArrayList<>();
                for (int i = 0; i < EmulatedDiscussion.HEADERS_PAGE; i++) {
                    headers.add(new Header(123_456 - i, "u" + (4242 + 37 * i), "re: g17", postedAt - 1000L * i));
                }
                yield new Headers("g17", "node-3", headers);
            }
            default -> throw new IllegalArgumentException("message: " + message + " (expected: AddMsg or Headers)");
        };
    }

    /** Bytes on the wire, length prefix included, of {@code message} with its payload in {@code format}. */
    static int frameBytes(String message, String format) {
        Codec codec = new Codec();
        codec.message = message;
        codec.format = format;
        codec.setUp();
        try {
            return codec.frame.readableBytes() + 4;
        } finally {
            codec.tearDown();
        }
    }

    private static ByteBuf encodeFrame(Codec codec) {
        byte[] bytes;
        try {
            bytes = codec.mapper.writeValueAsBytes(codec.payload);
        } catch (IOException e) {
            throw new IllegalStateException("cannot encode " + codec.message + " as " + codec.format, e);
        }
        Message wire = codec.payload instanceof AddMsg
                ? new RequestMessage(0, "bench-discussion-l2", 17, "AddMsg", AccessMode.WRITE, 2000, 0,
                        RequestId.random(), bytes)
                : ResponseMessage.ok(7, 4321, bytes);
        ByteBuf out = ByteBufAllocator.DEFAULT.ioBuffer();
        MessageEncoder.encode(wire, out);
        return out;
    }

    /** Payload to frame; returns the frame's size after releasing it, as a write to the socket would. */
    @Benchmark
    public int encode(Codec codec) {
        ByteBuf out = encodeFrame(codec);
        int size = out.readableBytes();
        out.release();
        return size;
    }

    /** Frame to payload object. */
    @Benchmark
    public Object decode(Codec codec) throws IOException {
        codec.frame.resetReaderIndex();
        Message message = MessageDecoder.decode(codec.frame);
        byte[] bytes = message instanceof RequestMessage request ? request.payload()
                : ((ResponseMessage) message).payload();
        return codec.mapper.readValue(bytes, codec.type);
    }
}
