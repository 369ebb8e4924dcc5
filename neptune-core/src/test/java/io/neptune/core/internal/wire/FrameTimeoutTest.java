package io.neptune.core.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.AccessMode;
import io.neptune.testing.WireFrames;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.CorruptedFrameException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The frame timeout ({@link Frames#install(io.netty.channel.ChannelPipeline, int, Duration)}): a
 * frame whose first bytes arrived must be whole in time, however the rest trickles in; whole
 * frames and an idle connection are never timed out. Time is the embedded channel's, advanced by
 * hand.
 */
class FrameTimeoutTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(1);

    private final EmbeddedChannel channel = new EmbeddedChannel();

    FrameTimeoutTest() {
        // the channel's clock moves only by hand: a loaded machine between two steps must not move it
        channel.freezeTime();
        Frames.install(channel.pipeline(), 64 * 1024, TIMEOUT);
    }

    @AfterEach
    void release() {
        channel.finishAndReleaseAll();
    }

    @Test
    void aFrameStalledPartWayFailsAtTheTimeoutNamingWhatArrived() {
        byte[] frame = frame();
        channel.writeInbound(Unpooled.wrappedBuffer(frame, 0, 10));

        advance(TIMEOUT.minusMillis(1));
        assertThatCode(channel::checkException).doesNotThrowAnyException();
        advance(Duration.ofMillis(1));

        assertThatThrownBy(channel::checkException).isInstanceOf(CorruptedFrameException.class)
                .hasMessage("frame timeout: 10 of " + frame.length + " bytes of a frame arrived in 1000 ms"
                        + " (expected: a whole frame within the frame timeout)");
    }

    @Test
    void bytesThatTrickleInDoNotExtendTheFramesTime() {
        byte[] frame = frame();
        for (int i = 0; i < 4; i++) {
            channel.writeInbound(Unpooled.wrappedBuffer(frame, i, 1));
            advance(Duration.ofMillis(300));
        }

        assertThatThrownBy(channel::checkException).hasMessageStartingWith("frame timeout: 4 of " + frame.length + " bytes");
    }

    @Test
    void aPartialFrameBehindAWholeOneIsTimedFromItsFirstByte() {
        byte[] frame = frame();
        ByteBuf wholeAndPart = Unpooled.buffer().writeBytes(frame).writeBytes(frame, 0, 7);
        channel.writeInbound(wholeAndPart);
        assertThat(channel.<Object>readInbound()).isInstanceOf(RequestMessage.class);

        advance(TIMEOUT);

        assertThatThrownBy(channel::checkException).hasMessageStartingWith("frame timeout: 7 of ");
    }

    /** The server held back reading (its answers not taken) for most of the timeout: that time is not the peer's. */
    @Test
    void theTimeTheServerHoldsBackReadingDoesNotCount() {
        byte[] frame = frame();
        channel.writeInbound(Unpooled.wrappedBuffer(frame, 0, 10));
        channel.config().setAutoRead(false);
        advance(Duration.ofMillis(900));
        channel.config().setAutoRead(true);
        channel.pipeline().fireUserEventTriggered(io.neptune.core.internal.ReadingResumed.INSTANCE);

        advance(Duration.ofMillis(900));
        assertThatCode(channel::checkException).as("a full timeout from when reading resumed").doesNotThrowAnyException();
        advance(Duration.ofMillis(100));
        assertThatThrownBy(channel::checkException).hasMessageStartingWith("frame timeout: 10 of ");
    }

    @Test
    void wholeFramesAndAnIdleConnectionAreNeverTimedOut() {
        byte[] frame = frame();
        channel.writeInbound(Unpooled.wrappedBuffer(frame, 0, 10));
        advance(Duration.ofMillis(900));
        channel.writeInbound(Unpooled.wrappedBuffer(frame, 10, frame.length - 10));
        assertThat(channel.<Object>readInbound()).isInstanceOf(RequestMessage.class);

        advance(TIMEOUT.multipliedBy(10));

        assertThatCode(channel::checkException).doesNotThrowAnyException();
        assertThat(channel.isActive()).isTrue();
    }

    private void advance(Duration time) {
        channel.advanceTimeBy(time.toNanos(), TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
    }

    private static byte[] frame() {
        RequestMessage request = new RequestMessage(1, "echo", 0, "echo", AccessMode.READ, 1000, 0, RequestId.NONE,
                "{\"text\":\"x\"}".getBytes(StandardCharsets.UTF_8));
        return WireFrames.bytes(request);
    }
}
