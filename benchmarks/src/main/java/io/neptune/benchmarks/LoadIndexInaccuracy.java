package io.neptune.benchmarks;

import java.util.List;

/**
 * The dissertation's <em>load index inaccuracy</em> (section 3.2.1, Figure 3.1): for a delay Δt,
 * the mean of |Q(t) − Q(t + Δt)| over t, where Q is one server's queue length (requests running
 * and waiting), and its upper bound for Poisson/Exp, the mean difference of two independent draws
 * from the stationary distribution: 2ρ / (1 − ρ²) (equation 3.2.1). The series are queue lengths
 * sampled on a regular grid, so a delay is a whole number of grid steps.
 *
 * <p>Thread-safety: stateless.
 */
final class LoadIndexInaccuracy {
    /** The delays of Figure 3.1's x axis, in mean service times: 0.1 to 100, 1-2-5 log-spaced. */
    static final List<Double> DELAYS = List.of(0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0);

    private LoadIndexInaccuracy() {}

    /**
     * The mean of |{@code series[i]} − {@code series[i + lag]}| over every i that has both; NaN when
     * the series is not longer than {@code lag}.
     */
    static double inaccuracy(int[] series, int lag) {
        if (lag < 0) {
            throw new IllegalArgumentException("lag: " + lag + " (expected: >= 0)");
        }
        int pairs = series.length - lag;
        if (pairs <= 0) {
            return Double.NaN;
        }
        long sum = 0;
        for (int i = 0; i < pairs; i++) {
            sum += Math.abs(series[i] - series[i + lag]);
        }
        return sum / (double) pairs;
    }

    /** The closed form of the upper bound for Poisson arrivals and exponential service at load {@code rho}. */
    static double poissonExpBound(double rho) {
        if (!(rho >= 0 && rho < 1)) {
            throw new IllegalArgumentException("rho: " + rho + " (expected: >= 0 and < 1)");
        }
        return 2 * rho / (1 - rho * rho);
    }

    /**
     * The mean |X − Y| of two independent draws from the values of {@code series} (the limit of
     * {@link #inaccuracy} as the delay grows, when the series is long enough to be stationary):
     * for integers, 2 Σ_k P(X ≤ k) P(X > k). NaN for an empty series.
     */
    static double independentDraws(int[] series) {
        if (series.length == 0) {
            return Double.NaN;
        }
        int max = 0;
        for (int q : series) {
            if (q < 0) {
                throw new IllegalArgumentException("queue length: " + q + " (expected: >= 0)");
            }
            max = Math.max(max, q);
        }
        long[] counts = new long[max + 1];
        for (int q : series) {
            counts[q]++;
        }
        double sum = 0;
        long atMost = 0;
        for (int k = 0; k < max; k++) {
            atMost += counts[k];
            double below = atMost / (double) series.length;
            sum += below * (1 - below);
        }
        return 2 * sum;
    }

    /** The fraction of samples with a request at the server: a single worker's utilization. */
    static double busyFraction(int[] series) {
        long busy = 0;
        for (int q : series) {
            if (q > 0) {
                busy++;
            }
        }
        return series.length == 0 ? Double.NaN : busy / (double) series.length;
    }

    /** The mean queue length. */
    static double mean(int[] series) {
        long sum = 0;
        for (int q : series) {
            sum += q;
        }
        return series.length == 0 ? Double.NaN : sum / (double) series.length;
    }

    /**
     * {@code values} read at {@code times} (ascending, nanoseconds) as a step function, sampled at
     * {@code count} grid points {@code start + i × step}: each point takes the latest value read at
     * or before it, so a sample that came late does not shift the grid. Grid points before the
     * first reading take the first value.
     */
    static int[] onGrid(long[] times, int[] values, int readings, long start, long step, int count) {
        if (readings <= 0) {
            throw new IllegalArgumentException("readings: " + readings + " (expected: > 0)");
        }
        int[] grid = new int[count];
        int r = 0;
        for (int i = 0; i < count; i++) {
            long at = start + i * step;
            while (r + 1 < readings && times[r + 1] - at <= 0) {
                r++;
            }
            grid[i] = values[r];
        }
        return grid;
    }
}
