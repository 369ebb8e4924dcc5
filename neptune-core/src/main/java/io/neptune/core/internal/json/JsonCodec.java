package io.neptune.core.internal.json;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.async.ByteArrayFeeder;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.jspecify.annotations.Nullable;

/**
 * Encodes and decodes the JSON payloads of calls with {@link Json#mapper()}, giving the same bytes,
 * values and exceptions as its {@code writeValueAsBytes} and {@code readValue}, but without a new
 * Jackson generator or parser per payload: each thread keeps one generator and one non-blocking
 * parser and feeds them payload after payload. A fresh parser or generator with its contexts, I/O
 * context and symbol table at each of the four ends of a call (client encode, server decode and
 * encode, client decode) was 2.8 KB of the 5.2 KB a fixed-node echo call allocated
 * (docs/PERFORMANCE.md, "Where a call's time and bytes went").
 *
 * <p>Reuse is kept to what cannot change a result:
 *
 * <ul>
 *   <li>Only payloads of at most {@value #MAX_REUSED_BYTES} bytes that begin with <code>{</code> or
 *       {@code [} and end with <code>}</code> or {@code ]} go through the reused parser: objects and
 *       arrays end by themselves, where a root number would wait for more digits. Anything else
 *       (scalars, empty or large payloads) goes to the mapper as before.
 *   <li>A payload must leave the parser at the root with all its input consumed; anything else (an
 *       error, trailing tokens, a value cut short) discards the parser and decodes the payload again
 *       with the mapper, which returns what it always did or throws the exception it always threw.
 *   <li>A failed encode discards the generator and throws the mapper's exception.
 *   <li>A thread that encodes or decodes again from inside a serializer or deserializer uses the mapper.
 *   <li>A parser is closed and replaced after {@value #PAYLOADS_PER_PARSER} payloads, so the field
 *       names it saw reach the shared symbol table and a thread's table does not grow without bound.
 * </ul>
 *
 * <p>Thread-safety: thread-safe; the reused parts are per thread.
 */
public final class JsonCodec {
    /** The largest payload the reused parser takes (it keeps the last one until the next). */
    static final int MAX_REUSED_BYTES = 64 * 1024;
    /** Payloads a parser decodes before it is replaced. */
    static final int PAYLOADS_PER_PARSER = 1024;
    /** The largest encode buffer a thread keeps between payloads. */
    private static final int MAX_KEPT_BUFFER = 64 * 1024;

    private static final ObjectMapper MAPPER = Json.mapper();
    /** The reused parser is at the root after each payload; the codec checks for trailing input itself. */
    private static final ObjectReader ROOT_READER = MAPPER.reader()
            .without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final ConcurrentMap<JavaType, TypeReader> READERS = new ConcurrentHashMap<>();
    /** Readers of replies: fields their type does not have are skipped. */
    private static final ConcurrentMap<JavaType, TypeReader> REPLY_READERS = new ConcurrentHashMap<>();
    private static final ClassValue<TypeReader> CLASS_READERS = new ClassValue<>() {
        @Override
        protected TypeReader computeValue(Class<?> type) {
            return reader(MAPPER.constructType(type));
        }
    };
    private static final ThreadLocal<Encoder> ENCODERS = ThreadLocal.withInitial(Encoder::new);
    private static final ThreadLocal<Decoder> DECODERS = ThreadLocal.withInitial(Decoder::new);

    private JsonCodec() {}

    /** {@code value} as JSON, as {@code Json.mapper().writeValueAsBytes(value)} writes it. */
    public static byte[] encode(@Nullable Object value) throws IOException {
        return ENCODERS.get().encode(value);
    }

    /** {@code payload} read as {@code type}, as {@code Json.mapper().readValue(payload, type)} reads it. */
    public static <T> T decode(byte[] payload, JavaType type) throws IOException {
        return DECODERS.get().decode(payload, reader(type));
    }

    /**
     * A reply's {@code payload} read as {@code type}, skipping fields {@code type} does not have:
     * a server that added a field to its answer (a service's newer version, during a rolling
     * upgrade) does not break the clients built before it. Everything else as {@link #decode}.
     */
    public static <T> T decodeReply(byte[] payload, JavaType type) throws IOException {
        TypeReader reader = REPLY_READERS.get(type);
        if (reader == null) {
            reader = REPLY_READERS.computeIfAbsent(type, t -> new TypeReader(t,
                    ROOT_READER.forType(t).without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES),
                    MAPPER.readerFor(t).without(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)));
        }
        return DECODERS.get().decode(payload, reader);
    }

    /** {@code payload} read as {@code type}, as {@code Json.mapper().readValue(payload, type)} reads it. */
    public static <T> T decode(byte[] payload, Class<T> type) throws IOException {
        return DECODERS.get().decode(payload, CLASS_READERS.get(type));
    }

    /** Whether {@code payload} is an object or array the reused parser may take. */
    static boolean delimited(byte[] payload) {
        if (payload.length == 0 || payload.length > MAX_REUSED_BYTES) {
            return false;
        }
        int first = 0;
        while (first < payload.length && whitespace(payload[first])) {
            first++;
        }
        int last = payload.length - 1;
        while (last > first && whitespace(payload[last])) {
            last--;
        }
        return last > first && (payload[first] == '{' || payload[first] == '[')
                && (payload[last] == '}' || payload[last] == ']');
    }

    private static boolean whitespace(byte b) {
        return b == ' ' || b == '\n' || b == '\r' || b == '\t';
    }

    private static TypeReader reader(JavaType type) {
        TypeReader reader = READERS.get(type);
        if (reader == null) {
            reader = READERS.computeIfAbsent(type, t -> new TypeReader(t, ROOT_READER.forType(t), MAPPER.readerFor(t)));
        }
        return reader;
    }

    /**
     * The reader of one type, and whether the reused parser can take it: a deserializer that needs
     * the parser's codec (a non-blocking parser has none) fails there and reads fine with the mapper,
     * so after that its type always goes to the mapper.
     */
    private static final class TypeReader {
        final JavaType type;
        /** Reads from the reused parser, which stops at the root: the codec checks for trailing input. */
        final ObjectReader reader;
        /** Reads a payload whole, as the mapper does. */
        final ObjectReader whole;
        volatile boolean reusable = true;

        TypeReader(JavaType type, ObjectReader reader, ObjectReader whole) {
            this.type = type;
            this.reader = reader;
            this.whole = whole;
        }
    }

    /** One thread's generator, writing into a buffer of its own. */
    private static final class Encoder extends OutputStream {
        private byte[] buffer = new byte[256];
        private int count;
        private @Nullable JsonGenerator generator;
        private boolean busy;

        byte[] encode(@Nullable Object value) throws IOException {
            if (busy) {
                return MAPPER.writeValueAsBytes(value); // a serializer that encodes: leave the outer payload alone
            }
            busy = true;
            try {
                JsonGenerator g = generator;
                if (g == null) {
                    g = MAPPER.getFactory().createGenerator(this);
                    g.setRootValueSeparator(null); // payload after payload, with nothing in between
                    generator = g;
                }
                count = 0;
                MAPPER.writeValue(g, value);
                g.flush();
                byte[] payload = Arrays.copyOf(buffer, count);
                if (buffer.length > MAX_KEPT_BUFFER) {
                    buffer = new byte[256];
                }
                return payload;
            } catch (IOException | RuntimeException e) {
                generator = null; // half a value may be in it
                buffer = new byte[256];
                throw e;
            } finally {
                count = 0;
                busy = false;
            }
        }

        @Override
        public void write(int b) {
            ensure(1);
            buffer[count++] = (byte) b;
        }

        @Override
        public void write(byte[] bytes, int offset, int length) {
            ensure(length);
            System.arraycopy(bytes, offset, buffer, count, length);
            count += length;
        }

        private void ensure(int more) {
            if (count + more > buffer.length) {
                buffer = Arrays.copyOf(buffer, Math.max(buffer.length * 2, count + more));
            }
        }
    }

    /** One thread's non-blocking parser, fed one whole payload at a time. */
    private static final class Decoder {
        private @Nullable JsonParser parser;
        private int payloads;
        private boolean busy;

        <T> T decode(byte[] payload, TypeReader reader) throws IOException {
            if (busy || !reader.reusable || !delimited(payload)) {
                return reader.whole.readValue(payload);
            }
            busy = true;
            try {
                T value = reused(payload, reader);
                if (value != null) {
                    return value;
                }
            } catch (IOException | RuntimeException e) {
                discard(); // its state is unknown; the mapper gives this payload's own answer below
            } finally {
                busy = false;
            }
            T value = reader.whole.readValue(payload);
            reader.reusable = false; // valid, yet not readable by the reused parser: not worth trying again
            return value;
        }

        /** The payload's value from the reused parser, or null if it did not read as one whole value. */
        private <T> @Nullable T reused(byte[] payload, TypeReader type) throws IOException {
            JsonParser p = parser;
            if (p == null || payloads >= PAYLOADS_PER_PARSER) {
                discard();
                p = MAPPER.getFactory().createNonBlockingByteArrayParser();
                parser = p;
                payloads = 0;
            }
            payloads++;
            ((ByteArrayFeeder) p.getNonBlockingInputFeeder()).feedInput(payload, 0, payload.length);
            T value = type.reader.readValue(p);
            // One whole value: back at the root, nothing after it but the end of this payload's input.
            if (value == null || !p.getParsingContext().inRoot() || p.nextToken() != JsonToken.NOT_AVAILABLE) {
                discard();
                return null;
            }
            p.clearCurrentToken();
            return value;
        }

        private void discard() {
            JsonParser p = parser;
            parser = null;
            if (p != null) {
                try {
                    p.close(); // hands its symbols and buffers back
                } catch (IOException | RuntimeException e) {
                    // closing a parser over a byte array does no I/O; nothing to report
                }
            }
        }
    }
}
