package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Finds the throughput at the saturation point by the dissertation's rule (§5.4): the highest
 * offered rate at which at least 98% of requests complete within 2 s. Like the dissertation's
 * clients it doubles the rate until a step fails, then refines between the last rate that passed
 * and the first that failed (here by bisection). A first step that fails is run once more (it
 * starts below the expected capacity, so a failure there is often a hiccup of the shared host);
 * if it fails again the rate halves instead, until a step passes. Between steps it waits until
 * the nodes are idle, so every step starts from empty queues.
 *
 * <p>Thread-safety: not thread-safe; one search at a time.
 */
final class SaturationSearch {
    private static final int MAX_HALVINGS = 5;
    private static final double MAX_GROWTH = 32;

    private final OpenLoopProbe probe;
    private final Duration step;
    private final int refinements;
    private final BooleanSupplier awaitIdle;

    /**
     * The outcome of a search.
     *
     * @param rate the highest rate that passed (0 if none did)
     * @param atRate that step's result, if one passed
     * @param firstFailed the lowest rate that failed
     * @param steps how many steps were run
     * @param seconds how long the search took
     */
    record Outcome(double rate, OpenLoopProbe.@Nullable Result atRate, double firstFailed, int steps, double seconds) {}

    SaturationSearch(OpenLoopProbe probe, Duration step, int refinements, BooleanSupplier awaitIdle) {
        this.probe = requireNonNull(probe, "probe");
        this.step = requireNonNull(step, "step");
        this.refinements = refinements;
        this.awaitIdle = requireNonNull(awaitIdle, "awaitIdle");
    }

    /** Searches from {@code startRate} requests per second. */
    Outcome run(String label, double startRate) {
        long began = System.nanoTime();
        double passedRate = 0;
        OpenLoopProbe.Result passed = null;
        double failedRate = Double.POSITIVE_INFINITY;
        int steps = 0;
        double rate = startRate;
        for (int halvings = 0; failedRate == Double.POSITIVE_INFINITY || passed == null; ) {
            OpenLoopProbe.Result result = step(label, rate);
            steps++;
            if (steps == 1 && !result.passed()) {
                result = step(label + " (first step again)", rate); // a host hiccup, or really too fast?
                steps++;
            }
            if (result.passed()) {
                passedRate = rate;
                passed = result;
                if (rate > MAX_GROWTH * startRate) {
                    break; // never saturated: the driver, not the cluster, is the limit
                }
                rate *= 2;
            } else {
                failedRate = rate;
                if (passed != null) {
                    break;
                }
                if (++halvings > MAX_HALVINGS) {
                    break;
                }
                rate /= 2;
            }
        }
        for (int i = 0; i < refinements && passed != null && failedRate != Double.POSITIVE_INFINITY; i++) {
            double mid = (passedRate + failedRate) / 2;
            OpenLoopProbe.Result result = step(label, mid);
            steps++;
            if (result.passed()) {
                passedRate = mid;
                passed = result;
            } else {
                failedRate = mid;
            }
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        System.out.printf(Locale.ROOT, "%s: saturation %.0f req/s (first failing rate %.0f), %d steps in %.0f s%n",
                label, passedRate, failedRate, steps, seconds);
        return new Outcome(passedRate, passed, failedRate, steps, seconds);
    }

    private OpenLoopProbe.Result step(String label, double rate) {
        if (!awaitIdle.getAsBoolean()) {
            System.out.printf(Locale.ROOT, "%s: nodes still busy before the step at %.0f req/s%n", label, rate);
        }
        OpenLoopProbe.Result r = probe.run(rate, step);
        System.out.printf(Locale.ROOT, "%s:   %6.0f req/s -> %s %5.1f%% on time of %d%s, p50 %.0f ms, p99 %.0f ms,"
                + " reads at primary %.0f%% %s%n",
                label, rate, r.passed() ? "pass" : "FAIL", 100 * r.onTimeShare(), r.scheduled(),
                r.stoppedEarly() ? " (stopped early)" : "", r.p50Millis(), r.p99Millis(), 100 * r.readsAtPrimary(),
                r.failures().isEmpty() ? "" : r.failures());
        return r;
    }
}
