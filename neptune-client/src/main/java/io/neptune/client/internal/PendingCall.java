package io.neptune.client.internal;

import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * One request on its way over a pooled connection, and its answer: the future the caller waits
 * on, the action that writes it once the connection is there, and the listener of that write, in
 * one object (they were a future, two lambdas and a registration callback per call). The
 * connection's {@link ResponseHandler} registers it as it passes and completes it with the response.
 *
 * <p>Thread-safety: completed on the connection's event loop (or on the caller's thread when there
 * is no connection); the future is thread-safe.
 */
final class PendingCall extends CompletableFuture<ResponseMessage>
        implements BiConsumer<@Nullable Channel, @Nullable Throwable>, ChannelFutureListener {
    private final RequestMessage request;
    /** Where the call goes (a replica, or a node a thin client asks for the yellow page), for messages. */
    private final Object target;
    /** The handler that registered the call; set on the event loop as it is written, read by any completer. */
    private volatile @Nullable ResponseHandler handler;

    /** A call of {@code request}, which already carries its request id, to {@code target}. */
    PendingCall(RequestMessage request, Object target) {
        this.request = request;
        this.target = target;
    }

    RequestMessage request() {
        return request;
    }

    long requestId() {
        return request.requestId();
    }

    /** The connection's handler took the call in; event loop only. */
    void registered(ResponseHandler registeredBy) {
        handler = registeredBy;
    }

    // However the call ends (its response, a failed write, a closed connection, or the caller's own
    // timeout or cancel), its handler forgets it: a caller that gave up must not leave the call, and
    // its request, in the in-flight map until the connection closes.

    @Override
    public boolean complete(ResponseMessage response) {
        boolean ended = super.complete(response);
        if (ended) {
            forget();
        }
        return ended;
    }

    @Override
    public boolean completeExceptionally(Throwable failure) {
        boolean ended = super.completeExceptionally(failure);
        if (ended) {
            forget();
        }
        return ended;
    }

    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
        boolean ended = super.cancel(mayInterruptIfRunning);
        if (ended) {
            forget();
        }
        return ended;
    }

    private void forget() {
        ResponseHandler registeredBy = handler;
        if (registeredBy != null) {
            registeredBy.forget(requestId());
        }
    }

    /** The connection is open (or could not be opened): write the call on it. */
    @Override
    public void accept(@Nullable Channel channel, @Nullable Throwable connectError) {
        if (connectError != null) {
            completeExceptionally(connectError);
        } else if (channel != null) {
            channel.writeAndFlush(this).addListener(this);
        }
    }

    /** The write ended: if it failed, the request never left, so the call fails as not run. */
    @Override
    public void operationComplete(ChannelFuture write) {
        if (write.isSuccess()) {
            return;
        }
        Throwable cause = write.cause();
        completeExceptionally(cause instanceof CallFailure failure ? failure
                : new CallFailure("cannot send to " + target + ": " + cause.getMessage(), false, cause));
    }
}
