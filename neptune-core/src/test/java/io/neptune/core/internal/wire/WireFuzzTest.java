package io.neptune.core.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.neptune.core.ClusterSecret;
import io.neptune.testing.DecodedValues;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.DecoderException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz tests of the decoders that read the request port's TCP stream and the poll port's datagrams
 * (docs/SECURITY.md, Fuzzing). {@code mvn verify} runs the seeds in {@code WireFuzzTestInputs};
 * {@code ./neptune fuzz --target WireFuzzTest} fuzzes. The contract: an input decodes, or fails with
 * a {@link DecoderException} the decoder raised itself (a malformed frame), never with another
 * exception and never with one wrapped (Netty wraps an unexpected one, such as an
 * {@link IndexOutOfBoundsException}, in a {@link DecoderException} with that cause); and no buffer
 * outlives the channel.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS) // Jazzer's per-input timeout when fuzzing
class WireFuzzTest {
    private static final int MAX_FRAME = 64 * 1024;
    private static final Duration FRAME_TIMEOUT = Duration.ofSeconds(1);
    /** Checks replies' MACs in {@link #polls}; each fuzzing JVM runs one target on one thread. */
    private static final PollMac POLL_MAC = new PollMac(ClusterSecret.fromEnvironment(
            Map.of(ClusterSecret.ENVIRONMENT_VARIABLE, "the-fuzzed-cluster-secret")).orElseThrow());

    /**
     * The request port's pipeline ({@link Frames#install}) fed the stream {@code input[1..]} in
     * chunks. {@code input[0]} says how: its low 6 bits the chunk size (1 + 8 &times; bits); its top
     * bit set, the channel's clock passes the frame timeout after each chunk, so a partial frame
     * stalls.
     */
    @FuzzTest(maxDuration = "5m")
    void frames(byte[] input) {
        UnpooledByteBufAllocator alloc = new UnpooledByteBufAllocator(false, true);
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        channel.freezeTime();
        Frames.install(channel.pipeline(), MAX_FRAME, FRAME_TIMEOUT);
        try {
            int how = input.length == 0 ? 0 : input[0] & 0xff;
            int chunk = 1 + 8 * (how & 0x3f);
            boolean stall = (how & 0x80) != 0;
            for (int i = 1; i < input.length; i += chunk) {
                ByteBuf bytes = alloc.heapBuffer(chunk).writeBytes(input, i, Math.min(chunk, input.length - i));
                decodeOrRefuse(() -> channel.writeInbound(bytes));
                if (stall) {
                    channel.advanceTimeBy(FRAME_TIMEOUT.toNanos() + 1, TimeUnit.NANOSECONDS);
                    decodeOrRefuse(channel::runScheduledPendingTasks);
                }
                checkDecoded(channel);
            }
            decodeOrRefuse(channel::finish);
            checkDecoded(channel);
        } finally {
            channel.finishAndReleaseAll();
        }
        assertThat(alloc.metric().usedHeapMemory()).as("heap bytes still held after the channel closed").isZero();
        assertThat(alloc.metric().usedDirectMemory()).as("direct bytes still held after the channel closed").isZero();
    }

    /** Every message the pipeline let through is a whole, valid one. */
    private static void checkDecoded(EmbeddedChannel channel) {
        for (Object message = channel.readInbound(); message != null; message = channel.readInbound()) {
            assertThat(message).isInstanceOf(Message.class);
            DecodedValues.assertNoUnexpectedNulls(message);
        }
    }

    /** Runs {@code step}; a malformed input may make it throw a {@link DecoderException} of the decoder's own. */
    private static void decodeOrRefuse(Runnable step) {
        try {
            step.run();
        } catch (DecoderException e) {
            // Netty wraps what a decoder threw unexpectedly; a refusal of ours is never wrapped
            if (e.getCause() != null && !(e.getCause() instanceof DecoderException)) {
                throw new AssertionError("decoder failed unexpectedly (expected: a DecoderException of its own)", e);
            }
        }
    }

    /**
     * A datagram read by the poll decoders (a poll, with a nonce or without; a reply; a reply with a
     * MAC): each either decodes it or throws a {@link CorruptedFrameException}; a poll or a reply
     * that decodes encodes back to the same value; checking its MAC never throws.
     */
    @FuzzTest(maxDuration = "5m")
    void polls(byte[] input) {
        ByteBuf datagram = Unpooled.wrappedBuffer(input);
        try {
            Poll.Request request = Poll.decodeRequest(datagram.duplicate());
            DecodedValues.assertNoUnexpectedNulls(request);
            ByteBuf encoded = Unpooled.buffer();
            try {
                Poll.encode(request, encoded);
                assertThat(Poll.decodeRequest(encoded)).isEqualTo(request);
            } finally {
                encoded.release();
            }
        } catch (CorruptedFrameException refused) {
            // malformed: the poll server drops it
        }
        try {
            DecodedValues.assertNoUnexpectedNulls(Poll.decodeMacReply(datagram.duplicate()));
        } catch (CorruptedFrameException refused) {
            // malformed: the poller drops it
        }
        POLL_MAC.verify(input, datagram.duplicate()); // true or false, never an exception
        try {
            Poll.Reply reply = Poll.decodeReply(datagram.duplicate());
            ByteBuf encoded = Unpooled.buffer();
            try {
                Poll.encode(reply, true, encoded);
                assertThat(Poll.decodeReply(encoded)).isEqualTo(reply);
            } finally {
                encoded.release();
            }
        } catch (CorruptedFrameException refused) {
            // malformed: the poller drops it
        }
        datagram.release();
    }
}
