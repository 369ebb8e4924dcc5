package io.neptune.client.internal;

import com.fasterxml.jackson.databind.JavaType;
import io.neptune.client.BalancingPolicy;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.AlreadyAppliedException;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.DeadlineExceededException;
import io.neptune.core.InvalidRequestException;
import io.neptune.core.NeptuneException;
import io.neptune.core.NoReplicaAvailableException;
import io.neptune.core.NodeId;
import io.neptune.core.OverloadedException;
import io.neptune.core.RemoteMethodException;
import io.neptune.core.ReplicaRole;
import io.neptune.core.UnknownMethodException;
import io.neptune.core.UnknownPartitionException;
import io.neptune.core.UnknownServiceException;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * One call from start to result: candidate lookup, replica choice, send, and bounded retries on a
 * different replica when the failure proves the method did not run (or the call is a read).
 *
 * <p>Thread-safety: attempts run one after another, each started from the completion of the
 * previous one, so the mutable fields are handed over with happens-before by the futures.
 */
final class Call<T> implements TimerTask {
    /** Pause before a write tries again while its partition has no primary (fail-over). */
    static final long RETRY_DELAY_MILLIS = 50;

    private final DefaultNeptuneClient client;
    private final NeptuneHandle handle;
    private final RequestMessage message;
    private final JavaType responseType;
    private final BalancingPolicy policy;
    private final long timeoutNanos;
    private final long deadlineNanos;
    private final CompletableFuture<T> result = new CompletableFuture<>();
    /** Written by whichever thread sends an attempt, read by the deadline's message: concurrent. */
    private final Set<NodeId> tried = ConcurrentHashMap.newKeySet();
    private int retriesLeft;
    private @Nullable NeptuneException lastFailure;

    Call(DefaultNeptuneClient client, NeptuneHandle handle, RequestMessage message, JavaType responseType,
            BalancingPolicy policy, long timeoutNanos) {
        this.client = client;
        this.handle = handle;
        this.message = message;
        this.responseType = responseType;
        this.policy = policy;
        this.timeoutNanos = timeoutNanos;
        this.deadlineNanos = System.nanoTime() + timeoutNanos;
        this.retriesLeft = client.config().retries();
    }

    CompletableFuture<T> start() {
        Timeout timer;
        try {
            timer = client.deadlines().newTimeout(this, timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException e) { // the wheel stopped: the client was closed meanwhile
            closed();
            return result;
        }
        result.whenComplete((r, e) -> timer.cancel());
        attempt();
        return result;
    }

    /**
     * The deadline passed. The failure is completed on an I/O thread, not on the wheel's one
     * thread: the caller's callbacks run where the future completes, and one that blocked or called
     * again would hold up every other deadline.
     */
    @Override
    public void run(Timeout timeout) {
        DeadlineExceededException expired = new DeadlineExceededException(message.target(),
                Duration.ofNanos(timeoutNanos), tried.isEmpty() ? "no replica answered" : "last tried " + tried);
        try {
            client.group().execute(() -> result.completeExceptionally(expired));
        } catch (RejectedExecutionException e) { // the I/O threads are stopping: the client is closing
            result.completeExceptionally(expired);
        }
    }

    /** Fails the call because its client closed. */
    void closed() {
        result.completeExceptionally(new NeptuneException(message.target() + ": client is closed"));
    }

    private void attempt() {
        if (result.isDone()) {
            return;
        }
        String service = message.service();
        OptionalInt partitions = client.yellowPage().partitions(service);
        if (partitions.isEmpty()) {
            result.completeExceptionally(new UnknownServiceException(service, "no node in the yellow page hosts it"));
            return;
        }
        if (message.partition() < 0 || message.partition() >= partitions.getAsInt()) {
            result.completeExceptionally(new UnknownPartitionException(service, message.partition(),
                    partitions.getAsInt()));
            return;
        }
        List<Replica> candidates = eligible();
        if (candidates.isEmpty()) {
            boolean recovering = client.yellowPage().replicas(service, message.partition()).stream()
                    .anyMatch(r -> r.role() == ReplicaRole.RECOVERING && !tried.contains(r.node()));
            if ((needsPrimary() || recovering) && retryLater()) {
                return; // no primary, or replicas still recovering (fail-over, restart): wait briefly
            }
            result.completeExceptionally(exhausted());
            return;
        }
        client.selector(policy).select(service, message.partition(), candidates).whenComplete((replica, error) -> {
            if (error != null) {
                result.completeExceptionally(DefaultNeptuneClient.unwrap(error));
            } else {
                send(replica);
            }
        });
    }

    private boolean needsPrimary() {
        return message.mode() == AccessMode.WRITE && level() != ConsistencyLevel.LEVEL_1;
    }

    private ConsistencyLevel level() {
        return client.yellowPage().consistency(message.service()).orElse(ConsistencyLevel.LEVEL_1);
    }

    /**
     * The replicas that may serve this call (DESIGN §6): any live one for level 1; the primary for
     * level 2 and 3 writes; non-recovering ones for reads, and at level 3 only those whose version
     * reaches both the staleness bound and the session's version, else the primary.
     */
    private List<Replica> eligible() {
        List<Replica> all = client.yellowPage().replicas(message.service(), message.partition());
        ConsistencyLevel level = level();
        Replica primary = null;
        for (Replica r : all) {
            if (r.role() == ReplicaRole.PRIMARY && (primary == null || r.epoch() > primary.epoch())) {
                primary = r;
            }
        }
        if (needsPrimary()) {
            return primary == null ? List.of() : List.of(primary);
        }
        List<Replica> live = new ArrayList<>(all.size());
        for (Replica r : all) {
            if (r.role() != ReplicaRole.RECOVERING && !tried.contains(r.node())) {
                live.add(r);
            }
        }
        if (level == ConsistencyLevel.LEVEL_3 && primary != null) {
            long bound = Math.max(primary.boundVersion(), message.minVersion());
            live.removeIf(r -> r.version() < bound);
            if (live.isEmpty() && !tried.contains(primary.node())) {
                live.add(primary);
            }
        }
        return live;
    }

    /** Tries again in a moment if the deadline allows; false if it does not. */
    private boolean retryLater() {
        long wait = TimeUnit.MILLISECONDS.toNanos(RETRY_DELAY_MILLIS);
        if (System.nanoTime() + wait >= deadlineNanos) {
            return false;
        }
        try {
            client.group().schedule(this::attempt, wait, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) { // the I/O threads are stopping: the client is closing
            return false;
        }
        return true;
    }

    private void send(Replica replica) {
        tried.add(replica.node());
        long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        if (remainingMillis < 1 || result.isDone()) {
            if (policy == BalancingPolicy.IDEAL) {
                client.tracker().end(replica.node(), message.service()); // counted when chosen, never sent
            }
            return; // the deadline timer answers
        }
        RequestMessage attempt = message.withRequestId(0, (int) Math.min(Integer.MAX_VALUE, remainingMillis));
        LocalEndpoint local = client.local();
        CompletableFuture<ResponseMessage> response = local != null && local.node().equals(replica.node())
                ? local.invoke(attempt)
                : client.pool().send(replica, attempt);
        if (policy == BalancingPolicy.IDEAL) { // the ideal selector counted it when it chose the replica
            response.whenComplete((r, e) -> client.tracker().end(replica.node(), message.service()));
        }
        response.whenComplete((r, e) -> onResponse(replica, r, e));
    }

    private void onResponse(Replica replica, @Nullable ResponseMessage response, @Nullable Throwable error) {
        if (result.isDone()) {
            return;
        }
        if (error != null || response == null) {
            CallFailure failure = error instanceof CallFailure f ? f
                    : new CallFailure(replica + ": " + error, true, error);
            retryOrFail(failure, !failure.maybeExecuted() || message.mode() == AccessMode.READ);
            return;
        }
        switch (response.status()) {
            case OK -> complete(replica, response);
            case NOT_HOSTED, UNAVAILABLE -> retryOrFail(new CallFailure(replica + ": " + response.errorMessage(), false), true);
            case NOT_PRIMARY -> {
                lastFailure = new CallFailure(replica + ": " + response.errorMessage(), false);
                tried.remove(replica.node());
                if (!retryLater()) {
                    result.completeExceptionally(exhausted());
                }
            }
            case STALE -> stale(new CallFailure(replica + ": " + response.errorMessage(), false));
            case ALREADY_APPLIED -> result.completeExceptionally(new AlreadyAppliedException(message.target(),
                    response.version()));
            case OVERLOADED -> retryOrFail(new OverloadedException(message.target(), replica.node(),
                    response.errorMessage()), true);
            case METHOD_FAILED -> result.completeExceptionally(new RemoteMethodException(message.target(),
                    replica.node(), response.errorMessage()));
            case UNKNOWN_SERVICE -> result.completeExceptionally(new UnknownServiceException(message.service(),
                    response.errorMessage()));
            case UNKNOWN_METHOD -> result.completeExceptionally(new UnknownMethodException(message.service(),
                    message.method(), response.errorMessage()));
            case UNKNOWN_PARTITION -> result.completeExceptionally(new UnknownPartitionException(message.service(),
                    message.partition(), client.yellowPage().partitions(message.service()).orElse(0)));
            case DEADLINE_EXCEEDED -> result.completeExceptionally(new DeadlineExceededException(message.target(),
                    Duration.ofNanos(timeoutNanos), "expired in the queue of " + replica.node()));
            case INVALID_REQUEST, PROTOCOL_ERROR -> result.completeExceptionally(new InvalidRequestException(
                    message.target() + " rejected by " + replica.node() + ": " + response.errorMessage()));
        }
    }

    /**
     * A replica could not serve a read at the version or freshness it needs (it did not run). Another
     * replica may; once the retries are spent, the call waits briefly and tries again until its
     * deadline: during a fail-over no replica of a majority-mode level-3 partition can vouch for its
     * freshness until the new primary confirms it, which takes about an election.
     */
    private void stale(CallFailure failure) {
        lastFailure = failure;
        if (retriesLeft > 0 && System.nanoTime() < deadlineNanos) {
            retriesLeft--;
            attempt();
        } else if (retryLater()) {
            tried.clear(); // every replica is a candidate again at the next attempt
        } else {
            result.completeExceptionally(exhausted());
        }
    }

    private void complete(Replica replica, ResponseMessage response) {
        T value;
        try {
            value = Json.mapper().readValue(response.payload(), responseType);
        } catch (Exception e) {
            result.completeExceptionally(new NeptuneException("cannot decode the response of " + message.target()
                    + " from " + replica.node() + " as " + responseType + ": " + e.getMessage(), e));
            return;
        }
        handle.observe(message.service(), message.partition(), response.version());
        client.countResponse(replica.node());
        result.complete(value);
    }

    private void retryOrFail(NeptuneException failure, boolean retryable) {
        lastFailure = failure;
        if (needsPrimary()) {
            // Level 2/3 writes carry a request id the primaries deduplicate on, so any failure may be
            // retried, at the primary of the moment, until the deadline (DESIGN §6.5).
            if (!retryLater()) {
                result.completeExceptionally(exhausted());
            }
        } else if (retryable && retriesLeft > 0 && System.nanoTime() < deadlineNanos) {
            retriesLeft--;
            attempt();
        } else if (!retryable) {
            result.completeExceptionally(new NeptuneException(message.target() + ": outcome unknown, not retried ("
                    + failure.getMessage() + ")", failure));
        } else {
            result.completeExceptionally(exhausted());
        }
    }

    private NeptuneException exhausted() {
        NeptuneException last = lastFailure;
        if (last instanceof OverloadedException) {
            return last;
        }
        String detail = tried.isEmpty() ? "none in the yellow page"
                : "tried " + tried + (last == null ? "" : "; last: " + last.getMessage());
        return new NoReplicaAvailableException(message.service(), message.partition(), detail, last);
    }
}
