package io.neptune.benchmarks;

import io.neptune.core.DeadlineExceededException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.stream.IntStream;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * The outcome of every call of an {@link OpenLoopProbe} binned by the second in which it ended,
 * counted from an origin: successes within the deadline (with their latency from the scheduled
 * send time), timeouts (the client's deadline passed, a success after the deadline, or a sender
 * too late to send at all) and other errors. Calls that end before the origin (a warm-up) or after
 * the last second are not binned.
 *
 * <p>Thread-safety: thread-safe; calls are recorded from client threads.
 */
final class PerSecondTimeline implements OpenLoopProbe.Listener {
    /** Failure kinds counted as timeouts; every other kind is an error. */
    static final Set<String> TIMEOUTS = Set.of(DeadlineExceededException.class.getSimpleName(), "late", "sender-late");

    private final long originNanos;
    private final LongAdder[] ok;
    private final LongAdder[] errors;
    private final LongAdder[] timeouts;
    private final Histogram[] latencies;

    /**
     * One second of the timeline.
     *
     * @param second seconds since the origin at the bin's start
     * @param ok calls that succeeded within the deadline
     * @param errors calls that failed other than by timing out
     * @param timeouts calls that timed out
     * @param p50Millis median latency of the successful calls, NaN if none
     * @param p99Millis 99th percentile latency of the successful calls, NaN if none
     */
    record Second(int second, long ok, long errors, long timeouts, double p50Millis, double p99Millis) {}

    /**
     * Bins {@code seconds} seconds from {@code originNanos} ({@link System#nanoTime}); calls ending
     * before or after are not binned.
     */
    PerSecondTimeline(long originNanos, int seconds) {
        this.originNanos = originNanos;
        this.ok = adders(seconds);
        this.errors = adders(seconds);
        this.timeouts = adders(seconds);
        this.latencies = new Histogram[seconds];
        for (int i = 0; i < seconds; i++) {
            latencies[i] = new ConcurrentHistogram(TimeUnit.MINUTES.toMicros(1), 2);
        }
    }

    private static LongAdder[] adders(int n) {
        LongAdder[] adders = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            adders[i] = new LongAdder();
        }
        return adders;
    }

    @Override
    public void ended(long scheduledNanos, long endNanos, @Nullable String failure) {
        long sinceOrigin = endNanos - originNanos;
        long bin = TimeUnit.NANOSECONDS.toSeconds(sinceOrigin);
        if (sinceOrigin < 0 || bin >= ok.length) {
            return;
        }
        if (failure == null) {
            ok[(int) bin].increment();
            latencies[(int) bin].recordValue(Math.min(TimeUnit.NANOSECONDS.toMicros(endNanos - scheduledNanos),
                    latencies[(int) bin].getHighestTrackableValue()));
        } else if (TIMEOUTS.contains(failure)) {
            timeouts[(int) bin].increment();
        } else {
            errors[(int) bin].increment();
        }
    }

    /** Seconds since the origin of {@code nanos} ({@link System#nanoTime}). */
    double secondsOf(long nanos) {
        return (nanos - originNanos) / 1e9;
    }

    /** The bins, in order. */
    List<Second> seconds() {
        return IntStream.range(0, ok.length).mapToObj(i -> {
            boolean any = latencies[i].getTotalCount() > 0;
            return new Second(i, ok[i].sum(), errors[i].sum(), timeouts[i].sum(),
                    any ? latencies[i].getValueAtPercentile(50) / 1000.0 : Double.NaN,
                    any ? latencies[i].getValueAtPercentile(99) / 1000.0 : Double.NaN);
        }).toList();
    }
}
