package io.neptune.server.internal.replication.protocol;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * A level-3 primary's record of its applied version over time, for the soft staleness bound
 * (DESIGN §6.4): it announces its version of {@code staleness} ago, measured on its own clock only.
 * Both fail-over modes use it; the time comes in with each call.
 *
 * <p>Thread-safety: not thread-safe; confined to the partition's executor.
 */
public final class VersionSampler {
    private final long stalenessNanos;
    private final Deque<long[]> samples = new ArrayDeque<>();

    /** {@code stalenessNanos} 0 means the service has no bound (level 2): nothing is sampled. */
    public VersionSampler(long stalenessNanos) {
        this.stalenessNanos = stalenessNanos;
    }

    /** Notes that the version is {@code applied} at {@code nowNanos}. */
    public void sample(long applied, long nowNanos) {
        if (stalenessNanos == 0) {
            return;
        }
        samples.addLast(new long[] {nowNanos, applied});
        while (samples.size() > 2 && nowNanos - samples.peekFirst()[0] > stalenessNanos * 2) {
            samples.pollFirst();
        }
    }

    /** The version {@code staleness} before {@code nowNanos}: the highest sample at least that old; 0 without a bound. */
    public long boundVersion(long nowNanos) {
        if (stalenessNanos == 0) {
            return 0;
        }
        long cutoff = nowNanos - stalenessNanos;
        long bound = 0;
        for (long[] sample : samples) {
            if (sample[0] - cutoff <= 0) {
                bound = sample[1];
            }
        }
        return bound;
    }
}
