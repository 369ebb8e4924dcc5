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
import io.neptune.core.NoMajorityException;
import io.neptune.core.NodeId;
import io.neptune.core.NotPrimaryException;
import io.neptune.core.OutcomeUnknownException;
import io.neptune.core.OverloadedException;
import io.neptune.core.PermissionDeniedException;
import io.neptune.core.RemoteMethodException;
import io.neptune.core.ReplicaRole;
import io.neptune.core.RequestDroppedException;
import io.neptune.core.UndecodableResponseException;
import io.neptune.core.UnknownMethodException;
import io.neptune.core.UnknownPartitionException;
import io.neptune.core.UnknownServiceClassException;
import io.neptune.core.UnknownServiceException;
import io.neptune.core.internal.json.JsonCodec;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * One call from start to result: candidate lookup, replica choice, send, and retries. Reads retry
 * on another replica; writes retry with their request id, which the replicas run at most once, so
 * a write whose attempt may have run can be retried too. A write that fails after any attempt may
 * have run ends in {@link OutcomeUnknownException}, never in an error that claims it did not run.
 *
 * <p>Thread-safety: attempts run one after another, each started from the completion of the
 * previous one, so the mutable fields are handed over with happens-before by the futures.
 */
final class Call<T> implements TimerTask {
    /** How often one call follows a NOT_PRIMARY answer's named primary before it waits for the yellow page. */
    static final int MAX_REDIRECTS = 3;

    private final DefaultNeptuneClient client;
    private final NeptuneHandle handle;
    private final RequestMessage message;
    private final JavaType responseType;
    private final BalancingPolicy policy;
    private final long timeoutNanos;
    private final long deadlineNanos;
    /** Sends this write again with its request id; null for reads. */
    private final @Nullable Supplier<CompletableFuture<Object>> retry;
    private final Result result = new Result();
    /** The call's deadline, once armed; cancelled when the call ends. */
    private volatile @Nullable Timeout deadline;
    private long startedNanos;
    /**
     * The nodes attempts went to, in order: replaced (never changed) by whichever thread sends an
     * attempt, read by the deadline's message. Most calls make one attempt: one small list, where a
     * concurrent set cost a map and its table per call.
     */
    private volatile List<NodeId> tried = List.of();
    private int retriesLeft;
    private int redirects;
    /** The waits so far before trying again: the next one's number in the {@link RetryBackoff} schedule. */
    private int waits;
    /** Whether the call counts in {@code neptune.client.calls}: not when it is one leg of a {@link HedgedRead}. */
    private boolean counted = true;
    /**
     * A replica refused an attempt as catching up or not fresh enough (STALE): once none is left to
     * try, the call waits briefly and offers them all again rather than fail.
     */
    private boolean refusedAsStale;
    /** Why the latest attempt failed; read by the deadline's thread. */
    private volatile @Nullable NeptuneException lastFailure;
    /** The first failure of a write attempt that may have run it; read by the deadline's thread. */
    private volatile @Nullable NeptuneException inDoubt;
    /** Where the current attempt went until it is answered; read by the deadline's thread. */
    private volatile @Nullable NodeId awaiting;
    /**
     * The load-aware estimate that counts the current attempt in flight (load-aware and p2c), and
     * when the attempt was sent; handed from {@link #send} to {@link #onResponse} by the response future.
     */
    private LoadAware.@Nullable Estimate inFlight;
    private long sentNanos;
    /** The current attempt's response until it is answered; cancelled when the call ends, which frees it. */
    private volatile @Nullable CompletableFuture<ResponseMessage> outstanding;
    /**
     * Set first by whatever ends the call (deadline, client closed, caller gone, completion), before it
     * reads {@link #awaiting}; {@link #send} sets {@code awaiting} before it reads this. So either the
     * ender sees the attempt (and reports a write as of unknown outcome) or the attempt is not sent.
     */
    private volatile boolean ending;

    Call(DefaultNeptuneClient client, NeptuneHandle handle, RequestMessage message, JavaType responseType,
            BalancingPolicy policy, long timeoutNanos, @Nullable Supplier<CompletableFuture<Object>> retry) {
        this.client = client;
        this.handle = handle;
        this.message = message;
        this.responseType = responseType;
        this.policy = policy;
        this.timeoutNanos = timeoutNanos;
        this.deadlineNanos = System.nanoTime() + timeoutNanos;
        this.retriesLeft = client.config().retries();
        this.retry = retry;
    }

    /** Makes the call leave {@code node} out of its candidates: a hedge, sent while {@code node} has the read. */
    Call<T> avoiding(NodeId node) {
        tried = List.of(node);
        return this;
    }

    /** Makes the call count nowhere: it is one leg of a {@link HedgedRead}, which counts the read once. */
    Call<T> uncounted() {
        counted = false;
        return this;
    }

    /** Where the current attempt went, until it is answered; null between attempts. */
    @Nullable NodeId awaiting() {
        return awaiting;
    }

    CompletableFuture<T> start() {
        startedNanos = System.nanoTime();
        try {
            deadline = client.deadlines().newTimeout(this, timeoutNanos, TimeUnit.NANOSECONDS);
        } catch (IllegalStateException e) { // the wheel stopped: the client was closed meanwhile
            closed();
            return result;
        }
        attempt();
        return result;
    }

    /**
     * The call's future: however it ends (answered, failed, past its deadline, or completed or
     * cancelled by the caller), the deadline is cancelled and the call counted in the metrics.
     */
    final class Result extends EndingFuture<T> {
        /**
         * Ends the call because its caller stopped waiting ({@code why}): no attempt follows. A write that
         * an attempt may have run (one is out, or one failed in doubt) ends in {@link OutcomeUnknownException},
         * never in an error that says it did not run.
         */
        void abandon(String why, Throwable cause) {
            Call.this.abandon(why, cause);
        }

        @Override
        void ended(@Nullable Throwable failure) {
            Call.this.ended(failure);
        }
    }

    private void ended(@Nullable Throwable failure) {
        ending = true;
        Timeout timer = deadline;
        if (timer != null) {
            timer.cancel();
        }
        CompletableFuture<ResponseMessage> out = outstanding;
        if (out != null && !out.isDone()) {
            // forgotten by its connection, and its in-flight count ended, now rather than when (if ever) the node answers
            out.cancel(false);
        }
        if (counted) {
            client.metrics().callEnded(message.service(), message.method(), failure, System.nanoTime() - startedNanos);
        }
    }

    /** Who the call tried and why the last failed attempt did: what a deadline's message ends with. */
    private String whatWasTried(@Nullable NeptuneException last) {
        List<String> parts = new ArrayList<>();
        if (!tried.isEmpty()) {
            parts.add("last tried " + tried);
        }
        if (last != null) {
            parts.add("last: " + last.getMessage());
        }
        return parts.isEmpty() ? "no replica answered" : String.join("; ", parts);
    }

    /**
     * The deadline passed. A write whose attempt is still out may run after this, so it is of
     * unknown outcome. The failure is completed on an I/O thread, not on the wheel's one thread: the
     * caller's callbacks run where the future completes, and one that blocked or called again would
     * hold up every other deadline.
     */
    @Override
    public void run(Timeout timeout) {
        ending = true;
        NodeId out = awaiting;
        NeptuneException last = lastFailure;
        DeadlineExceededException expired = new DeadlineExceededException(message.target(),
                Duration.ofNanos(timeoutNanos), whatWasTried(last));
        if (last != null) {
            expired.initCause(last);
        }
        NeptuneException failure = message.mode() == AccessMode.WRITE && out != null && inDoubt == null
                ? outcomeUnknown("the deadline passed while " + out + " had the write and had not answered", expired)
                // between retries of a typed refusal (no majority, overloaded): that is why it never ran
                : out == null && (last instanceof NoMajorityException || last instanceof OverloadedException) ? last
                : expired;
        try {
            client.group().execute(() -> fail(failure));
        } catch (RejectedExecutionException e) { // the I/O threads are stopping: the client is closing
            fail(failure);
        }
    }

    /** Fails the call because its client closed. */
    void closed() {
        ending = true;
        NodeId out = awaiting;
        if (out != null) {
            doubt(new NeptuneException(out + " had the write and had not answered"));
        }
        fail(new NeptuneException(message.target() + ": client is closed"));
    }

    /**
     * Ends the call with {@code failure}, or, for a write an earlier attempt may have run, with an
     * {@link OutcomeUnknownException} caused by it. Two answers are final whatever came before: the
     * write ran exactly once ({@link AlreadyAppliedException}), or ran and threw at a replica that had
     * no record of the earlier attempt ({@link RemoteMethodException}).
     */
    private void fail(NeptuneException failure) {
        NeptuneException doubt = inDoubt;
        if (doubt != null && message.mode() == AccessMode.WRITE && !(failure instanceof OutcomeUnknownException
                || failure instanceof AlreadyAppliedException || failure instanceof RemoteMethodException)) {
            failure = outcomeUnknown("an attempt may have run it: " + doubt.getMessage() + "; then: "
                    + failure.getMessage(), failure);
        }
        result.completeExceptionally(failure);
    }

    /** See {@link Result#abandon}. */
    private void abandon(String why, Throwable cause) {
        ending = true;
        NodeId out = awaiting;
        if (out != null) {
            doubt(new NeptuneException(out + " had the write and had not answered"));
        }
        fail(new NeptuneException(message.target() + ": " + why, cause));
    }

    private OutcomeUnknownException outcomeUnknown(String detail, NeptuneException cause) {
        return new OutcomeUnknownException(message.target(), message.id().toString(), detail, cause, retry);
    }

    private void attempt() {
        if (result.isDone()) {
            return;
        }
        String service = message.service();
        OptionalInt partitions = client.yellowPage().partitions(service);
        if (partitions.isEmpty()) {
            fail(new UnknownServiceException(service, "no node in the yellow page hosts it"));
            return;
        }
        if (message.partition() < 0 || message.partition() >= partitions.getAsInt()) {
            fail(new UnknownPartitionException(service, message.partition(), partitions.getAsInt()));
            return;
        }
        List<Replica> candidates = Candidates.eligible(client.yellowPage().replicas(service, message.partition()),
                level(), needsPrimary(), message.minVersion(), tried);
        if (candidates.isEmpty()) {
            if (refusedAsStale && retryFromTheStart()) {
                return; // each replica tried refused as stale: one may have caught up in a moment
            }
            if (mayServeSoon(client.yellowPage().replicas(service, message.partition())) && retryLater()) {
                return; // no primary, or replicas still recovering or lagging (fail-over, restart): wait briefly
            }
            fail(exhausted());
            return;
        }
        CompletableFuture<Replica> chosen = client.selector(policy).select(service, message.partition(),
                message.serviceClass(), candidates);
        if (chosen.isDone() && !chosen.isCompletedExceptionally()) { // chosen at once (no poll): no callback
            send(chosen.join(), policy == BalancingPolicy.IDEAL);
            return;
        }
        chosen.whenComplete((replica, error) -> {
            if (error != null) {
                fail(DefaultNeptuneClient.unwrap(error));
            } else {
                send(replica, policy == BalancingPolicy.IDEAL);
            }
        });
    }

    /**
     * Whether a replica of {@code all} may serve this call in a moment although none may now: a call that
     * needs a primary gets one from the fail-over; a replica not tried yet that is recovering, or at level
     * 3 lags behind the primary's staleness bound, catches up (or, the primary gone, is elected).
     */
    private boolean mayServeSoon(List<Replica> all) {
        if (needsPrimary()) {
            return true;
        }
        boolean levelThree = level() == ConsistencyLevel.LEVEL_3;
        return all.stream().anyMatch(r -> !tried.contains(r.node())
                && (r.role() == ReplicaRole.RECOVERING || levelThree));
    }

    private boolean needsPrimary() {
        return message.mode() == AccessMode.WRITE && level() != ConsistencyLevel.LEVEL_1;
    }

    private ConsistencyLevel level() {
        return client.yellowPage().consistency(message.service()).orElse(ConsistencyLevel.LEVEL_1);
    }

    /**
     * Tries again after the next wait of the client's {@link RetryBackoff} (exponential, jittered); false if
     * the attempt after it would not start before the deadline.
     */
    private boolean retryLater() {
        long backoff = client.backoff().delayNanos(waits, ThreadLocalRandom.current()::nextDouble);
        long wait = RetryBackoff.withinDeadline(backoff, deadlineNanos - System.nanoTime());
        if (wait < 0) {
            return false;
        }
        waits++;
        client.metrics().retried(message.service());
        try {
            client.group().schedule(this::attempt, wait, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException e) { // the I/O threads are stopping: the client is closing
            return false;
        }
        return true;
    }

    /** Sends an attempt to {@code replica}; {@code counted}: the ideal selector counted it when it chose it. */
    private void send(Replica replica, boolean counted) {
        addTried(replica.node());
        long remainingMillis = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
        awaiting = replica.node();   // before reading ending: see there
        if (remainingMillis < 1 || ending || result.isDone()) {
            awaiting = null;
            if (counted) {
                client.tracker().end(replica.node(), message.service()); // counted when chosen, never sent
            }
            return; // whatever ended the call answers
        }
        int timeoutMillis = (int) Math.min(Integer.MAX_VALUE, remainingMillis);
        LocalEndpoint local = client.local();
        CompletableFuture<ResponseMessage> response = local != null && local.node().equals(replica.node())
                ? local.invoke(message.withRequestId(0, timeoutMillis))
                : client.pool().send(replica, message, timeoutMillis); // numbers its own copy
        if (counted) {
            response.whenComplete((r, e) -> client.tracker().end(replica.node(), message.service()));
        }
        if (policy == BalancingPolicy.LOAD_AWARE || policy == BalancingPolicy.P2C) { // both count calls in flight
            inFlight = client.loadAware().sent(replica.node(), message.service(), message.serviceClass());
            sentNanos = System.nanoTime();
        }
        response.whenComplete((r, e) -> onResponse(replica, r, e));
        outstanding = response;
        if (ending) {   // the call ended meanwhile, and its end may not have seen this response
            response.cancel(false);
        }
    }

    private void onResponse(Replica replica, @Nullable ResponseMessage response, @Nullable Throwable error) {
        LoadAware.Estimate estimate = inFlight;
        if (estimate != null) { // here rather than in a callback of its own, which cost a lambda and a stage per call
            inFlight = null;
            client.loadAware().ended(estimate, System.nanoTime() - sentNanos,
                    LoadAware.loadLeft(response, message.mode()));
        }
        awaiting = null;
        if (result.isDone()) {
            return;
        }
        if (error != null || response == null) {
            CallFailure failure = error instanceof CallFailure f ? f
                    : new CallFailure(replica + ": " + error, true, error);
            if (failure.maybeExecuted()) {
                doubt(failure);
            }
            retryOrFail(failure);
            return;
        }
        switch (response.status()) {
            case OK -> {
                client.retryBudget().succeeded();
                complete(replica, response);
            }
            case NOT_HOSTED, UNAVAILABLE -> retryOrFail(new CallFailure(replica + ": " + response.errorMessage(), false));
            case IN_DOUBT -> {
                CallFailure failure = new CallFailure(replica + ": " + response.errorMessage(), true);
                doubt(failure);
                retryOrFail(failure);
            }
            case NO_MAJORITY -> retryOrFail(new NoMajorityException(message.target(), replica.node(),
                    response.errorMessage()));
            case NOT_PRIMARY -> notPrimary(replica, response);
            case STALE -> stale(new CallFailure(replica + ": " + response.errorMessage(), false));
            case ALREADY_APPLIED -> {
                // it ran: at level 3 the session's next read must see it
                handle.observe(message.service(), message.partition(), response.version());
                fail(new AlreadyAppliedException(message.target(), response.version()));
            }
            case OVERLOADED -> retryOrFail(new OverloadedException(message.target(), replica.node(),
                    response.errorMessage()));
            case METHOD_FAILED -> fail(new RemoteMethodException(message.target(), replica.node(),
                    response.errorMessage()));
            case UNKNOWN_SERVICE -> fail(new UnknownServiceException(message.service(), response.errorMessage()));
            case UNKNOWN_METHOD -> fail(new UnknownMethodException(message.service(), message.method(),
                    response.errorMessage()));
            case UNKNOWN_PARTITION -> fail(new UnknownPartitionException(message.service(), message.partition(),
                    client.yellowPage().partitions(message.service()).orElse(0)));
            case DEADLINE_EXCEEDED -> fail(new DeadlineExceededException(message.target(),
                    Duration.ofNanos(timeoutNanos), "expired in the queue of " + replica.node()));
            case DROPPED -> fail(new RequestDroppedException(message.target(), message.serviceClass(), replica.node(),
                    response.errorMessage()));
            case UNKNOWN_CLASS -> fail(new UnknownServiceClassException(message.serviceClass(), replica.node()
                    + " declares no such class: " + response.errorMessage()));
            case INVALID_REQUEST, PROTOCOL_ERROR -> fail(new InvalidRequestException(
                    message.target() + " rejected by " + replica.node() + ": " + response.errorMessage()));
            case PERMISSION_DENIED -> fail(new PermissionDeniedException(message.target(), replica.node(),
                    response.errorMessage()));
        }
    }

    /** Records that a write attempt may have run (reads have no effect to doubt). */
    private void doubt(NeptuneException failure) {
        if (message.mode() == AccessMode.WRITE && inDoubt == null) {
            inDoubt = failure;
        }
    }

    /**
     * A level-2/3 write reached a replica that is not the primary (it did not run there). When that
     * replica names the primary, the write goes there at once, even while the yellow page still lists
     * the old one (a fail-over is announced up to an announce interval late); else it waits briefly for
     * the yellow page to name one.
     */
    private void notPrimary(Replica replica, ResponseMessage response) {
        NodeId named = response.suggestedPrimary();
        lastFailure = new NotPrimaryException(message.target(), replica.node(), named, response.errorMessage());
        removeTried(replica.node());
        Replica next = named == null || named.equals(replica.node()) || redirects >= MAX_REDIRECTS ? null
                : client.yellowPage().replicas(message.service(), message.partition()).stream()
                        .filter(r -> r.node().equals(named)).findFirst().orElse(null);
        if (next != null) {
            redirects++;
            send(next, false);
        } else if (!retryLater()) {
            fail(exhausted());
        }
    }

    /**
     * A replica could not serve a read at the version or freshness it needs (it did not run). Another
     * replica may; once the retries are spent or every replica refused, the call waits briefly and
     * tries again until its deadline. A restarted replica catches up in a moment, and during a
     * fail-over no replica of a majority-mode level-3 partition can vouch for its freshness until the
     * new primary confirms it, which takes about an election.
     */
    private void stale(CallFailure failure) {
        lastFailure = failure;
        refusedAsStale = true;
        if (retriesLeft > 0 && System.nanoTime() < deadlineNanos) {
            retriesLeft--;
            attempt();
        } else if (!retryFromTheStart()) {
            fail(exhausted());
        }
    }

    /**
     * Tries again in a moment with every replica a candidate again, if the deadline allows; false if it
     * does not, leaving the list of replicas tried for the failure's message.
     */
    private boolean retryFromTheStart() {
        List<NodeId> before = tried;
        tried = List.of(); // before the next attempt is scheduled: it reads the list on another thread
        if (retryLater()) {
            return true;
        }
        tried = before;
        return false;
    }

    private void complete(Replica replica, ResponseMessage response) {
        handle.observe(message.service(), message.partition(), response.version());   // it ran, decoded or not
        T value;
        try {
            value = JsonCodec.decodeReply(response.payload(), responseType);
        } catch (Exception e) {
            // final: the call ran (a write exactly once), so neither a retry nor "outcome unknown" is the truth
            result.completeExceptionally(new UndecodableResponseException(message.target(), replica.node(),
                    message.mode() == AccessMode.WRITE, response.version(), responseType.toString(), e));
            return;
        }
        client.countResponse(replica.node());
        result.complete(value);
    }

    /**
     * Tries again after {@code failure}. Writes carry a request id every replica deduplicates on (the
     * primary's log at levels 2 and 3; each replica's log at level 1, where a copy that ran elsewhere
     * too is logged as a repeat), so even an attempt that may have run can be retried (DESIGN §6.5):
     * level-2/3 writes at the primary of the moment until the deadline, the rest on another replica
     * while retries are left, and a read that a replica refused as catching up until the deadline.
     */
    private void retryOrFail(NeptuneException failure) {
        lastFailure = failure;
        RetryBudget budget = client.retryBudget();
        budget.failed();
        if (!budget.allowsRetry() && wouldRetry()) {
            client.metrics().throttled(message.service());
            fail(Exhaustion.budgetSpent(message, tried, failure));
        } else if (needsPrimary()) {
            if (!retryLater()) {
                fail(exhausted());
            }
        } else if (retriesLeft > 0 && System.nanoTime() < deadlineNanos) {
            retriesLeft--;
            client.metrics().retried(message.service());
            attempt();
        } else if (!(refusedAsStale && retryFromTheStart())) { // a replica catching up may serve it in a moment
            fail(exhausted());
        }
    }

    /**
     * Whether {@link #retryOrFail} would try again rather than fail: what the retry budget may hold
     * back. The budget counts only failures that tell of a replica in trouble (the ones that reach
     * {@code retryOrFail}); a STALE or NOT_PRIMARY answer, and a wait for a primary or a replica that
     * catches up, neither cost a token nor are held back: those are the cluster changing hands, which
     * backoff alone paces, and reads waiting for a restarted replica must keep waiting.
     */
    private boolean wouldRetry() {
        return needsPrimary() || retriesLeft > 0 || refusedAsStale;
    }

    private void addTried(NodeId node) {
        List<NodeId> before = tried;
        if (before.isEmpty()) {
            tried = List.of(node);
        } else if (!before.contains(node)) {
            List<NodeId> after = new ArrayList<>(before.size() + 1);
            after.addAll(before);
            after.add(node);
            tried = List.copyOf(after);
        }
    }

    private void removeTried(NodeId node) {
        List<NodeId> before = tried;
        if (before.contains(node)) {
            tried = before.stream().filter(n -> !n.equals(node)).toList();
        }
    }

    private NeptuneException exhausted() {
        return Exhaustion.noReplicaLeft(message, tried, lastFailure);
    }
}
