package io.neptune.client.internal;

import static java.util.Objects.requireNonNullElse;

import io.neptune.core.internal.wire.Message;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.core.internal.wire.StreamCancel;
import io.neptune.core.internal.wire.StreamCredit;
import io.neptune.core.internal.wire.StreamData;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completes the requests in flight on one client connection with their responses, routes the frames
 * of open streams to their {@link ClientStream}, and fails all of them when the connection breaks or
 * the peer sends something malformed.
 *
 * <p>Thread-safety: {@link #register} runs on caller threads, everything else on the channel's
 * event loop; the in-flight map is concurrent.
 */
final class ResponseHandler extends SimpleChannelInboundHandler<Message> {
    private static final Logger logger = LoggerFactory.getLogger(ResponseHandler.class);

    private final String peer;
    private final Map<Long, CompletableFuture<ResponseMessage>> inflight = new ConcurrentHashMap<>();
    private final Map<Long, ClientStream<?>> streams = new ConcurrentHashMap<>();
    private volatile boolean closed;

    ResponseHandler(String peer) {
        super(Message.class);
        this.peer = peer;
    }

    /** Adds an in-flight request; removes it again whenever its future completes (e.g. deadline). */
    boolean register(long requestId, CompletableFuture<ResponseMessage> future) {
        if (closed) {
            return false;
        }
        inflight.put(requestId, future);
        future.whenComplete((r, e) -> inflight.remove(requestId));
        if (closed) { // raced with channelInactive
            inflight.remove(requestId);
            return false;
        }
        return true;
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
        return inflight.size();
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
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
        ClientStream<?> stream = response.requestId() == 0 ? null : streams.remove(response.requestId());
        if (stream != null) {
            stream.response(response);
            return;
        }
        if (response.requestId() == 0 && response.status() == Status.PROTOCOL_ERROR) {
            failAll(ctx.channel(), new CallFailure(peer + " closed the connection: " + response.errorMessage(), true));
            ctx.close();
            return;
        }
        CompletableFuture<ResponseMessage> future = inflight.remove(response.requestId());
        if (future != null) {
            future.complete(response);
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
        for (Long id : inflight.keySet()) {
            CompletableFuture<ResponseMessage> future = inflight.remove(id);
            if (future != null) {
                future.completeExceptionally(failure);
            }
        }
    }
}
