package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * A closed-loop load generator: {@code callers} asynchronous callers, each with exactly one call
 * outstanding, that send their next call as soon as the previous one completes. Each caller is a
 * chain of futures, not a thread: the completion callback (on whichever thread completed the call,
 * usually the client's event loop) records the latency and sends the next call, so 64 callers
 * need no 64 threads on a 2-core machine.
 *
 * <p>The run lasts a warm-up and then a measured period; the calls that <em>complete</em> within
 * the measured period make both the latency histogram (send to completion) and the throughput. A
 * closed loop has no coordinated-omission problem of its own: there is no schedule to fall behind,
 * and throughput is whatever the system sustains with that many calls outstanding.
 *
 * <p>Thread-safety: {@link #run} is for one thread; the callers record into concurrent accumulators.
 */
public final class ClosedLoop {
    private static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** Pause before a caller sends again after a failure, so a dead system does not spin or recurse. */
    private static final Executor AFTER_FAILURE = CompletableFuture.delayedExecutor(1, TimeUnit.MILLISECONDS);

    private final Supplier<? extends CompletableFuture<?>> call;
    private final Histogram latencies = new ConcurrentHistogram(MAX_NANOS, 3);
    private final LongAdder failures = new LongAdder();
    /** Every call completed, in the measured period or not, for the per-call usage between two snapshots. */
    private final LongAdder completions = new LongAdder();
    private volatile String firstFailure = "";
    private long measureFromNanos;
    private long endNanos;
    private CountDownLatch stopped = new CountDownLatch(0);

    /**
     * Latency and throughput of one run.
     *
     * @param callers calls outstanding at any time
     * @param calls successful calls completed in the measured period
     * @param failures failed calls completed in the measured period
     * @param throughput successful calls per second in the measured period
     * @param p50 median latency, µs
     * @param p99 99th percentile latency, µs
     * @param mean mean latency, µs
     * @param firstFailure the first failure's message, or empty
     * @param bytesPerCall heap bytes allocated in this JVM during the measured period per call completed in it
     *     (successful or failed; {@link JvmUsage}), NaN if not measured
     * @param cpuMicrosPerCall CPU time of this process during the measured period per call completed in it, µs,
     *     NaN if not measured
     * @param switchesPerCall voluntary context switches of this JVM's threads (sleeps, so wake-ups) during the
     *     measured period per call completed in it, NaN if not measured
     */
    public record Result(int callers, long calls, long failures, double throughput, double p50, double p99, double mean,
            String firstFailure, double bytesPerCall, double cpuMicrosPerCall, double switchesPerCall) {
        /** A result without allocation, CPU and context-switch figures. */
        public Result(int callers, long calls, long failures, double throughput, double p50, double p99, double mean,
                String firstFailure) {
            this(callers, calls, failures, throughput, p50, p99, mean, firstFailure, Double.NaN, Double.NaN, Double.NaN);
        }
    }

    /** A generator of calls made by {@code call}, which must not block. */
    public ClosedLoop(Supplier<? extends CompletableFuture<?>> call) {
        this.call = requireNonNull(call, "call");
    }

    /**
     * Runs {@code callers} callers for {@code warmUp} plus {@code measure}, then waits for every
     * outstanding call. The calling thread takes a {@link JvmUsage} snapshot when the measured period
     * begins and one when it ends, for the result's bytes and CPU time per call.
     *
     * @throws IllegalStateException if calls are still outstanding 30 s after the end
     */
    public Result run(int callers, Duration warmUp, Duration measure) throws InterruptedException {
        if (callers < 1) {
            throw new IllegalArgumentException("callers: " + callers + " (expected: >= 1)");
        }
        latencies.reset();
        failures.reset();
        firstFailure = "";
        long start = System.nanoTime();
        measureFromNanos = start + warmUp.toNanos();
        endNanos = measureFromNanos + measure.toNanos();
        stopped = new CountDownLatch(callers);
        for (int i = 0; i < callers; i++) {
            next();
        }
        sleepUntil(measureFromNanos);
        long completedBefore = completions.sum();
        JvmUsage before = JvmUsage.now();
        sleepUntil(endNanos);
        JvmUsage after = JvmUsage.now();
        double completed = Math.max(1, completions.sum() - completedBefore);
        long grace = endNanos - System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        if (!stopped.await(grace, TimeUnit.NANOSECONDS)) {
            throw new IllegalStateException(stopped.getCount() + " of " + callers
                    + " callers still have a call outstanding 30 s after the end");
        }
        double seconds = measure.toNanos() / 1e9;
        long calls = latencies.getTotalCount();
        return new Result(callers, calls, failures.sum(), calls / seconds, latencies.getValueAtPercentile(50) / 1e3,
                latencies.getValueAtPercentile(99) / 1e3, latencies.getMean() / 1e3, firstFailure,
                after.allocatedSince(before) / completed, after.cpuNanosSince(before) / 1e3 / completed,
                after.switchesSince(before) / completed);
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        for (long left = nanos - System.nanoTime(); left > 0; left = nanos - System.nanoTime()) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    /** Sends one call of this caller, or stops the caller once the measured period is over. */
    private void next() {
        long sent = System.nanoTime();
        if (sent - endNanos >= 0) {
            stopped.countDown();
            return;
        }
        CompletableFuture<?> reply;
        try {
            reply = call.get();
        } catch (RuntimeException e) {
            reply = CompletableFuture.failedFuture(e);
        }
        reply.whenComplete((r, error) -> {
            long done = System.nanoTime();
            completions.increment();
            boolean measured = done - measureFromNanos >= 0 && done - endNanos < 0;
            if (error == null) {
                if (measured) {
                    latencies.recordValue(Math.min(done - sent, MAX_NANOS));
                }
                next();
                return;
            }
            if (measured) {
                failures.increment();
                if (firstFailure.isEmpty()) {
                    firstFailure = String.valueOf(error);
                }
            }
            AFTER_FAILURE.execute(this::next);
        });
    }
}
