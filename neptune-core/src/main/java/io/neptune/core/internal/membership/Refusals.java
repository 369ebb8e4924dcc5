package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts what membership refused, by {@link Refusal}, and logs it: the first refusal of a kind at
 * once, then at most once per {@link #INTERVAL_NANOS} with how many were left out since, so that a
 * peer retrying every second (or announcing every second) cannot flood the log.
 *
 * <p>Thread-safety: thread-safe. JGroups threads and TLS handshakes record concurrently.
 */
public final class Refusals {
    private static final Logger logger = LoggerFactory.getLogger(Refusals.class);

    /** The least time between two log lines of one kind: a minute. */
    static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final NodeId self;
    private final LongSupplier nanoTime;
    private final Map<Refusal, AtomicLong> counts = new EnumMap<>(Refusal.class);
    /** Per kind, when its line was last logged and how many were left out since; guarded by itself. */
    private final Map<Refusal, long[]> logged = new EnumMap<>(Refusal.class);

    /** Creates counters for node {@code self}, whose id starts the log lines. */
    public Refusals(NodeId self, LongSupplier nanoTime) {
        this.self = requireNonNull(self, "self");
        this.nanoTime = requireNonNull(nanoTime, "nanoTime");
        for (Refusal refusal : Refusal.values()) {
            counts.put(refusal, new AtomicLong());
        }
    }

    /** Counts one {@code refusal} and logs it with {@code detail} unless its line was logged within the interval. */
    public void record(Refusal refusal, String detail) {
        requireNonNull(counts.get(refusal), "counts").incrementAndGet();
        long suppressed = due(refusal, nanoTime.getAsLong());
        if (suppressed < 0) {
            return;
        }
        if (suppressed == 0) {
            logger.warn("{}: {} {}: {}", self, refusal.code(), refusal.summary(), detail);
        } else {
            logger.warn("{}: {} {}: {} ({} more since the last such line)", self, refusal.code(), refusal.summary(),
                    detail, suppressed);
        }
    }

    private long due(Refusal refusal, long now) {
        synchronized (logged) {
            long[] state = logged.get(refusal);
            if (state == null) {
                logged.put(refusal, new long[] {now, 0});
                return 0;
            }
            if (now - state[0] < INTERVAL_NANOS) {
                state[1]++;
                return -1;
            }
            long left = state[1];
            state[0] = now;
            state[1] = 0;
            return left;
        }
    }

    /** How many {@code refusal}s were recorded since this object was created. */
    public long count(Refusal refusal) {
        return requireNonNull(counts.get(refusal), "counts").get();
    }

    /** How many refusals of any kind were recorded. */
    public long total() {
        return counts.values().stream().mapToLong(AtomicLong::get).sum();
    }
}
