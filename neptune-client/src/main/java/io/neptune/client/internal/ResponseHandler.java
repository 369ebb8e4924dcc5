package io.neptune.client.internal;

import static java.util.Objects.requireNonNullElse;

import io.neptune.core.AccessMode;
import io.neptune.core.internal.wire.Message;
import io.neptune.core.internal.wire.Metadata;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.core.internal.wire.StreamCancel;
import io.neptune.core.internal.wire.StreamCredit;
import io.neptune.core.internal.wire.StreamData;
import io.neptune.core.internal.wire.WireFormat;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.collection.LongObjectHashMap;
import io.netty.util.collection.LongObjectMap;
import java.util.ArrayDeque;
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

    /** The correlation id of the hello that asks the peer for its wire version; the pool's ids are positive. */
    static final long HELLO_ID = -1;
    /** How long a node may take to answer the hello; it answers on the I/O thread, without a worker. */
    private static final int HELLO_TIMEOUT_MILLIS = 10_000;

    private final String peer;
    /**
     * The highest wire version the peer reads, as its answer to the hello said; 0 before. Asked on the
     * first call that carries metadata, the one feature of version 2. Event loop only.
     */
    private int peerVersion;
    /** What was written while the hello is out, held in its order until it is answered; event loop only. */
    private @Nullable ArrayDeque<Held> held;
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

    /** A message (a call, a stream's request or frame) written while the hello was out, and the promise of its write. */
    private record Held(Object message, ChannelPromise promise) {}

    /**
     * Registers a call as it is written; a call written after the connection closed fails without
     * leaving (it never ran). The first call that carries metadata first asks the peer its wire
     * version ({@link WireFormat#HELLO_SERVICE}), and it and the calls after it wait, in order, for
     * the answer; to a peer of version 1 they go without their metadata. A stream's request asks
     * the same way, and while the hello is out everything written waits behind it, the frames of a
     * stream too, so nothing overtakes the request it belongs to.
     */
    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof PendingCall && closed) {
            promise.tryFailure(new CallFailure("connection to " + peer + " closed", false));
            return;
        }
        RequestMessage request = requestOf(msg);
        if (held == null && peerVersion == 0 && request != null && !request.metadata().isEmpty()) {
            held = new ArrayDeque<>();
            ctx.writeAndFlush(new RequestMessage(HELLO_ID, WireFormat.HELLO_SERVICE, 0, WireFormat.HELLO_METHOD,
                    AccessMode.READ, HELLO_TIMEOUT_MILLIS, 0, RequestId.NONE, new byte[0]));
        }
        if (held != null) {
            held.add(new Held(msg, promise));
            return;
        }
        release(ctx, msg, promise);
    }

    /** The request {@code msg} carries (a call's, or a stream's own), or null for a stream's frame. */
    private static @Nullable RequestMessage requestOf(Object msg) {
        if (msg instanceof PendingCall call) {
            return call.request();
        }
        if (msg instanceof RequestMessage request) {
            return request;
        }
        return null;
    }

    /** Writes {@code msg}, the peer's wire version known (or not needed): a call is registered first. */
    private void release(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof PendingCall call) {
            send(ctx, call, promise);
        } else {
            ctx.write(msg instanceof RequestMessage request ? forPeer(request) : msg, promise);
        }
    }

    private void send(ChannelHandlerContext ctx, PendingCall call, ChannelPromise promise) {
        call.registered(this); // before it is in the map: a call that ends from now on forgets itself
        inflight.put(call.requestId(), call);
        inflightCount = inflight.size();
        if (call.isDone()) { // the caller gave up before the write: sent as before, but not kept
            remove(call.requestId());
        }
        ctx.write(forPeer(call.request()), promise);
    }

    /** {@code request} as the peer reads it: without its metadata unless the peer reads version 2. */
    private RequestMessage forPeer(RequestMessage request) {
        return peerVersion >= WireFormat.VERSION_2 || request.metadata().isEmpty() ? request
                : request.withMetadata(Metadata.NONE);
    }

    /** The hello was answered: the peer's version is known, and the calls held for it leave in their order. */
    private void helloAnswered(ChannelHandlerContext ctx, ResponseMessage answer) {
        // a node of version 1 answers UNKNOWN_SERVICE; a later one its highest version, of which we speak ours at most
        peerVersion = answer.status() == Status.OK
                ? (int) Math.max(WireFormat.VERSION_1, Math.min(WireFormat.LATEST, answer.version()))
                : WireFormat.VERSION_1;
        ArrayDeque<Held> waiting = held;
        held = null;
        if (waiting != null) {
            for (Held h : waiting) {
                release(ctx, h.message(), h.promise());
            }
            ctx.flush();
        }
    }

    /** The peer's wire version as its answer to the hello said; 0 before it answered (or was asked). */
    int peerVersion() {
        return peerVersion;
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
        if (response.requestId() == HELLO_ID) {
            helloAnswered(ctx, response);
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
        ArrayDeque<Held> waiting = held;
        held = null;
        if (waiting != null) { // held for the hello, never sent: they did not run
            for (Held h : waiting) {
                ReferenceCountUtil.release(h.message());
                if (!h.promise().isVoid()) {   // a void one would fire this handler's exceptionCaught again
                    h.promise().tryFailure(new CallFailure("connection to " + peer + " closed before the call was"
                            + " sent: " + failure.getMessage(), false));
                }
            }
        }
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
