package io.neptune.core.internal.stream;

import static java.util.Objects.requireNonNull;

import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.MessageEncoder;
import io.neptune.core.internal.wire.StreamData;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.util.concurrent.Flow;
import org.jspecify.annotations.Nullable;

/**
 * The sending end of a stream: subscribes to a local {@link Flow.Publisher} and writes its items as
 * DATA frames of one stream. It requests items from the publisher only within the credit the peer
 * granted, at most {@code batch} ahead, and only while the channel is writable (resumed by
 * {@link #resume()} when it becomes writable again), so both a slow reader and a slow network bound
 * the producer. Items are encoded to JSON on the publisher's thread.
 *
 * <p>Thread-safety: the Reactive Streams signals may come from any thread and hop to the channel's
 * event loop; every other method and all state are confined to that event loop.
 */
public final class OutboundSubscriber implements Flow.Subscriber<Object> {
    /** What happens when the publisher ends; called on the event loop after the last DATA write. */
    public interface Ends {
        /** The publisher completed. */
        void completed(long sent);

        /** The publisher failed, or an item could not be encoded or sent. */
        void failed(Throwable cause, long sent);
    }

    private final Channel channel;
    private final EventLoop loop;
    private final long requestId;
    private final int maxFrameBytes;
    private final int batch;
    private final Ends ends;
    private final boolean resumable;

    private Flow.@Nullable Subscription subscription;
    /** Items still to drop before sending: a resumed stream's items the peer already has. */
    private long skip;
    private long credit;
    private long requested;
    private long sent;
    private boolean done;

    /**
     * Creates the subscriber of one stream.
     *
     * @param batch most items requested from the publisher and not yet sent
     */
    public OutboundSubscriber(Channel channel, long requestId, int maxFrameBytes, int batch, Ends ends) {
        this(channel, requestId, maxFrameBytes, batch, ends, 0, false);
    }

    /**
     * Creates the subscriber of one output stream that drops the publisher's first {@code skip} items
     * (a stream resumed on this replica: the peer has them) and marks its DATA frames
     * {@code resumable} when its method is.
     *
     * @param batch most items requested from the publisher and not yet sent or dropped
     */
    public OutboundSubscriber(Channel channel, long requestId, int maxFrameBytes, int batch, Ends ends, long skip,
            boolean resumable) {
        if (skip < 0) {
            throw new IllegalArgumentException("skip: " + skip + " (expected: >= 0)");
        }
        this.skip = skip;
        this.resumable = resumable;
        this.channel = requireNonNull(channel, "channel");
        this.loop = channel.eventLoop();
        this.requestId = requestId;
        this.maxFrameBytes = maxFrameBytes;
        this.batch = batch;
        this.ends = requireNonNull(ends, "ends");
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        requireNonNull(s, "subscription");
        loop.execute(() -> {
            if (done || subscription != null) {
                s.cancel(); // ended before the publisher subscribed us, or a second subscription (2.5)
                return;
            }
            subscription = s;
            pump();
        });
    }

    @Override
    public void onNext(Object item) {
        if (item == null) { // a publisher's bug; sent, the peer's subscriber would get onNext(null)
            loop.execute(() -> fail(new NullPointerException("the publisher sent a null item (Reactive Streams"
                    + " 2.13: onNext must not be called with null)")));
            return;
        }
        StreamItems.Encoded encoded;
        try {
            encoded = StreamItems.encode(item);
        } catch (Exception e) {
            loop.execute(() -> fail(new IllegalArgumentException("cannot encode stream item "
                    + item.getClass().getName() + " as JSON: " + e.getMessage(), e)));
            return;
        }
        loop.execute(() -> send(encoded));
    }

    @Override
    public void onError(Throwable cause) {
        loop.execute(() -> {
            if (!done) {
                done = true;
                ends.failed(cause, sent);
            }
        });
    }

    @Override
    public void onComplete() {
        loop.execute(() -> {
            if (!done) {
                done = true;
                ends.completed(sent);
            }
        });
    }

    private void send(StreamItems.Encoded item) {
        assert loop.inEventLoop();
        if (done) {
            return;
        }
        if (requested == 0 || credit == 0 && skip == 0) {
            fail(new IllegalStateException("the publisher sent an item it was not asked for (Reactive Streams 1.1)"));
            return;
        }
        if (skip > 0) {
            skip--;
            requested--;
            pump();
            return;
        }
        StreamData data = new StreamData(requestId, item.bytes(), resumable, item.raw());
        long length = MessageEncoder.wireLength(data);
        if (length > maxFrameBytes) {
            fail(new IllegalArgumentException("stream item " + (sent + 1) + " is " + length
                    + " bytes (expected: at most max-frame-size, " + maxFrameBytes + " bytes)"));
            return;
        }
        requested--;
        credit--;
        sent++;
        channel.writeAndFlush(data, channel.voidPromise());
        pump();
    }

    /** The peer granted {@code items} more. */
    public void credit(long items) {
        assert loop.inEventLoop();
        credit = credit + items < 0 ? Long.MAX_VALUE : credit + items;
        pump();
    }

    /** The channel may have become writable again: request more if it is. */
    public void resume() {
        assert loop.inEventLoop();
        pump();
    }

    /** Cancels the publisher (peer cancel, deadline, connection closed); no end is reported. */
    public void cancel() {
        assert loop.inEventLoop();
        if (done) {
            return;
        }
        done = true;
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    /** Items sent so far. */
    public long sent() {
        return sent;
    }

    private void fail(Throwable cause) {
        if (done) {
            return;
        }
        cancel();
        ends.failed(cause, sent);
    }

    private void pump() {
        Flow.Subscription s = subscription;
        if (done || s == null || !channel.isWritable()) {
            return;
        }
        long want = Math.min(credit + skip < 0 ? Long.MAX_VALUE : credit + skip, batch) - requested;
        if (want > 0) {
            requested += want;
            try {
                s.request(want);
            } catch (RuntimeException e) {
                fail(e);
            }
        }
    }
}
