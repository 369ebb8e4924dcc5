package io.neptune.client.internal;

import io.neptune.client.ClientConfig;
import java.util.concurrent.TimeUnit;
import java.util.function.DoubleSupplier;

/**
 * How long a call waits before it tries again: exponential backoff with full jitter, the schedule of
 * gRPC's retry design (<a href="https://github.com/grpc/proposal/blob/master/A6-client-retries.md">A6</a>)
 * and of AWS's "Exponential Backoff and Jitter". Wait {@code n} (from 0) is drawn uniformly from
 * {@code [0, min(max, initial × multiplier^n))}; without jitter it is that bound itself, so
 * {@code multiplier 1} and no jitter is the fixed pause of earlier versions. Full jitter spreads the
 * calls that failed together (a node that died with many calls in flight) over the whole wait instead
 * of sending them back in one burst, and the growing bound makes a call that keeps failing cost a
 * number of attempts logarithmic, not linear, in its deadline.
 *
 * <p>The call's deadline caps the waits ({@link #withinDeadline}): a call whose next wait would reach
 * it ends instead of waiting.
 *
 * <p>Thread-safety: immutable; the random source is the caller's.
 */
final class RetryBackoff {
    /** The least time an attempt after a wait must have before the deadline; less would not be answered. */
    static final long MIN_TIME_LEFT_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final long initialNanos;
    private final double multiplier;
    private final long maxNanos;
    private final boolean jitter;

    RetryBackoff(long initialNanos, double multiplier, long maxNanos, boolean jitter) {
        if (initialNanos <= 0 || multiplier < 1 || maxNanos < initialNanos) {
            throw new IllegalArgumentException("backoff: initial " + initialNanos + " ns, multiplier " + multiplier
                    + ", max " + maxNanos + " ns (expected: initial > 0, multiplier >= 1, max >= initial)");
        }
        this.initialNanos = initialNanos;
        this.multiplier = multiplier;
        this.maxNanos = maxNanos;
        this.jitter = jitter;
    }

    /** The backoff {@code config} sets. */
    static RetryBackoff of(ClientConfig config) {
        return new RetryBackoff(config.retryBackoff().toNanos(), config.retryBackoffMultiplier(),
                config.retryBackoffMax().toNanos(), config.retryJitter());
    }

    /** The bound of wait number {@code retry} (0 for the first): {@code min(max, initial × multiplier^retry)}. */
    long boundNanos(int retry) {
        double bound = initialNanos * Math.pow(multiplier, Math.max(0, retry));
        return bound >= maxNanos ? maxNanos : (long) bound; // also when the power overflowed to infinity
    }

    /**
     * Wait number {@code retry} (0 for the first): uniform in {@code [0, bound)} with jitter, where
     * {@code random} returns a value in {@code [0, 1)}; the bound itself without.
     */
    long delayNanos(int retry, DoubleSupplier random) {
        long bound = boundNanos(retry);
        return jitter ? (long) (bound * random.getAsDouble()) : bound;
    }

    /**
     * {@code delayNanos} if the attempt after it would still start {@link #MIN_TIME_LEFT_NANOS} before the
     * deadline, {@code leftNanos} away; else -1: the call does not wait past its deadline, it ends at once
     * with its last error (as the fixed pause of earlier versions did).
     */
    static long withinDeadline(long delayNanos, long leftNanos) {
        return delayNanos <= leftNanos - MIN_TIME_LEFT_NANOS ? delayNanos : -1;
    }

    @Override
    public String toString() {
        return "RetryBackoff[initial=" + TimeUnit.NANOSECONDS.toMillis(initialNanos) + "ms, multiplier=" + multiplier
                + ", max=" + TimeUnit.NANOSECONDS.toMillis(maxNanos) + "ms, jitter=" + jitter + "]";
    }
}
