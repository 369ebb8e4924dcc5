package io.neptune.client.internal;

import io.neptune.core.AccessMode;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestMessage;
import io.netty.util.Timeout;
import io.netty.util.TimerTask;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;

/**
 * A read that is sent to a second replica when the first has not answered within the service's recent
 * 95th-percentile latency ({@link ReadLatencies}), the first answer winning and the other leg cancelled
 * (Dean and Barroso, "The Tail at Scale", 2013; gRPC's hedging, proposal A6). Each leg is a {@link Call}
 * of its own with the call's deadline and retries; the second leaves out the replica the first awaits.
 * Only reads of level-1 and level-2 services are hedged ({@link #applies}): a read runs no method twice
 * in any way that matters, and both legs carry the session's version, so a level-2 read still sees the
 * session's writes. Level-3 reads are not: their candidates are the replicas at the primary's bound,
 * often the primary alone, where a second request only adds load. A hedge is one more attempt, so it
 * is sent only while the client's {@link RetryBudget} allows a retry.
 *
 * <p>Thread-safety: the legs complete on I/O threads and the hedging delay fires on the deadline wheel's
 * thread; the legs' bookkeeping is guarded by {@code this}.
 */
final class HedgedRead<T> implements TimerTask {
    private final DefaultNeptuneClient client;
    private final RequestMessage message;
    private final LongFunction<Call<T>> legs;
    private final long deadlineNanos;
    private final Result result = new Result();
    private long startedNanos;
    private @Nullable Call<T> first;
    private @Nullable CompletableFuture<T> firstResult;
    private @Nullable CompletableFuture<T> secondResult;
    private long secondStartedNanos;
    /** Legs started and not yet ended. */
    private int running;
    private @Nullable Throwable firstFailure;
    private volatile @Nullable Timeout timer;

    /** A read of {@code message} whose legs {@code legs} makes, given the time they have. */
    HedgedRead(DefaultNeptuneClient client, RequestMessage message, long timeoutNanos, LongFunction<Call<T>> legs) {
        this.client = client;
        this.message = message;
        this.legs = legs;
        this.deadlineNanos = System.nanoTime() + timeoutNanos;
    }

    /** Whether a call of {@code message} is hedged by {@code client}: hedging is on, and it is a level-1 or -2 read. */
    static boolean applies(DefaultNeptuneClient client, RequestMessage message) {
        if (!client.config().hedgedReads() || message.mode() != AccessMode.READ) {
            return false;
        }
        ConsistencyLevel level = client.yellowPage().consistency(message.service()).orElse(ConsistencyLevel.LEVEL_1);
        return level == ConsistencyLevel.LEVEL_1 || level == ConsistencyLevel.LEVEL_2;
    }

    /** Sends the first leg, and arms the hedge once the service's percentile is known. */
    CompletableFuture<T> start() {
        startedNanos = System.nanoTime();
        Call<T> call = legs.apply(deadlineNanos - startedNanos).uncounted();
        CompletableFuture<T> leg;
        synchronized (this) {
            first = call;
            running = 1;
            leg = call.start();
            firstResult = leg;
        }
        leg.whenComplete((value, failure) -> ended(value, failure, false));
        long delay = client.readLatencies().p95Nanos(message.service());
        if (delay >= 0 && !result.isDone() && startedNanos + delay < deadlineNanos) {
            try {
                timer = client.deadlines().newTimeout(this, delay, TimeUnit.NANOSECONDS);
            } catch (IllegalStateException e) { // the wheel stopped: the client is closing, and the first leg ends
                return result;
            }
        }
        return result;
    }

    /** The hedging delay passed: the hedge is sent from an I/O thread, not the wheel's one thread. */
    @Override
    public void run(Timeout timeout) {
        try {
            client.group().execute(this::hedge);
        } catch (RejectedExecutionException e) { // the client is closing
            timer = null;
        }
    }

    private void hedge() {
        Call<T> second;
        synchronized (this) {
            Call<T> call = first;
            NodeId busy = call == null ? null : call.awaiting();
            long left = deadlineNanos - System.nanoTime();
            // between two attempts, the first leg is trying another replica itself
            if (result.isDone() || running != 1 || busy == null || left <= 0 || !client.retryBudget().allowsRetry()
                    || client.yellowPage().replicas(message.service(), message.partition()).size() < 2) {
                return;
            }
            second = legs.apply(left).uncounted().avoiding(busy);
            running = 2;
            secondStartedNanos = System.nanoTime();
            client.metrics().hedged(message.service(), false);
            secondResult = second.start();
        }
        secondResult.whenComplete((value, failure) -> ended(value, failure, true));
    }

    /** A leg ended: its answer wins if it is the first; the read fails once both legs failed. */
    private void ended(T value, @Nullable Throwable failure, boolean hedge) {
        if (failure == null) {
            long latency = System.nanoTime() - (hedge ? secondStartedNanos : startedNanos);
            if (result.complete(value)) {
                client.readLatencies().record(message.service(), latency);
                if (hedge) {
                    client.metrics().hedged(message.service(), true);
                }
            }
            return;
        }
        Throwable reported;
        synchronized (this) {
            running--;
            if (!hedge) {
                firstFailure = failure;
            }
            if (running > 0) {
                return; // the other leg may still answer
            }
            reported = firstFailure != null ? firstFailure : failure;
        }
        result.completeExceptionally(DefaultNeptuneClient.unwrap(reported));
    }

    /**
     * The read's future: however it ends, the hedge timer and the other leg are cancelled, and the read
     * is counted once.
     */
    final class Result extends EndingFuture<T> {
        @Override
        void ended(@Nullable Throwable failure) {
            Timeout armed = timer;
            if (armed != null) {
                armed.cancel();
            }
            CompletableFuture<T> one;
            CompletableFuture<T> two;
            synchronized (HedgedRead.this) {
                one = firstResult;
                two = secondResult;
            }
            cancelLoser(one);
            cancelLoser(two);
            client.metrics().callEnded(message.service(), message.method(), failure, System.nanoTime() - startedNanos);
        }

        private void cancelLoser(@Nullable CompletableFuture<T> leg) {
            if (leg != null && !leg.isDone()) {
                leg.cancel(false); // forgotten by its connection, its call ended
            }
        }
    }
}
