package io.neptune.client.internal;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The latency of this client's recent answered reads, by service: the last {@link #WINDOW} of them,
 * and their 95th percentile, which is how long a {@link HedgedRead} waits before it asks a second
 * replica ("The Tail at Scale": hedge after the 95th-percentile expected latency, so about one read
 * in twenty costs a second request). Recorded only while hedging is on.
 *
 * <p>Thread-safety: thread-safe; each service's window is guarded by its own lock, held for a copy
 * and a sort of {@link #WINDOW} numbers once every {@link #REFRESH} recordings.
 */
final class ReadLatencies {
    /** How many recent reads of a service the percentile is taken over. */
    static final int WINDOW = 256;
    /** How many reads of a service must be seen before any is hedged. */
    static final int MIN_SAMPLES = 20;
    /** How many recordings pass between two computations of the percentile. */
    static final int REFRESH = 16;

    private final Map<String, Window> byService = new ConcurrentHashMap<>();

    /** Records an answered read of {@code service} that took {@code nanos}. */
    void record(String service, long nanos) {
        byService.computeIfAbsent(service, s -> new Window()).record(nanos);
    }

    /** The 95th percentile of the recent reads of {@code service}, in nanoseconds; -1 before {@link #MIN_SAMPLES}. */
    long p95Nanos(String service) {
        Window window = byService.get(service);
        return window == null ? -1 : window.p95();
    }

    /** A ring of the last {@link #WINDOW} latencies and the percentile last computed from it. */
    private static final class Window {
        private final long[] nanos = new long[WINDOW];
        private int count;
        private int next;
        private volatile long p95 = -1;

        synchronized void record(long latency) {
            nanos[next] = latency;
            next = (next + 1) % WINDOW;
            count = Math.min(WINDOW, count + 1);
            if (count >= MIN_SAMPLES && (count < WINDOW || next % REFRESH == 0)) {
                long[] sorted = Arrays.copyOf(nanos, count);
                Arrays.sort(sorted);
                p95 = sorted[(int) Math.ceil(0.95 * count) - 1];
            }
        }

        long p95() {
            return p95;
        }
    }
}
