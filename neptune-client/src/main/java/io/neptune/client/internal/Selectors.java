package io.neptune.client.internal;

import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.Poll;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/** The built-in load-balancing policies (DESIGN §5). */
public final class Selectors {
    private Selectors() {}

    /** A uniformly random candidate. */
    public static ReplicaSelector random() {
        return (service, partition, candidates) -> CompletableFuture.completedFuture(randomOf(candidates));
    }

    /** The candidates in turn, one counter per client. */
    public static ReplicaSelector roundRobin() {
        AtomicInteger next = new AtomicInteger();
        return (service, partition, candidates) ->
                CompletableFuture.completedFuture(candidates.get(Math.floorMod(next.getAndIncrement(), candidates.size())));
    }

    /** The candidate whose last announcement carried the lowest load; ties broken at random. */
    public static ReplicaSelector broadcast() {
        return (service, partition, candidates) -> CompletableFuture.completedFuture(leastLoaded(candidates, Replica::load));
    }

    /**
     * The candidate with the fewest outstanding requests according to {@code tracker}, counted as
     * one more there at once; the call ends that count when it completes.
     */
    public static ReplicaSelector ideal(LoadTracker tracker) {
        return (service, partition, candidates) -> CompletableFuture.completedFuture(tracker.claim(service, candidates));
    }

    static Replica randomOf(List<Replica> candidates) {
        return candidates.get(ThreadLocalRandom.current().nextInt(candidates.size()));
    }

    /** The least loaded replica by {@code load}; a random one among equals. */
    static Replica leastLoaded(List<Replica> candidates, ToIntFunction<Replica> load) {
        Replica best = null;
        int bestLoad = Integer.MAX_VALUE;
        int ties = 0;
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (Replica candidate : candidates) {
            int l = load.applyAsInt(candidate);
            if (l < bestLoad) {
                best = candidate;
                bestLoad = l;
                ties = 1;
            } else if (l == bestLoad && random.nextInt(++ties) == 0) {
                best = candidate; // reservoir sampling keeps the choice uniform among equals
            }
        }
        return best == null ? randomOf(candidates) : best;
    }

    /** A function that sends one load poll; the poller in production, a fake in tests. */
    @FunctionalInterface
    public interface Poller {
        /** Polls {@code replica} for its load of {@code service#partition}, and of {@code serviceClass} if named. */
        CompletableFuture<Poll.Reply> poll(Replica replica, String service, int partition, String serviceClass);
    }

    /**
     * Random polling: poll {@code pollSize} random candidates, wait at most {@code deadline}, and
     * pick the least loaded that answered; a random candidate if none did. With
     * {@code discardSlowPolls} off, it waits for every poll up to {@code maxWait} instead. A call
     * that names a service class is weighed by the load of its class on each replica (class-aware
     * random polling, dissertation section 4.3), others by the replica's whole load.
     *
     * <p>The wait is a timer on {@code timer}, cancelled as soon as the round is decided. Pass the
     * event loop that handles the poll replies: it is awake for the polls anyway, so the timer
     * costs no extra thread wake-up.
     */
    public static ReplicaSelector randomPolling(Poller poller, EventLoopGroup timer, int pollSize, Duration deadline,
            boolean discardSlowPolls, Duration maxWait) {
        long waitNanos = (discardSlowPolls ? deadline : maxWait).toNanos();
        return (ReplicaSelector.ClassAware) (service, partition, serviceClass, candidates) -> {
            if (candidates.size() == 1) {
                return CompletableFuture.completedFuture(candidates.get(0));
            }
            return poll(poller, timer, sample(candidates, pollSize), service, partition, serviceClass, waitNanos)
                    .thenApply(loads -> loads.isEmpty() ? randomOf(candidates)
                            : leastLoaded(List.copyOf(loads.keySet()), loads::get));
        };
    }

    /**
     * Polls every replica of {@code sample} for its load of {@code service#partition} (of
     * {@code serviceClass}, if named), waits at most {@code waitNanos} on {@code timer}, and completes
     * with the loads of those that answered in time; slow polls are cancelled, not awaited.
     */
    static CompletableFuture<Map<Replica, Integer>> poll(Poller poller, EventLoopGroup timer, List<Replica> sample,
            String service, int partition, String serviceClass, long waitNanos) {
        PollRound round = new PollRound(sample);
        ScheduledFuture<?> timeout = timer.schedule(round::finish, waitNanos, TimeUnit.NANOSECONDS);
        round.result.whenComplete((r, e) -> timeout.cancel(false));
        for (int i = 0; i < sample.size(); i++) {
            int index = i;
            CompletableFuture<Poll.Reply> poll;
            try {
                poll = poller.poll(sample.get(i), service, partition, serviceClass);
            } catch (RuntimeException e) {
                poll = CompletableFuture.failedFuture(e); // a poll that cannot be sent counts as unanswered
            }
            round.add(poll);
            poll.whenComplete((reply, error) -> round.answer(index, reply));
        }
        return round.result;
    }

    static List<Replica> sample(List<Replica> candidates, int size) {
        if (size >= candidates.size()) {
            return candidates;
        }
        List<Replica> copy = new ArrayList<>(candidates);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        for (int i = 0; i < size; i++) {
            java.util.Collections.swap(copy, i, i + random.nextInt(copy.size() - i));
        }
        return copy.subList(0, size);
    }

    /** One poll round: completes with the loads that answered when all answered or the deadline passed. */
    private static final class PollRound {
        final CompletableFuture<Map<Replica, Integer>> result = new CompletableFuture<>();
        final List<Replica> sample;
        final Poll.@Nullable Reply[] replies;
        final AtomicInteger remaining;
        final java.util.concurrent.atomic.AtomicBoolean finished = new java.util.concurrent.atomic.AtomicBoolean();
        final List<CompletableFuture<Poll.Reply>> polls = new java.util.concurrent.CopyOnWriteArrayList<>();

        PollRound(List<Replica> sample) {
            this.sample = sample;
            this.replies = new Poll.Reply[sample.size()];
            this.remaining = new AtomicInteger(sample.size());
        }

        /** Tracks {@code poll}; one sent after the round was decided (the sender stalled past the deadline) is dropped. */
        void add(CompletableFuture<Poll.Reply> poll) {
            polls.add(poll);
            if (finished.get()) {
                poll.cancel(false); // finish() may have run before it was added: it would stay pending for good
            }
        }

        void answer(int index, Poll.@Nullable Reply reply) {
            synchronized (this) {
                replies[index] = reply;
            }
            if (remaining.decrementAndGet() == 0) {
                finish();
            }
        }

        void finish() {
            if (!finished.compareAndSet(false, true)) {
                return;
            }
            Map<Replica, Integer> loads = new java.util.LinkedHashMap<>();
            synchronized (this) {
                for (int i = 0; i < replies.length; i++) {
                    Poll.Reply reply = replies[i];
                    if (reply != null && reply.load() >= 0) {
                        loads.put(sample.get(i), reply.classLoad()); // the whole load, unless the call named a class
                    }
                }
            }
            polls.forEach(poll -> poll.cancel(false)); // slow polls are discarded, not awaited
            result.complete(loads);
        }
    }
}
