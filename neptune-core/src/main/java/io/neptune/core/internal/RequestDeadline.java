package io.neptune.core.internal;

import static java.util.Objects.requireNonNull;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.concurrent.Future;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A request whose first bytes arrived must be whole within a timeout, however the rest trickles
 * in: the {@link #head()} handler, first in the pipeline, starts the clock at a request's first
 * bytes; the {@link #tail()} handler, after the decoders, stops it at each decoded request (or a
 * user event that stands for one). When the clock runs out {@code expired} gets the channel, to
 * answer and close it. An idle-connection timer cannot do this: any byte resets it, so a peer that
 * sends a byte now and then holds the connection, and the decoder's buffer, forever.
 *
 * <p>The time the server itself holds back reading does not count: when the clock runs out while it
 * holds back ({@code holding}: its answers not taken, say) it starts again, and so it does when the
 * server reads again ({@link ReadingResumed}); closing would also throw away the answers the peer
 * has not read yet.
 *
 * <p>Thread-safety: one instance per channel, confined to its event loop.
 */
public final class RequestDeadline {
    private final long timeoutNanos;
    private final Consumer<Channel> expired;
    private final Predicate<Object> completingEvent;
    private final Predicate<Channel> holding;
    private @Nullable Future<?> clock;
    private final ChannelHandler head = new Head();
    private final ChannelHandler tail = new Tail();

    /**
     * @param timeout how long a request may take to arrive from its first byte
     * @param expired answers and closes a channel whose request did not arrive in time
     * @param completingEvent user events that stand for a whole request (a request refused before its body)
     * @param holding whether the server holds back reading the channel now
     */
    public RequestDeadline(Duration timeout, Consumer<Channel> expired, Predicate<Object> completingEvent,
            Predicate<Channel> holding) {
        Checks.positive("timeout", timeout);
        this.timeoutNanos = timeout.toNanos();
        this.expired = requireNonNull(expired, "expired");
        this.completingEvent = requireNonNull(completingEvent, "completingEvent");
        this.holding = requireNonNull(holding, "holding");
    }

    /** The handler to put first in the pipeline. */
    public ChannelHandler head() {
        return head;
    }

    /** The handler to put after the decoders. */
    public ChannelHandler tail() {
        return tail;
    }

    private void start(ChannelHandlerContext ctx) {
        if (clock == null) {
            clock = ctx.executor().schedule(() -> ranOut(ctx), timeoutNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void ranOut(ChannelHandlerContext ctx) {
        clock = null;
        if (!ctx.channel().isActive()) {
            return;
        }
        if (holding.test(ctx.channel())) {
            start(ctx);
            return;
        }
        expired.accept(ctx.channel());
    }

    /** Starts a running clock again from now. */
    private void restart(ChannelHandlerContext ctx) {
        if (clock != null) {
            stop();
            start(ctx);
        }
    }

    private void stop() {
        if (clock != null) {
            clock.cancel(false);
            clock = null;
        }
    }

    private final class Head extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof ByteBuf bytes && bytes.isReadable()) {
                start(ctx);
            }
            ctx.fireChannelRead(msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof ReadingResumed) {
                restart(ctx);
            }
            ctx.fireUserEventTriggered(event);
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            stop();
            ctx.fireChannelInactive();
        }

        @Override
        public void handlerRemoved(ChannelHandlerContext ctx) {
            stop();
        }
    }

    private final class Tail extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            stop();
            ctx.fireChannelRead(msg);
        }

        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (completingEvent.test(event)) {
                stop();
            }
            ctx.fireUserEventTriggered(event);
        }
    }
}
