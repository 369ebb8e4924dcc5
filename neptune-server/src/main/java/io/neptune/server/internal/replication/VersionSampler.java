package io.neptune.server.internal.replication;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.function.LongSupplier;

/**
 * A level-3 primary's record of its applied version over time, for the soft staleness bound
 * (DESIGN §6.4): it announces its version of {@code staleness} ago, measured on its own clock only.
 *
 * <p>Thread-safety: confined to the partition's executor.
 */
final class VersionSampler {
    private final long stalenessNanos;
    private final LongSupplier clock;
    private final Deque<long[]> samples = new ArrayDeque<>();

    /** {@code stalenessNanos} 0 means the service has no bound (level 2): nothing is sampled. */
    VersionSampler(long stalenessNanos, LongSupplier clock) {
        this.stalenessNanos = stalenessNanos;
        this.clock = clock;
    }

    /** Notes that the version is {@code applied} now. */
    void sample(long applied) {
        if (stalenessNanos == 0) {
            return;
        }
        long now = clock.getAsLong();
        samples.addLast(new long[] {now, applied});
        while (samples.size() > 2 && now - samples.peekFirst()[0] > stalenessNanos * 2) {
            samples.pollFirst();
        }
    }

    /** The version {@code staleness} ago: the highest sample at least that old; 0 without a bound. */
    long boundVersion() {
        if (stalenessNanos == 0) {
            return 0;
        }
        long cutoff = clock.getAsLong() - stalenessNanos;
        long bound = 0;
        for (long[] sample : samples) {
            if (sample[0] - cutoff <= 0) {
                bound = sample[1];
            }
        }
        return bound;
    }
}
