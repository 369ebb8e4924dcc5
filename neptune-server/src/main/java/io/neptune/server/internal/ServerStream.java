package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JavaType;
import io.neptune.client.internal.CallerGone;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.stream.InboundPublisher;
import io.neptune.core.internal.stream.OutboundSubscriber;
import io.neptune.core.internal.stream.StreamItems;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.core.internal.wire.StreamCancel;
import io.neptune.core.internal.wire.StreamCredit;
import io.neptune.core.internal.wire.StreamData;
import io.neptune.core.internal.wire.StreamEnd;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import java.io.IOException;
import java.lang.reflect.Type;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server side of one stream on one connection ({@code docs/protocols/wire.md}, "Streams"): the
 * method's output goes out through an {@link OutboundSubscriber} within the client's credit and the
 * channel's writability; a bidirectional stream's input comes in through an {@link InboundPublisher}
 * whose demand becomes credit for the client. The stream ends with one RESPONSE (OK, the method's
 * error, DEADLINE_EXCEEDED at the call's deadline, UNAVAILABLE at shutdown), or silently when the
 * client cancels it or the connection closes; either way the producer is cancelled.
 *
 * <p>Thread-safety: the state is confined to the channel's event loop; {@link #start} and
 * {@link #finish} may be called from workers and hop there. {@code done} is volatile for the input's
 * credit and cancel, which come from delivery threads.
 */
final class ServerStream implements StreamSink {
    /** Most items requested from the method's publisher and not yet written. */
    static final int OUTPUT_BATCH = 32;
    /** Most items of the client's input granted and not yet delivered to the service. */
    static final int INPUT_WINDOW = 64;

    private static final Logger logger = LoggerFactory.getLogger(ServerStream.class);

    private final NodeId node;
    private final Channel channel;
    private final EventLoop loop;
    private final RequestMessage request;
    private final Map<Long, ServerStream> registry;
    private final int maxFrameBytes;
    private final boolean resumable;
    private final @Nullable InboundPublisher<Object> input;
    private final ScheduledFuture<?> deadline;
    private @Nullable OutboundSubscriber output;
    private long pendingCredit;
    private volatile boolean done;
    private volatile Consumer<String> ended = outcome -> { };
    /** The signal, to the method's inner calls, that the stream ended before it completed. */
    private final CallerGone caller = new CallerGone();

    /**
     * Opens the stream of {@code request} on the event loop of {@code channel} and registers it.
     *
     * @param inputItemType the item type of the client's input, for a bidirectional stream method; else null
     * @param resumable whether the method is resumable: its DATA frames say so, and a resumed request's
     *     first {@link RequestMessage#resumeFrom()} items are dropped
     * @param deliveries runs the deliveries of the client's input to the service
     */
    ServerStream(NodeId node, Channel channel, RequestMessage request, @Nullable Type inputItemType, boolean resumable,
            Executor deliveries, int maxFrameBytes, Map<Long, ServerStream> registry) {
        this.resumable = resumable;
        this.node = requireNonNull(node, "node");
        this.channel = requireNonNull(channel, "channel");
        this.loop = channel.eventLoop();
        assert loop.inEventLoop();
        this.request = requireNonNull(request, "request");
        this.registry = requireNonNull(registry, "registry");
        this.maxFrameBytes = maxFrameBytes;
        if (inputItemType != null && request.streaming() == RequestMessage.Streaming.BIDIRECTIONAL) {
            JavaType type = Json.mapper().constructType(inputItemType);
            input = new InboundPublisher<>(deliveries, item -> decode(item, type), INPUT_WINDOW, new Input());
        } else {
            input = null;
        }
        registry.put(request.requestId(), this);
        deadline = loop.schedule(this::expire, request.timeoutMillis(), TimeUnit.MILLISECONDS);
    }

    private static Object decode(StreamData item, JavaType type) {
        try {
            return StreamItems.decode(item, type);
        } catch (IOException e) {
            throw new NeptuneException("cannot decode an input item as " + type + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Flow.Publisher<Object> input() {
        if (input == null) {
            throw new IllegalStateException(request.target() + " has no input stream");
        }
        return input;
    }

    @Override
    public void start(Flow.Publisher<?> publisher) {
        OutboundSubscriber out = new OutboundSubscriber(channel, request.requestId(), maxFrameBytes, OUTPUT_BATCH,
                new OutboundSubscriber.Ends() {
                    @Override
                    public void completed(long sent) {
                        finishNow(ResponseMessage.ok(request.requestId(), 0, new byte[0]));
                    }

                    @Override
                    public void failed(Throwable cause, long sent) {
                        logger.debug("{}: stream {} failed after {} items", node, request.target(), sent, cause);
                        finishNow(ResponseMessage.error(request.requestId(), Status.METHOD_FAILED,
                                cause.getClass().getName() + ": " + cause.getMessage()));
                    }
                }, request.resumeFrom(), resumable);
        loop.execute(() -> {
            if (done) {
                out.cancel();
                return;
            }
            output = out;
            if (pendingCredit > 0) {
                out.credit(pendingCredit);
            }
        });
        try {
            publisher.subscribe(out); // its onSubscribe hops to the loop, after the task above
        } catch (RuntimeException e) {
            finish(ResponseMessage.error(request.requestId(), Status.METHOD_FAILED, "the stream's publisher threw"
                    + " on subscribe: " + e.getClass().getName() + ": " + e.getMessage()));
        }
    }

    /** The client granted {@code items} more of the output. */
    void credit(int items) {
        assert loop.inEventLoop();
        if (output != null) {
            output.credit(items);
        } else {
            pendingCredit += items;
        }
    }

    /** One item of the client's input; false if the stream takes no input or the client had no credit for it. */
    boolean data(StreamData item) {
        assert loop.inEventLoop();
        return input != null && input.offer(item);
    }

    /** The client's input ended; false if the stream takes no input. */
    boolean end(StreamEnd end) {
        assert loop.inEventLoop();
        if (input == null) {
            return false;
        }
        if (end.status() == Status.OK) {
            input.complete();
        } else {
            input.fail(new NeptuneException(request.target() + ": the client's input failed: " + end.message()));
        }
        return true;
    }

    /** The channel became writable again: the output may take more from its producer. */
    void resume() {
        assert loop.inEventLoop();
        if (output != null) {
            output.resume();
        }
    }

    /** The client cancelled the stream: nothing more is sent for it. */
    void cancelledByClient(String reason) {
        assert loop.inEventLoop();
        end("the client cancelled the stream: " + reason, "CANCELLED");
    }

    /** The connection closed. */
    void connectionClosed() {
        assert loop.inEventLoop();
        end("the connection closed", "CONNECTION_CLOSED");
    }

    /** The node is shutting down: ends the stream with UNAVAILABLE. */
    void shutdown() {
        finish(ResponseMessage.error(request.requestId(), Status.UNAVAILABLE, node + " is shutting down"));
    }

    /** Ends the stream with {@code response}, unless it ended already; from any thread. */
    void finish(ResponseMessage response) {
        if (loop.inEventLoop()) {
            finishNow(response);
        } else {
            loop.execute(() -> finishNow(response));
        }
    }

    private void expire() {
        long sent = output == null ? 0 : output.sent();
        finishNow(ResponseMessage.error(request.requestId(), Status.DEADLINE_EXCEEDED, "the stream's deadline of "
                + request.timeoutMillis() + " ms passed on " + node + " after " + sent + " items"));
    }

    private void finishNow(ResponseMessage response) {
        if (end(request.target() + " ended: " + response.status(), response.status().name())) {
            channel.writeAndFlush(response.fittingError(maxFrameBytes), channel.voidPromise());
        }
    }

    /**
     * The signal that the client stopped waiting for this stream: it ended other than by completing
     * (the client cancelled it, the connection closed, it failed or its deadline passed). The stream is
     * routed with it, so the method's inner calls end with the stream.
     */
    CallerGone caller() {
        return caller;
    }

    @Override
    public void whenEnded(Consumer<String> listener) {
        this.ended = requireNonNull(listener, "listener");
    }

    /**
     * Ends the stream (cancels its producer, fails its input) and tells its listener the {@code outcome};
     * false if it had ended already.
     */
    private boolean end(String why, String outcome) {
        assert loop.inEventLoop();
        if (done) {
            return false;
        }
        done = true;
        registry.remove(request.requestId(), this);
        deadline.cancel(false);
        if (output != null) {
            output.cancel();
        }
        if (input != null) {
            input.fail(new NeptuneException(why));
        }
        logger.debug("{}: {}", node, why);
        try {
            ended.accept(outcome);
        } catch (RuntimeException e) {
            logger.warn("{}: the end listener of stream {} failed", node, request.target(), e);
        }
        if (!outcome.equals(Status.OK.name())) {
            caller.signal(why);
        }
        return true;
    }

    /** The service's subscription to the client's input, as the client sees it. */
    private final class Input implements InboundPublisher.Upstream {
        @Override
        public void open() {
            // the client opened the stream already
        }

        @Override
        public void credit(int items) {
            if (!done) {
                channel.writeAndFlush(new StreamCredit(request.requestId(), items), channel.voidPromise());
            }
        }

        @Override
        public void cancel() {
            if (!done) {
                channel.writeAndFlush(StreamCancel.of(request.requestId(), "the service cancelled its input"),
                        channel.voidPromise());
            }
        }
    }
}
