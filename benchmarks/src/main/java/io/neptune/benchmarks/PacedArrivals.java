package io.neptune.benchmarks;

import io.neptune.client.CallOptions;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;

/**
 * The altered Differentiated Search of the dissertation's section 4.5.4: "fixed interval request
 * arrivals and constant service time", so that each class's demand is exactly what it is told to
 * be at every moment. Class {@code k}'s demand is a function of time (seconds since the source's
 * start) giving the fraction of {@code capacity} requests per second it asks for; its calls are
 * spaced by {@code 1 / (demand(t) * capacity)}. The source counts what it generated per class in
 * buckets of {@code bucketSeconds}, the demand side of Figure 4.12.
 *
 * <p>Not thread-safe: one generator thread, then read the counts after it stopped.
 */
final class PacedArrivals implements OpenLoopRun.Arrivals {
    /** When a class asks for nothing, look again this much later (seconds). */
    private static final double IDLE_STEP = 0.01;

    private final List<DoubleUnaryOperator> demands;
    private final List<CallOptions> options;
    private final double capacity;
    private final long serviceMicros;
    private final double bucketSeconds;
    private final long[][] counts;
    /** Each class's next arrival in seconds from the start; a request is emitted only at a positive demand. */
    private final double[] next;
    private double last;

    /**
     * Creates the source.
     *
     * @param demands per class, the demanded fraction of {@code capacity} at time t (seconds)
     * @param options per class, its call options
     * @param capacity requests per second that make 100% demand
     * @param serviceMicros every request's service time
     * @param bucketSeconds the counting bucket
     * @param seconds how long the source runs (buckets beyond are not counted)
     */
    PacedArrivals(List<DoubleUnaryOperator> demands, List<CallOptions> options, double capacity, long serviceMicros,
            double bucketSeconds, double seconds) {
        if (demands.size() != options.size()) {
            throw new IllegalArgumentException("options: " + options.size() + " (expected: " + demands.size() + ")");
        }
        if (!(capacity > 0) || !(bucketSeconds > 0)) {
            throw new IllegalArgumentException("capacity: " + capacity + ", bucketSeconds: " + bucketSeconds
                    + " (expected: > 0)");
        }
        this.demands = List.copyOf(demands);
        this.options = List.copyOf(options);
        this.capacity = capacity;
        this.serviceMicros = serviceMicros;
        this.bucketSeconds = bucketSeconds;
        this.counts = new long[demands.size()][(int) Math.ceil(seconds / bucketSeconds - 1e-9)];
        this.next = new double[demands.size()];
        for (int k = 0; k < next.length; k++) {
            next[k] = advance(k, 0);
        }
    }

    @Override
    public OpenLoopRun.Request next(Random random) {
        int k = 0;
        for (int i = 1; i < next.length; i++) {
            if (next[i] < next[k]) {
                k = i;
            }
        }
        double at = next[k];
        long gap = Math.round(at * 1e9) - Math.round(last * 1e9);
        last = at;
        int bucket = (int) Math.floor(at / bucketSeconds);
        if (bucket < counts[k].length) {
            counts[k][bucket]++;
        }
        next[k] = advance(k, at);
        return new OpenLoopRun.Request(gap, serviceMicros, options.get(k), k);
    }

    /** The first time after {@code t} at which class {@code k} sends, one interval at its demand at {@code t}. */
    private double advance(int k, double t) {
        double at = t;
        for (int i = 0; i < 100_000; i++) {
            double demand = demands.get(k).applyAsDouble(at);
            if (demand > 0) {
                return at + 1 / (demand * capacity);
            }
            at += IDLE_STEP;
        }
        return Double.MAX_VALUE; // no demand for 1000 s: never
    }

    /** Class {@code k}'s demand in bucket {@code b}, a fraction of the capacity: requests generated over capacity. */
    double demand(int k, int b) {
        return counts[k][b] / (bucketSeconds * capacity);
    }

    /** Buckets counted. */
    int buckets() {
        return counts.length == 0 ? 0 : counts[0].length;
    }
}
