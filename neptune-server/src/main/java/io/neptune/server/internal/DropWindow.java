package io.neptune.server.internal;

import java.time.Duration;
import java.util.Arrays;

/**
 * Arrivals and drops of the last window, in one-second buckets: what
 * {@link io.neptune.server.SchedulingPolicy#ADAPTIVE} decides by, for {@link ClassAwareScheduler}.
 *
 * <p>Thread-safety: not thread-safe; the scheduler's lock guards it.
 */
final class DropWindow {
    private final long[] arrivals;
    private final long[] drops;
    private final long[] second;

    DropWindow(Duration window) {
        int buckets = (int) Math.max(1, Math.min(3600, (window.toMillis() + 999) / 1000));
        arrivals = new long[buckets];
        drops = new long[buckets];
        second = new long[buckets];
        Arrays.fill(second, Long.MIN_VALUE);
    }

    void arrival(long now) {
        arrivals[bucket(now)]++;
    }

    void drop(long now) {
        drops[bucket(now)]++;
    }

    double dropFraction(long now) {
        long s = Math.floorDiv(now, 1_000_000_000L);
        long a = 0;
        long d = 0;
        for (int i = 0; i < second.length; i++) {
            if (second[i] > s - second.length) {
                a += arrivals[i];
                d += drops[i];
            }
        }
        return a == 0 ? 0 : (double) d / a;
    }

    private int bucket(long now) {
        long s = Math.floorDiv(now, 1_000_000_000L);
        int i = Math.floorMod(s, second.length);
        if (second[i] != s) {
            second[i] = s;
            arrivals[i] = 0;
            drops[i] = 0;
        }
        return i;
    }
}
