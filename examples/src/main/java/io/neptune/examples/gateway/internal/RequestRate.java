package io.neptune.examples.gateway.internal;

import java.util.function.LongSupplier;

/**
 * Counts events over a sliding second, in ten 100 ms buckets, e.g. the requests the gateway
 * answered. {@link #perSecond()} sums the ten buckets before the current one, so it lags by at
 * most 100 ms and never reports a half-filled bucket.
 *
 * <p>Thread-safety: thread-safe; methods synchronize on this object (a few additions per request).
 */
public final class RequestRate {
    private static final long BUCKET_NANOS = 100_000_000L;
    private static final int BUCKETS = 10;

    private final LongSupplier nanoTime;
    private final long[] counts = new long[BUCKETS + 1];
    private final long[] slots = new long[BUCKETS + 1];

    /** Creates a rate over {@code nanoTime} (e.g. {@code System::nanoTime}). */
    public RequestRate(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        java.util.Arrays.fill(slots, Long.MIN_VALUE);
    }

    /** Records one event now. */
    public synchronized void record() {
        long slot = Math.floorDiv(nanoTime.getAsLong(), BUCKET_NANOS);
        int index = (int) Math.floorMod(slot, (long) counts.length);
        if (slots[index] != slot) {
            slots[index] = slot;
            counts[index] = 0;
        }
        counts[index]++;
    }

    /** Events in the last full second (the ten completed buckets before the current one). */
    public synchronized long perSecond() {
        long current = Math.floorDiv(nanoTime.getAsLong(), BUCKET_NANOS);
        long sum = 0;
        for (int i = 0; i < counts.length; i++) {
            if (slots[i] < current && slots[i] >= current - BUCKETS) {
                sum += counts[i];
            }
        }
        return sum;
    }
}
