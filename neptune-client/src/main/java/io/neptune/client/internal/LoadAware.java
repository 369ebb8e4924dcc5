package io.neptune.client.internal;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The {@code load-aware} policy: random polling that polls only when what it knows is stale.
 *
 * <p>Every response carries the serving node's load of the service (wire flag {@code 0x01} of
 * RESPONSE; a read's answer still counts the read, which {@link #loadLeft} takes off), and every
 * poll reply does too; the client keeps the latest report per replica with the
 * time it arrived, and counts its own calls in flight to each replica. A replica's estimate is its
 * last report plus the calls this client sent it since (the report already counts those in flight
 * then). A call weighs every candidate whose report is fresh by its estimate, samples random
 * candidates like random polling and polls only those of the sample whose report is stale (in
 * parallel, within {@code poll-deadline}); it picks the lowest estimate among all it knows, ties at
 * random.
 *
 * <p>How many it samples depends on what a poll costs beside the call: {@code poll-size}, or more
 * when the service's response time is long beside a poll round trip (both exponentially weighted
 * means of what this client measures): as many as there are poll rounds in a response time, up
 * to every candidate. Polls cost about the same whatever the service does (and a call waits for
 * one round however many it sends), while the queueing that a better-informed choice avoids grows
 * with the service time: a call that takes 100 µs samples {@code poll-size}, one that takes 20 ms
 * weighs every replica it may have to wait behind (16 replicas at 90% load: poll-3 queues about
 * 1.4 times as long as a choice that knows every queue).
 *
 * <p>How long a report stays fresh adapts per service. The bound is a number of the service's
 * response times (an exponentially weighted mean of what this client measures), clamped to
 * [{@value #MIN_BOUND_MICROS} µs or a poll round if longer, {@value #MAX_BOUND_MILLIS} ms]; the number starts at
 * {@value #INITIAL_FACTOR} and follows how well the estimates predict: each new report of a replica
 * that its estimate predicted exactly (within one request while a poll round takes more than a
 * {@value #CHEAP_POLLS}th of a response time) lengthens the bound by a tenth, each report that
 * differs more halves it (down to {@value #MIN_FACTOR} of a response time). An idle or steady cluster is thus
 * hardly polled, and one whose load moves is polled about as often as it moves. (Within one
 * request was once enough to lengthen it; at 90% load queues are short, so nearly every report
 * was within one of any estimate, and reports were trusted for several service times.)
 *
 * <p>Cost per call: a call that needs no poll allocates nothing here but its completed future, and
 * touches one {@link Estimate} per candidate (found without allocating a key); the caller keeps the
 * {@link Estimate} it was sent with ({@link #sent}) and hands it back when the call ends
 * ({@link #ended}), so the end of a call needs no lookup either.
 *
 * <p>Thread-safety: thread-safe; reports and counts are per-replica atomics and volatiles, read
 * without locks (an estimate may be a report behind, which is what staleness bounds anyway).
 */
final class LoadAware implements ReplicaSelector.ClassAware {
    /** The shortest freshness bound, in microseconds. */
    static final long MIN_BOUND_MICROS = 50;
    /** The longest freshness bound, in milliseconds: about an announcement interval. */
    static final long MAX_BOUND_MILLIS = 1_000;
    /** The bound's starting number of response times. */
    static final double INITIAL_FACTOR = 1;
    /** The fewest response times the bound may shrink to. */
    static final double MIN_FACTOR = 0.05;
    /** The most response times the bound may grow to. */
    static final double MAX_FACTOR = 10_000;
    /** Polls are cheap when this many poll rounds fit in a response time. */
    static final int CHEAP_POLLS = 10;
    /** Weight of a new response time (or poll round) in its mean. */
    private static final double EWMA_WEIGHT = 0.1;
    private static final long MIN_BOUND_NANOS = TimeUnit.MICROSECONDS.toNanos(MIN_BOUND_MICROS);
    private static final long MAX_BOUND_NANOS = TimeUnit.MILLISECONDS.toNanos(MAX_BOUND_MILLIS);

    private final Selectors.Poller poller;
    private final EventLoopGroup timer;
    private final int sampleSize;
    private final long pollWaitNanos;
    private final LongSupplier clock;
    /** Mean time from sending a call's polls to deciding, in nanoseconds; -1 before the first poll. */
    private volatile double pollRoundNanos = -1;
    /** Per service: its freshness bound and, per service class, its replicas' estimates. */
    private final Map<String, ServiceLoads> services = new ConcurrentHashMap<>();

    /** What this client knows of one service's replicas. */
    private static final class ServiceLoads {
        final Freshness freshness = new Freshness();
        /** Per service class, per node. */
        final Map<String, Map<NodeId, Estimate>> classes = new ConcurrentHashMap<>();

        Map<NodeId, Estimate> of(String serviceClass) {
            Map<NodeId, Estimate> replicas = classes.get(serviceClass);
            return replicas != null ? replicas : classes.computeIfAbsent(serviceClass, c -> new ConcurrentHashMap<>());
        }
    }

    /**
     * What this client knows of one replica's load of one service class: the handle a call keeps
     * from {@link #sent} to {@link #ended}.
     */
    static final class Estimate {
        private static final AtomicIntegerFieldUpdater<Estimate> INFLIGHT =
                AtomicIntegerFieldUpdater.newUpdater(Estimate.class, "inflight");

        final Freshness freshness;
        /** Calls this client sent and has no answer to. */
        private volatile int inflight;
        /**
         * The last report in the high 32 bits (-1 before the first) and {@link #inflight} when it
         * arrived in the low 32 (the report counts those): one word, so that a reader never pairs a
         * report with another report's count.
         */
        private volatile long report = -1L << 32;
        /** When the report arrived, by the clock. */
        private volatile long reportedAt;

        Estimate(Freshness freshness) {
            this.freshness = freshness;
        }

        int inflight() {
            return inflight;
        }

        /** The report plus the calls sent since; -1 without a report. */
        int value() {
            long word = report;
            int reported = (int) (word >> 32);
            return reported < 0 ? -1 : reported + Math.max(0, inflight - (int) word);
        }

        /** {@link #value()} if the report arrived within {@code boundNanos} before {@code now}, else -1. */
        int freshValue(long now, long boundNanos) {
            return now - reportedAt <= boundNanos ? value() : -1;
        }

        /** A report of {@code load} arrived at {@code now}; {@code pollRound}: the mean poll round, or -1. */
        void reported(int load, long now, double pollRound) {
            int predicted = value();
            if (predicted >= 0) {
                freshness.predicted(predicted == load
                        || Math.abs(predicted - load) <= 1 && !freshness.pollsCheap(pollRound));
            }
            reportedAt = now;
            report = ((long) load << 32) | (inflight & 0xFFFF_FFFFL);
        }
    }

    /**
     * A service's freshness bound. The two numbers are read on every call and written on every
     * response, by whichever I/O thread has it: plain volatiles, no compare-and-set, so two
     * responses at once may both count as one (the mean and the factor are estimates anyway). A
     * write that would not change the value is skipped, so a steady factor at its limit costs
     * the other threads no cache-line transfer.
     */
    static final class Freshness {
        private volatile double responseNanos = -1;
        private volatile double factor = INITIAL_FACTOR;

        /**
         * How long a report stays fresh; never less than {@code pollRound}, the mean poll round (-1
         * before the first): a poll could not bring anything fresher, its answer being half a round
         * old when it is used. Without that floor, a busy client of a fast service whose reports
         * missed by one polled on most calls, for reports a few tens of microseconds old.
         */
        long boundNanos(double pollRound) {
            double response = responseNanos;
            long bound = response < 0 ? MIN_BOUND_NANOS : (long) (factor * response);
            return Math.max(Math.max(MIN_BOUND_NANOS, (long) pollRound), Math.min(MAX_BOUND_NANOS, bound));
        }

        void responded(long nanos) {
            double mean = responseNanos;
            responseNanos = mean < 0 ? nanos : mean + EWMA_WEIGHT * (nanos - mean);
        }

        /**
         * Whether a poll round is at most {@value #CHEAP_POLLS}th of a response time: then only an
         * exact prediction lengthens the bound. Where a poll costs about as much as the call, a
         * report within one request of its prediction lengthens it too, so that a fine-grained
         * service is hardly polled.
         */
        boolean pollsCheap(double pollRound) {
            return pollRound > 0 && responseNanos >= CHEAP_POLLS * pollRound;
        }

        /**
         * How many candidates of {@code count} a call samples, given the mean poll round: as many as
         * poll rounds fit in a response time, at least {@code pollSize}.
         */
        int sampleSize(int pollSize, int count, double pollRound) {
            double response = responseNanos;
            if (response <= 0 || pollRound <= 0) {
                return Math.min(pollSize, count);
            }
            double affordable = response / pollRound; // poll rounds in a response time
            return (int) Math.min(count, Math.max(pollSize, affordable));
        }

        void predicted(boolean well) {
            double f = factor;
            double next = well ? Math.min(MAX_FACTOR, f * 1.1) : Math.max(MIN_FACTOR, f / 2);
            if (next != f) {
                factor = next;
            }
        }
    }

    LoadAware(Selectors.Poller poller, EventLoopGroup timer, int sampleSize, Duration pollDeadline,
            LongSupplier clock) {
        this.poller = poller;
        this.timer = timer;
        this.sampleSize = sampleSize;
        this.pollWaitNanos = pollDeadline.toNanos();
        this.clock = clock;
    }

    @Override
    public CompletableFuture<Replica> select(String service, int partition, String serviceClass,
            List<Replica> candidates) {
        int count = candidates.size();
        if (count == 1) {
            return CompletableFuture.completedFuture(candidates.get(0));
        }
        ServiceLoads loads = loads(service);
        Map<NodeId, Estimate> estimates = loads.of(serviceClass);
        long now = clock.getAsLong();
        long bound = loads.freshness.boundNanos(pollRoundNanos);
        if (count > Long.SIZE) {
            return selectAmongMany(service, partition, serviceClass, candidates, estimates, now, bound);
        }
        long sample = sample(count, loads.freshness.sampleSize(sampleSize, count, pollRoundNanos));
        long stale = 0; // sampled candidates without a fresh report
        Replica best = null;
        int bestLoad = Integer.MAX_VALUE;
        int ties = 0;
        for (int i = 0; i < count; i++) { // every candidate it knows well enough counts, not only the sample
            Replica replica = candidates.get(i);
            Estimate estimate = estimates.get(replica.node());
            int value = estimate == null ? -1 : estimate.freshValue(now, bound);
            if (value < 0) {
                stale |= sample & (1L << i);
            } else if (value < bestLoad) {
                best = replica;
                bestLoad = value;
                ties = 1;
            } else if (value == bestLoad && ThreadLocalRandom.current().nextInt(++ties) == 0) {
                best = replica; // reservoir sampling keeps the choice uniform among equals
            }
        }
        if (stale == 0 && best != null) {
            return CompletableFuture.completedFuture(best);
        }
        List<Replica> polled = new ArrayList<>(Long.bitCount(stale));
        for (long bits = stale; bits != 0; bits &= bits - 1) {
            polled.add(candidates.get(Long.numberOfTrailingZeros(bits)));
        }
        return pollAndPick(service, partition, serviceClass, candidates, estimates, polled, best, bestLoad);
    }

    /** {@link #select} for more candidates than a bit mask holds: the same choice, with lists. */
    private CompletableFuture<Replica> selectAmongMany(String service, int partition, String serviceClass,
            List<Replica> candidates, Map<NodeId, Estimate> estimates, long now, long bound) {
        List<Replica> sample = Selectors.sample(candidates,
                loads(service).freshness.sampleSize(sampleSize, candidates.size(), pollRoundNanos));
        Map<Replica, Integer> known = new HashMap<>();
        for (Replica replica : candidates) {
            Estimate estimate = estimates.get(replica.node());
            int value = estimate == null ? -1 : estimate.freshValue(now, bound);
            if (value >= 0) {
                known.put(replica, value);
            }
        }
        List<Replica> stale = sample.stream().filter(r -> !known.containsKey(r)).toList();
        if (known.isEmpty()) {
            return pollAndPick(service, partition, serviceClass, candidates, estimates, stale, null, Integer.MAX_VALUE);
        }
        Replica best = Selectors.leastLoaded(List.copyOf(known.keySet()), known::get);
        if (stale.isEmpty()) {
            return CompletableFuture.completedFuture(best);
        }
        return pollAndPick(service, partition, serviceClass, candidates, estimates, stale, best,
                known.getOrDefault(best, Integer.MAX_VALUE));
    }

    /**
     * Polls {@code stale} and picks the least loaded of them and {@code known} (the best fresh
     * candidate, {@code knownLoad}); a random candidate if nothing is known and no poll answers.
     */
    private CompletableFuture<Replica> pollAndPick(String service, int partition, String serviceClass,
            List<Replica> candidates, Map<NodeId, Estimate> estimates, List<Replica> stale, @Nullable Replica known,
            int knownLoad) {
        long started = clock.getAsLong();
        return Selectors.poll(poller, timer, stale, service, partition, serviceClass, pollWaitNanos).thenApply(loads -> {
            long now = clock.getAsLong();
            double mean = pollRoundNanos;
            pollRoundNanos = mean < 0 ? now - started : mean + EWMA_WEIGHT * (now - started - mean);
            Replica best = known;
            int bestLoad = knownLoad;
            int ties = known == null ? 0 : 1;
            for (Map.Entry<Replica, Integer> answer : loads.entrySet()) {
                Estimate estimate = estimate(estimates, loads(service).freshness, answer.getKey().node());
                estimate.reported(answer.getValue(), now, pollRoundNanos);
                int value = estimate.value();
                if (value < bestLoad) {
                    best = answer.getKey();
                    bestLoad = value;
                    ties = 1;
                } else if (value == bestLoad && ThreadLocalRandom.current().nextInt(++ties) == 0) {
                    best = answer.getKey();
                }
            }
            return best == null ? Selectors.randomOf(candidates) : best;
        });
    }

    /**
     * {@code size} distinct random indexes below {@code count} (at most 64) as a bit mask; all of
     * them if {@code size >= count}.
     */
    static long sample(int count, int size) {
        long all = count == Long.SIZE ? -1L : (1L << count) - 1;
        if (size >= count) {
            return all;
        }
        boolean complement = size > count / 2; // draw the ones left out instead
        int draws = complement ? count - size : size;
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long drawn = 0;
        while (Long.bitCount(drawn) < draws) {
            drawn |= 1L << random.nextInt(count);
        }
        return complement ? all & ~drawn : drawn;
    }

    /**
     * The {@code p2c} policy on the same in-flight counts: of two random candidates, the one with
     * fewer of this client's calls unanswered (ties at random).
     */
    ReplicaSelector powerOfTwoChoices() {
        return (ReplicaSelector.ClassAware) (service, partition, serviceClass, candidates) -> {
            int count = candidates.size();
            if (count == 1) {
                return CompletableFuture.completedFuture(candidates.get(0));
            }
            ThreadLocalRandom random = ThreadLocalRandom.current();
            int first = random.nextInt(count);
            int second = random.nextInt(count - 1);
            if (second >= first) {
                second++; // two distinct candidates, uniformly
            }
            ServiceLoads loads = loads(service);
            Map<NodeId, Estimate> estimates = loads.of(serviceClass);
            int a = inflight(estimates, candidates.get(first).node());
            int b = inflight(estimates, candidates.get(second).node());
            int pick = a < b ? first : b < a ? second : random.nextBoolean() ? first : second;
            return CompletableFuture.completedFuture(candidates.get(pick));
        };
    }

    private static int inflight(Map<NodeId, Estimate> estimates, NodeId node) {
        Estimate estimate = estimates.get(node);
        return estimate == null ? 0 : estimate.inflight();
    }

    /**
     * A call of {@code service} in {@code serviceClass} was sent to {@code node}; returns the
     * estimate to hand to {@link #ended} when it ends.
     */
    Estimate sent(NodeId node, String service, String serviceClass) {
        ServiceLoads loads = loads(service);
        Estimate estimate = estimate(loads.of(serviceClass), loads.freshness, node);
        Estimate.INFLIGHT.incrementAndGet(estimate);
        return estimate;
    }

    /**
     * The call that {@link #sent} counted in {@code estimate} ended after {@code nanos}: answered
     * with {@code load} (-1 if the answer carried none, or there was no answer).
     */
    void ended(Estimate estimate, long nanos, int load) {
        Estimate.INFLIGHT.decrementAndGet(estimate);
        if (load >= 0) {
            estimate.freshness.responded(nanos);
            estimate.reported(load, clock.getAsLong(), pollRoundNanos);
        }
    }

    /**
     * The load {@code response} reports, less the call it answers; -1 if it carries none. A node
     * answers a read while the thread that ran it still counts it in its load (the reply is written
     * before the worker lets go of the request), so a read's answer reports one more than the node
     * has left once it is sent: an idle replica would look busy to the caller it just served. Other
     * answers (refusals before the method ran, replicated writes, which are counted out before the
     * reply) report what they say.
     */
    static int loadLeft(@Nullable ResponseMessage response, AccessMode mode) {
        if (response == null) {
            return -1;
        }
        int load = response.load();
        boolean ran = response.status() == Status.OK || response.status() == Status.METHOD_FAILED;
        return mode == AccessMode.READ && ran && load > 0 ? load - 1 : load;
    }

    /** The calls this client has in flight to {@code node} for {@code service}'s class {@code serviceClass}. */
    int inflight(String service, String serviceClass, NodeId node) {
        ServiceLoads loads = services.get(service);
        Estimate estimate = loads == null ? null : loads.of(serviceClass).get(node);
        return estimate == null ? 0 : estimate.inflight();
    }

    private static Estimate estimate(Map<NodeId, Estimate> estimates, Freshness freshness, NodeId node) {
        Estimate estimate = estimates.get(node);
        return estimate != null ? estimate : estimates.computeIfAbsent(node, n -> new Estimate(freshness));
    }

    private ServiceLoads loads(String service) {
        ServiceLoads loads = services.get(service);
        return loads != null ? loads : services.computeIfAbsent(service, s -> new ServiceLoads());
    }

    /** The current freshness bound of {@code service}, for tests. */
    long boundNanos(String service) {
        return loads(service).freshness.boundNanos(pollRoundNanos);
    }
}
