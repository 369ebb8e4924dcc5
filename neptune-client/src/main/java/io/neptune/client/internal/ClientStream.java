package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.databind.JavaType;
import io.neptune.client.BalancingPolicy;
import io.neptune.core.InvalidRequestException;
import io.neptune.core.NeptuneException;
import io.neptune.core.NoReplicaAvailableException;
import io.neptune.core.NodeId;
import io.neptune.core.OverloadedException;
import io.neptune.core.PermissionDeniedException;
import io.neptune.core.ReplicaRole;
import io.neptune.core.RequestDroppedException;
import io.neptune.core.StreamFailedException;
import io.neptune.core.UnknownMethodException;
import io.neptune.core.UnknownPartitionException;
import io.neptune.core.UnknownServiceClassException;
import io.neptune.core.UnknownServiceException;
import io.neptune.core.internal.membership.Replica;
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
import io.netty.util.Timeout;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import java.io.IOException;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client side of one stream ({@code docs/protocols/wire.md}, "Streams"): a cold publisher for
 * one subscriber. Subscribing picks a replica once with the call's policy and sends the REQUEST over
 * the pool (also to this node: streams always go over TCP); the subscriber's demand becomes CREDIT
 * frames ({@link InboundPublisher}); a bidirectional stream's input is sent within the server's
 * credit ({@link OutboundSubscriber}). The RESPONSE ends it; a broken connection, the deadline or a
 * protocol error fail it with {@link StreamFailedException}.
 *
 * <p>Fail-over: when the connection to the serving node is lost or the node shuts down, an output
 * stream is opened again on another replica (at most {@code retries} times, within the deadline) if
 * nothing was received yet (a read may run again), or if its DATA frames said the method is
 * resumable: then the REQUEST asks the new replica to skip the items already received, and the
 * credit not yet used moves with it. The subscriber sees one stream. A bidirectional stream never
 * moves: its input cannot be sent twice.
 *
 * <p>Thread-safety: thread-safe. The frame callbacks run on the connection's event loop, demand and
 * cancel on the subscriber's threads; the attachment to a connection is guarded by {@code lock}.
 */
final class ClientStream<T> implements Flow.Publisher<T>, InboundPublisher.Upstream {
    /** Most items granted to the server and not yet delivered to the subscriber. */
    static final int WINDOW = 256;
    /** Most input items requested from the caller's publisher and not yet sent. */
    static final int INPUT_BATCH = 32;

    private static final Logger logger = LoggerFactory.getLogger(ClientStream.class);

    private final DefaultNeptuneClient client;
    /** The stream's REQUEST; once opened, with the trace context of its span if it has one. */
    private volatile RequestMessage message;
    /** The context the stream was made in: its span's parent. */
    private final Context parent = Context.current();
    /** The stream's CLIENT span, from its open to its end, or null when it is not traced. */
    private volatile @Nullable Span span;
    private final Flow.@Nullable Publisher<?> input;
    private final BalancingPolicy policy;
    private final long timeoutNanos;
    private final InboundPublisher<T> inbound;
    private final Object lock = new Object();
    // @GuardedBy("lock")
    private @Nullable Channel channel;
    private @Nullable ResponseHandler handler;
    private long requestId;
    private boolean requestSent;
    private long pendingCredit;
    private boolean ended;
    private @Nullable Timeout timer;
    private volatile @Nullable NodeId node;
    private volatile @Nullable OutboundSubscriber outbound;
    /** Whether a DATA frame said the method is resumable. Set and read on the serving connection's event loop. */
    private volatile boolean resumable;
    // @GuardedBy("lock")
    private long granted;
    private int reopened;
    /** Why the stream last moved off a node, for the error if it cannot move again. */
    // @GuardedBy("lock")
    private String lastMove = "";
    private long deadlineNanos;
    private final java.util.Set<NodeId> failedNodes = new java.util.HashSet<>();
    /** The caller whose going ends this inner stream ({@link #endWhen}), or null: not an inner stream. */
    private volatile @Nullable CallerGone endWhen;
    private volatile Function<String, NeptuneException> endFailure = NeptuneException::new;
    /** The watch on {@link #endWhen} from the open to the end. */
    private volatile CallerGone.@Nullable Watch watch;

    ClientStream(DefaultNeptuneClient client, RequestMessage message, Flow.@Nullable Publisher<?> input,
            JavaType itemType, BalancingPolicy policy, long timeoutNanos) {
        this.client = requireNonNull(client, "client");
        this.message = requireNonNull(message, "message");
        this.input = input;
        this.policy = requireNonNull(policy, "policy");
        this.timeoutNanos = timeoutNanos;
        this.inbound = new InboundPublisher<>(client.streamDeliveries(), item -> decode(item, itemType), WINDOW,
                this);
    }

    private T decode(StreamData item, JavaType itemType) {
        try {
            return StreamItems.decodeReply(item, itemType);
        } catch (IOException e) {
            long index = inbound.delivered(); // the items queued behind this one are never delivered
            NodeId target = node;
            throw new StreamFailedException(message.target(), target == null ? client.node() : target,
                    StreamFailedException.Reason.PROTOCOL_ERROR, index, "cannot decode item " + index + " as "
                    + itemType + ": " + e.getMessage());
        }
    }

    /**
     * Ends this stream with the failure {@code failure} makes of the reason, and cancels it on its node,
     * when {@code caller} goes (the caller of the call it is an inner stream of); set before it is
     * subscribed.
     */
    void endWhen(CallerGone caller, Function<String, NeptuneException> failure) {
        this.endFailure = requireNonNull(failure, "failure");
        this.endWhen = requireNonNull(caller, "caller");
    }

    @Override
    public void subscribe(Flow.Subscriber<? super T> subscriber) {
        inbound.subscribe(subscriber);
    }

    // ---------------------------------------------------------------- opening

    /** The subscriber subscribed: pick the replica and send the REQUEST. */
    @Override
    public void open() {
        try {
            Timeout armed = client.deadlines().newTimeout(t -> expire(), timeoutNanos, TimeUnit.NANOSECONDS);
            synchronized (lock) {
                timer = armed;
                deadlineNanos = System.nanoTime() + timeoutNanos;
            }
        } catch (IllegalStateException e) { // the wheel stopped: the client is closing
            end(new NeptuneException(message.target() + ": client is closed"), false);
            return;
        }
        CallerGone caller = endWhen;
        if (caller != null) {
            watch = caller.watch(why -> end(endFailure.apply(why), true));
            synchronized (lock) {
                if (ended) {    // the caller had gone already
                    return;
                }
            }
        }
        Span traced = client.tracing().clientSpan(client.node(), message, parent);
        if (traced != null) {
            span = traced;
            message = Tracing.carrying(traced, message, parent);
        }
        connect(message);
    }

    /** Picks a replica not known to have failed this stream and sends {@code request} to it. */
    private void connect(RequestMessage request) {
        String service = message.service();
        OptionalInt partitions = client.yellowPage().partitions(service);
        if (partitions.isEmpty()) {
            failOpen(new UnknownServiceException(service, "no node in the yellow page hosts it"));
            return;
        }
        if (message.partition() < 0 || message.partition() >= partitions.getAsInt()) {
            failOpen(new UnknownPartitionException(service, message.partition(), partitions.getAsInt()));
            return;
        }
        java.util.Set<NodeId> failed;
        synchronized (lock) {
            failed = java.util.Set.copyOf(failedNodes);
        }
        List<Replica> candidates = client.yellowPage().replicas(service, message.partition()).stream()
                .filter(r -> r.role() != ReplicaRole.RECOVERING && !failed.contains(r.node())).toList();
        if (candidates.isEmpty()) {
            failOpen(new NoReplicaAvailableException(service, message.partition(), "none in the yellow page serves"
                    + " reads now" + (failed.isEmpty() ? "" : " but " + failed + ", which failed this stream"), null));
            return;
        }
        client.selector(policy).select(service, message.partition(), message.serviceClass(), candidates)
                .whenComplete((replica, error) -> {
                    if (error != null) {
                        failOpen(DefaultNeptuneClient.unwrap(error));
                    } else {
                        node = replica.node();
                        client.pool().openStream(replica, request, this);
                    }
                });
    }

    /**
     * Ends the stream because it could not be opened: with {@code cause} itself on the first try, as
     * a {@link StreamFailedException} (connection lost, naming the cause) once it had moved, since
     * the subscriber may have received items and the node that served them failed.
     */
    private void failOpen(NeptuneException cause) {
        boolean moved;
        String why;
        synchronized (lock) {
            moved = reopened > 0;
            why = lastMove;
        }
        end(moved ? failure(StreamFailedException.Reason.CONNECTION_LOST, "its node failed (" + why + ") and it"
                + " could not move to another replica: " + cause.getMessage()) : cause, false);
    }

    /**
     * The pool registered the stream as {@code id} on {@code channel} and is about to write the
     * REQUEST; false if the stream ended meanwhile (then nothing is written).
     */
    boolean attach(Channel ch, ResponseHandler h, long id) {
        synchronized (lock) {
            if (ended) {
                return false;
            }
            channel = ch;
            handler = h;
            requestId = id;
        }
        if (input != null) {
            outbound = new OutboundSubscriber(ch, id, client.config().maxFrameBytes(), INPUT_BATCH, new InputEnds());
        }
        return true;
    }

    /** The REQUEST went out: send the credit granted so far and start sending the input. */
    void requestSent() {
        long credit;
        Channel ch;
        synchronized (lock) {
            requestSent = true;
            credit = pendingCredit;
            pendingCredit = 0;
            ch = channel;
        }
        if (credit > 0 && ch != null) {
            ch.writeAndFlush(new StreamCredit(requestId, (int) credit), ch.voidPromise());
        }
        OutboundSubscriber out = outbound;
        if (input != null && out != null) {
            try {
                input.subscribe(out);
            } catch (RuntimeException e) {
                requireNonNull(ch, "channel: attach() set it with outbound").eventLoop().execute(() -> out.onError(e));
            }
        }
    }

    /** The stream could not be opened: no connection, or it closed before the REQUEST went out. */
    void openFailed(Throwable cause) {
        NodeId target = node;
        if (reopen("cannot open the stream on " + target + ": " + cause.getMessage())) {
            return;
        }
        failOpen(new NoReplicaAvailableException(message.service(), message.partition(), "cannot open the stream on "
                + target + ": " + cause.getMessage(), cause));
    }

    // ---------------------------------------------------------------- subscriber side

    @Override
    public void credit(int items) {
        Channel ch;
        long id;
        synchronized (lock) {
            if (ended) {
                return;
            }
            granted += items;
            if (!requestSent) {
                pendingCredit += items;
                return;
            }
            ch = channel;
            id = requestId;
        }
        if (ch != null) {
            ch.writeAndFlush(new StreamCredit(id, items), ch.voidPromise());
        }
    }

    @Override
    public void cancel() {
        end(null, true);
    }

    // ---------------------------------------------------------------- frames (event loop)

    void data(StreamData item) {
        if (item.resumable()) {
            resumable = true;
        }
        if (!inbound.offer(item)) {
            end(failure(StreamFailedException.Reason.PROTOCOL_ERROR, "the server sent more items than its credit"),
                    true);
        }
    }

    void inputCredit(int items) {
        OutboundSubscriber out = outbound;
        if (out != null) {
            out.credit(items);
        }
    }

    void inputCancelled() {
        OutboundSubscriber out = outbound;
        if (out != null) {
            out.cancel();
        }
    }

    void resume() {
        OutboundSubscriber out = outbound;
        if (out != null) {
            out.resume();
        }
    }

    void response(ResponseMessage response) {
        if (response.status() == Status.OK) {
            NodeId served = node;
            if (served != null) {
                client.countResponse(served);
            }
            end(null, false);
        } else if (!didNotRun(response.status()) || !reopen(node + " answered " + response.status() + ": "
                + response.errorMessage())) {
            end(afterItems(failure(response)), false);
        }
    }

    /**
     * Answers that say the method did not run there, on which a call tries another replica (the
     * node is shutting down, no longer hosts the partition, is overloaded, or is behind): a stream
     * moves as it does when its node fails.
     */
    private static boolean didNotRun(Status status) {
        return status == Status.UNAVAILABLE || status == Status.NOT_HOSTED || status == Status.OVERLOADED
                || status == Status.STALE;
    }

    /**
     * {@code cause}, or, once the subscriber received items, a {@link StreamFailedException} that
     * says how many (a caller resumes from there; "overloaded, did not run" would not be true).
     */
    private NeptuneException afterItems(NeptuneException cause) {
        if (cause instanceof StreamFailedException || inbound.received() == 0) {
            return cause;
        }
        return failure(StreamFailedException.Reason.CONNECTION_LOST, "its node failed and it could not move to"
                + " another replica: " + cause.getMessage());
    }

    /** The connection the stream runs on now, or null while it is not on one; for tests. */
    @Nullable Channel channel() {
        synchronized (lock) {
            return channel;
        }
    }

    /**
     * The connection {@code lost} broke; ignored unless the stream runs on it. A broken connection is
     * reported twice (the handler's failAll, the REQUEST's write listener), and between a move's start
     * and its new connection the stream is on none: a second move then made two replicas run it.
     */
    void connectionLost(Channel lost, String detail) {
        synchronized (lock) {
            if (channel != lost) {
                return;
            }
        }
        if (!reopen(detail)) {
            end(failure(StreamFailedException.Reason.CONNECTION_LOST, detail), false);
        }
    }

    /**
     * Moves the stream to another replica after its node failed ({@code why}), if it may move: an
     * output stream, nothing received yet or a resumable method, a move left, time left. The new
     * REQUEST skips the items received and carries the credit granted but not used.
     *
     * @return false if the stream cannot move (the caller ends it)
     */
    private boolean reopen(String why) {
        long received = inbound.received();
        if (input != null || received > 0 && !resumable || inbound.isDone()) {
            return false;
        }
        NodeId failed = node;
        ResponseHandler oldHandler;
        long oldId;
        long left;
        synchronized (lock) {
            left = deadlineNanos - System.nanoTime();
            if (ended || reopened >= client.config().retries() || left < TimeUnit.MILLISECONDS.toNanos(1)) {
                return false;
            }
            reopened++;
            lastMove = why;
            oldHandler = handler;
            oldId = requestId;
            channel = null;
            handler = null;
            requestSent = false;
            pendingCredit = granted - received; // credit the old node had not used; grants in flight add to it
            if (failed != null) {
                failedNodes.add(failed);
            }
        }
        if (oldHandler != null) {
            oldHandler.removeStream(oldId);
        }
        logger.debug("{}: stream {} moves off {} after {} items ({})", client.node(), message.target(), failed,
                received, why);
        RequestMessage again = message.withRequestId(message.requestId(),
                (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        connect(received > 0 ? again.resumingFrom(received) : again);
        return true;
    }

    private void expire() {
        end(failure(StreamFailedException.Reason.DEADLINE_EXCEEDED, "the stream's deadline of "
                + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms passed"), true);
    }

    /**
     * Ends the stream once: with {@code error}, or completed (null error) unless the subscriber
     * cancelled; {@code tellServer}: send CANCEL, because the server still runs it.
     */
    private void end(@Nullable NeptuneException error, boolean tellServer) {
        Channel ch;
        ResponseHandler h;
        long id;
        boolean sent;
        Timeout t;
        synchronized (lock) {
            if (ended) {
                return;
            }
            ended = true;
            ch = channel;
            h = handler;
            id = requestId;
            sent = requestSent;
            t = timer;
        }
        if (t != null) {
            t.cancel();
        }
        CallerGone.Watch w = watch;
        if (w != null) {
            w.close();
        }
        if (h != null) {
            h.removeStream(id);
        }
        if (ch != null) {
            if (tellServer && sent) {
                String reason = error == null ? "the subscriber cancelled"
                        : requireNonNullElse(error.getMessage(), error.toString());
                ch.writeAndFlush(StreamCancel.of(id, reason), ch.voidPromise());
            }
            OutboundSubscriber out = outbound;
            if (out != null) {
                ch.eventLoop().execute(out::cancel);
            }
        }
        Span traced = span;
        if (traced != null) {
            Tracing.end(traced, error);
        }
        if (error != null) {
            inbound.fail(error);
        } else {
            inbound.complete();
        }
    }

    private StreamFailedException failure(StreamFailedException.Reason reason, String detail) {
        NodeId target = node;
        return new StreamFailedException(message.target(), target == null ? client.node() : target, reason,
                inbound.received(), detail);
    }

    /** The error a RESPONSE with an error status means. */
    private NeptuneException failure(ResponseMessage response) {
        String text = response.errorMessage();
        NodeId target = node == null ? client.node() : node;
        return switch (response.status()) {
            case METHOD_FAILED -> failure(StreamFailedException.Reason.REMOTE_ERROR, text);
            case DEADLINE_EXCEEDED -> failure(StreamFailedException.Reason.DEADLINE_EXCEEDED, text);
            case UNAVAILABLE -> failure(StreamFailedException.Reason.CANCELLED_BY_SERVER, text);
            case UNKNOWN_SERVICE -> new UnknownServiceException(message.service(), text);
            case UNKNOWN_METHOD -> new UnknownMethodException(message.service(), message.method(), text);
            case UNKNOWN_PARTITION -> new UnknownPartitionException(message.service(), message.partition(),
                    client.yellowPage().partitions(message.service()).orElse(0));
            case UNKNOWN_CLASS -> new UnknownServiceClassException(message.serviceClass(), target
                    + " declares no such class: " + text);
            case OVERLOADED -> new OverloadedException(message.target(), target, text);
            case PERMISSION_DENIED -> new PermissionDeniedException(message.target(), target, text);
            case DROPPED -> new RequestDroppedException(message.target(), message.serviceClass(), target, text);
            case INVALID_REQUEST, PROTOCOL_ERROR -> new InvalidRequestException(message.target() + " rejected by "
                    + target + ": " + text);
            default -> new NoReplicaAvailableException(message.service(), message.partition(), "the stream was"
                    + " opened on " + target + ", which answered " + response.status() + ": " + text, null);
        };
    }

    /** The end of the caller's input: tell the server. */
    private final class InputEnds implements OutboundSubscriber.Ends {
        @Override
        public void completed(long sent) {
            write(StreamEnd.completed(requestId));
        }

        @Override
        public void failed(Throwable cause, long sent) {
            write(StreamEnd.failed(requestId, cause.getClass().getName() + ": " + cause.getMessage()));
        }

        private void write(StreamEnd end) {
            Channel ch;
            synchronized (lock) {
                if (ended) {
                    return;
                }
                ch = channel;
            }
            if (ch != null) {
                ch.writeAndFlush(end, ch.voidPromise());
            }
        }
    }
}
