package io.neptune.core.internal.wire;

import io.neptune.core.internal.ReadingResumed;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Splits the stream at the 4-byte length prefixes and strips them. Unlike Netty's
 * {@link LengthFieldBasedFrameDecoder}, which drops a partial frame silently when the input ends,
 * a stream that ends inside a frame raises a {@link CorruptedFrameException}, so the peer can be
 * told it sent a truncated frame. With a frame timeout, a frame whose first bytes arrived must be
 * whole within it, or a {@link CorruptedFrameException} names what arrived: a peer that stalls
 * inside a frame (or sends it a byte at a time) would otherwise hold its buffer, up to the frame
 * limit, for as long as it keeps the connection open. The time the server holds back reading
 * (auto-read off) does not count: the clock starts again at {@link ReadingResumed}. One instance per
 * channel.
 */
final class FrameDecoder extends LengthFieldBasedFrameDecoder {
    private final long frameTimeoutNanos;
    /** Fires when the partial frame buffered now is still partial at its deadline; null when none is. */
    private @Nullable Future<?> deadline;

    /** {@code frameTimeout} zero: no limit. */
    FrameDecoder(int maxFrameBytes, Duration frameTimeout) {
        super(maxFrameBytes, 0, 4, 0, 4, true);
        this.frameTimeoutNanos = frameTimeout.toNanos();
    }

    @Override
    protected @Nullable Object decode(ChannelHandlerContext ctx, ByteBuf in) throws Exception {
        Object frame = super.decode(ctx, in);
        if (frameTimeoutNanos == 0) {
            return frame;
        }
        if (frame != null) {
            cancelDeadline(); // a frame completed: the next one's time starts with its first byte
        } else if (in.isReadable() && deadline == null) {
            arm(ctx);
        }
        return frame;
    }

    private void stalled(ChannelHandlerContext ctx) {
        deadline = null;
        ByteBuf buffered = internalBuffer();
        if (!ctx.channel().isActive() || !buffered.isReadable()) {
            return;
        }
        if (!ctx.channel().config().isAutoRead()) {
            // the server holds back reading (its answers are not taken): the delay is not the peer's,
            // and closing would throw away the answers it has not read yet
            arm(ctx);
            return;
        }
        ctx.fireExceptionCaught(new CorruptedFrameException("frame timeout: " + discardPartial(buffered)
                + " bytes of a frame arrived in " + Duration.ofNanos(frameTimeoutNanos).toMillis()
                + " ms (expected: a whole frame within the frame timeout)"));
    }

    /** The server reads again after holding back: a partial frame's time starts again. */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
        if (event instanceof ReadingResumed && deadline != null) {
            cancelDeadline();
            arm(ctx);
        }
        super.userEventTriggered(ctx, event);
    }

    /** Starts the clock of the partial frame buffered now. */
    private void arm(ChannelHandlerContext ctx) {
        deadline = ctx.executor().schedule(() -> stalled(ctx), frameTimeoutNanos, TimeUnit.NANOSECONDS);
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    @Override
    protected void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
        cancelDeadline();
        super.handlerRemoved0(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        cancelDeadline();
        super.channelInactive(ctx);
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        if (in.isReadable()) {
            throw new CorruptedFrameException("truncated frame: the stream ended after " + discardPartial(in)
                    + " bytes");
        }
    }

    /** Drops the partial frame in {@code in}; returns "N" or, once its prefix arrived, "N of M" (bytes). */
    private static String discardPartial(ByteBuf in) {
        int received = in.readableBytes();
        String expected = received >= 4 ? " of " + (in.getUnsignedInt(in.readerIndex()) + 4) : "";
        in.skipBytes(received);
        return received + expected;
    }
}
