package io.neptune.client.internal;

import static java.util.Objects.requireNonNullElse;

import io.neptune.core.internal.wire.Message;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.core.internal.wire.StreamCancel;
import io.neptune.core.internal.wire.StreamCredit;
import io.neptune.core.internal.wire.StreamData;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.collection.LongObjectMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completes the requests in flight on one client connection with their responses, routes the frames
 * of open streams to their {@link ClientStream}, and fails all of them when the connection breaks or
 * the peer sends something malformed.
 *
 * <p>A call is registered as its {@link PendingCall} passes on its way out, so the calls in flight
 * are the event loop's alone: a map of primitive ids without locks or boxing, where a concurrent map
 * cost a node and three boxed ids per call.
 *
 * <p>Thread-safety: {@link #registerStream}, {@link #removeStream}, {@link #forget} and the counts
 * run on any thread (forget hands the removal to the event loop); everything else runs on the
 * channel's event loop. The stream map is concurrent.
 */
final class ResponseHandler extends ChannelDuplexHandler {
    private static final Logger logger = LoggerFactory.getLogger(ResponseHandler.class);

    private final String peer;
    /** The calls written and not answered, by request id; event loop only. */
    private final LongObjectMap<PendingCall> inflight = new LongObjectHashMap<>();
    /** {@code inflight.size()}, for other threads. */
    private volatile int inflightCount;
    private final Map<Long, ClientStream<?>> streams = new ConcurrentHashMap<>();
    private volatile boolean closed;
    /** This handler's place in the pipeline, for forgetting calls from other threads. */
    private volatile @Nullable ChannelHandlerContext context;

    ResponseHandler(String peer) {
        this.peer = peer;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        context = ctx;
    }

    /**
     * Registers a call as it is written; a call written after the connection closed fails without
     * leaving (it never ran). Everything else passes unchanged.
     */
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof PendingCall call)) {
            ctx.write(msg, promise);
            return;
        }
        if (closed) {
            promise.tryFailure(new CallFailure("connection to " + peer + " closed", false));
            return;
        }
        call.registered(this); // before it is in the map: a call that ends from now on forgets itself
        inflight.put(call.requestId(), call);
        inflightCount = inflight.size();
        if (call.isDone()) { // the caller gave up before the write: sent as before, but not kept
            remove(call.requestId());
        }
        ctx.write(call.request(), promise);
    }

    /** Forgets a call that ended (answered, failed, or given up by its caller); any thread. */
    void forget(long requestId) {
        ChannelHandlerContext ctx = context;
        if (ctx == null || ctx.executor().inEventLoop()) {
            remove(requestId);
            return;
        }
        try {
            ctx.executor().execute(() -> remove(requestId));
        } catch (RejectedExecutionException e) {
            // the event loop stopped: the connection and its map are gone with it
        }
    }

    private void remove(long requestId) {
        if (inflight.remove(requestId) != null) {
            inflightCount = inflight.size();
        }
    }

    /** Adds an open stream; false if the connection closed. */
    boolean registerStream(long requestId, ClientStream<?> stream) {
        if (closed) {
            return false;
        }
        streams.put(requestId, stream);
        if (closed) { // raced with channelInactive
            streams.remove(requestId);
            return false;
        }
        return true;
    }

    /** Forgets a stream that ended; frames still arriving for it are dropped. */
    void removeStream(long requestId) {
        streams.remove(requestId);
    }

    /** Open streams on this connection; for tests and metrics. */
    int streamCount() {
        return streams.size();
    }

    int inflightCount() {
        return inflightCount;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Message message) {
            read(ctx, message);
        } else {
            ctx.fireChannelRead(msg);
        }
    }

    private void read(ChannelHandlerContext ctx, Message msg) {
        if (msg instanceof StreamData || msg instanceof StreamCredit || msg instanceof StreamCancel) {
            streamFrame(msg);
            return;
        }
        if (!(msg instanceof ResponseMessage response)) {
            failAll(ctx.channel(), new CallFailure(peer + " sent a " + msg.getClass().getSimpleName() + " frame on a client"
                    + " connection", true));
            ctx.close();
            return;
        }
        ClientStream<?> stream = response.requestId() == 0 || streams.isEmpty() ? null
                : streams.remove(response.requestId());
        if (stream != null) {
            stream.response(response);
            return;
        }
        if (response.requestId() == 0 && response.status() == Status.PROTOCOL_ERROR) {
            failAll(ctx.channel(), new CallFailure(peer + " closed the connection: " + response.errorMessage(), true));
            ctx.close();
            return;
        }
        PendingCall call = inflight.remove(response.requestId());
        if (call != null) {
            inflightCount = inflight.size();
            call.complete(response); // forgets it again: a lookup of an id no longer there
        }
    }

    /** A frame of an open stream; dropped if the stream ended (it may have crossed a CANCEL). */
    private void streamFrame(Message msg) {
        ClientStream<?> stream = streams.get(msg.requestId());
        if (stream == null) {
            return;
        }
        if (msg instanceof StreamData data) {
            stream.data(data);
        } else if (msg instanceof StreamCredit credit) {
            stream.inputCredit(credit.items());
        } else {
            stream.inputCancelled();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            streams.values().forEach(ClientStream::resume);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        failAll(ctx.channel(), new CallFailure("connection to " + peer + " closed", true));
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        logger.warn("connection to {} failed: {}", peer, cause.toString());
        failAll(ctx.channel(), new CallFailure("connection to " + peer + " failed: " + cause.getMessage(), true, cause));
        ctx.close();
    }

    private void failAll(Channel channel, CallFailure failure) {
        closed = true;
        for (Long id : streams.keySet()) {
            ClientStream<?> stream = streams.remove(id);
            if (stream != null) {
                stream.connectionLost(channel, requireNonNullElse(failure.getMessage(), failure.toString()));
            }
        }
        PendingCall[] calls = inflight.values().toArray(new PendingCall[0]);
        inflight.clear();
        inflightCount = 0;
        for (PendingCall call : calls) {
            call.completeExceptionally(failure);
        }
    }
}
