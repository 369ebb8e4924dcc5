package io.neptune.client.internal;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * The {@code load-aware} policy: random polling that polls only when what it knows is stale.
 *
 * <p>Every response carries the serving node's load of the service (wire flag {@code 0x01} of
 * RESPONSE), and every poll reply does too; the client keeps the latest report per replica with the
 * time it arrived, and counts its own calls in flight to each replica. A replica's estimate is its
 * last report plus the calls this client sent it since (the report already counts those in flight
 * then). A call weighs every candidate whose report is fresh by its estimate, samples
 * {@code poll-size} random candidates like random polling and polls only those of the sample whose
 * report is stale (in parallel, within {@code poll-deadline}); it picks the lowest estimate among
 * all it knows, ties at random.
 *
 * <p>How long a report stays fresh adapts per service. The bound is a number of the service's
 * response times (an exponentially weighted mean of what this client measures), clamped to
 * [{@value #MIN_BOUND_MICROS} µs, {@value #MAX_BOUND_MILLIS} ms]; the number starts at
 * {@value #INITIAL_FACTOR} and follows how well the estimates predict: each new report of a replica
 * that its estimate predicted within one request lengthens the bound by a tenth, each report that
 * differs by more halves it (down to {@value #MIN_FACTOR} of a response time). An idle or steady cluster is thus hardly
 * polled, and one whose load moves is polled about as often as it moves.
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
    static final double MIN_FACTOR = 0.25;
    /** The most response times the bound may grow to. */
    static final double MAX_FACTOR = 10_000;
    /** Weight of a new response time in the mean. */
    private static final double EWMA_WEIGHT = 0.1;

    private final Selectors.Poller poller;
    private final EventLoopGroup timer;
    private final int sampleSize;
    private final long pollWaitNanos;
    private final LongSupplier clock;
    private final Map<Key, Estimate> estimates = new ConcurrentHashMap<>();
    private final Map<String, Freshness> freshness = new ConcurrentHashMap<>();

    private record Key(NodeId node, String service, String serviceClass) {}

    /** What this client knows of one replica's load. */
    private static final class Estimate {
        /** Calls this client sent and has no answer to. */
        final AtomicInteger inflight = new AtomicInteger();
        /** The last report, or -1 before the first. */
        volatile int reported = -1;
        /** When it arrived, by the clock. */
        volatile long reportedAt;
        /** {@link #inflight} when it arrived: the report counts those. */
        volatile int inflightAtReport;

        /** The report plus the calls sent since; -1 without a report. */
        int value() {
            int report = reported;
            return report < 0 ? -1 : report + Math.max(0, inflight.get() - inflightAtReport);
        }
    }

    /** A service's freshness bound. */
    private static final class Freshness {
        volatile double responseNanos = -1;
        volatile double factor = INITIAL_FACTOR;

        long boundNanos() {
            double response = responseNanos < 0 ? TimeUnit.MICROSECONDS.toNanos(MIN_BOUND_MICROS) : responseNanos;
            long bound = (long) (factor * response);
            return Math.max(TimeUnit.MICROSECONDS.toNanos(MIN_BOUND_MICROS),
                    Math.min(TimeUnit.MILLISECONDS.toNanos(MAX_BOUND_MILLIS), bound));
        }

        void responded(long nanos) {
            double mean = responseNanos;
            responseNanos = mean < 0 ? nanos : mean + EWMA_WEIGHT * (nanos - mean);
        }

        void predicted(boolean well) {
            double f = factor;
            factor = well ? Math.min(MAX_FACTOR, f * 1.1) : Math.max(MIN_FACTOR, f / 2);
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
        if (candidates.size() == 1) {
            return CompletableFuture.completedFuture(candidates.get(0));
        }
        List<Replica> sample = Selectors.sample(candidates, sampleSize);
        long now = clock.getAsLong();
        long bound = freshness(service).boundNanos();
        Map<Replica, Integer> known = new HashMap<>();
        for (Replica replica : candidates) { // every candidate it knows well enough counts, not only the sample
            Estimate estimate = estimates.get(new Key(replica.node(), service, serviceClass));
            int value = estimate == null ? -1 : estimate.value();
            if (estimate != null && value >= 0 && now - estimate.reportedAt <= bound) {
                known.put(replica, value);
            }
        }
        List<Replica> stale = new ArrayList<>();
        for (Replica replica : sample) {
            if (!known.containsKey(replica)) {
                stale.add(replica);
            }
        }
        if (stale.isEmpty()) {
            return CompletableFuture.completedFuture(Selectors.leastLoaded(List.copyOf(known.keySet()), known::get));
        }
        return Selectors.poll(poller, timer, stale, service, partition, serviceClass, pollWaitNanos).thenApply(loads -> {
            loads.forEach((replica, load) -> report(replica.node(), service, serviceClass, load));
            Map<Replica, Integer> all = new HashMap<>(known);
            for (Replica replica : loads.keySet()) {
                all.put(replica, estimate(replica.node(), service, serviceClass).value());
            }
            return all.isEmpty() ? Selectors.randomOf(candidates)
                    : Selectors.leastLoaded(List.copyOf(all.keySet()), all::get);
        });
    }

    /**
     * The {@code p2c} policy on the same in-flight counts: of two random candidates, the one with
     * fewer of this client's calls unanswered (ties at random).
     */
    ReplicaSelector powerOfTwoChoices() {
        return (ReplicaSelector.ClassAware) (service, partition, serviceClass, candidates) ->
                CompletableFuture.completedFuture(Selectors.leastLoaded(Selectors.sample(candidates, 2),
                        r -> estimate(r.node(), service, serviceClass).inflight.get()));
    }

    /** A call of {@code service} in {@code serviceClass} was sent to {@code node}. */
    void sent(NodeId node, String service, String serviceClass) {
        estimate(node, service, serviceClass).inflight.incrementAndGet();
    }

    /**
     * The call sent to {@code node} ended after {@code nanos}: answered with {@code load} (-1 if the
     * answer carried none, or there was no answer).
     */
    void ended(NodeId node, String service, String serviceClass, long nanos, int load) {
        Estimate estimate = estimate(node, service, serviceClass);
        estimate.inflight.decrementAndGet();
        if (load >= 0) {
            freshness(service).responded(nanos);
            report(node, service, serviceClass, load);
        }
    }

    private void report(NodeId node, String service, String serviceClass, int load) {
        Estimate estimate = estimate(node, service, serviceClass);
        int predicted = estimate.value();
        if (predicted >= 0) {
            freshness(service).predicted(Math.abs(predicted - load) <= 1);
        }
        estimate.inflightAtReport = estimate.inflight.get();
        estimate.reportedAt = clock.getAsLong();
        estimate.reported = load;
    }

    private Estimate estimate(NodeId node, String service, String serviceClass) {
        return estimates.computeIfAbsent(new Key(node, service, serviceClass), k -> new Estimate());
    }

    private Freshness freshness(String service) {
        return freshness.computeIfAbsent(service, s -> new Freshness());
    }

    /** The current freshness bound of {@code service}, for tests. */
    long boundNanos(String service) {
        return freshness(service).boundNanos();
    }
}
