package io.neptune.server.internal.replication.runtime;

import java.util.concurrent.TimeUnit;

/**
 * Lets a condition that is checked again and again (at every join attempt, ten times a second) reach
 * the log once a minute rather than each time, with how many times it was left out since: an
 * operator needs the line, not a flood of it.
 *
 * <p>Thread-safety: not thread-safe; confined to a partition's executor.
 */
final class RepeatedWarning {
    static final long INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    private boolean logged;
    private long lastNanos;
    private long suppressed;

    /**
     * Whether to log now, at {@code nowNanos}; -1 if not, else how many times it was left out since
     * it was last logged.
     */
    long due(long nowNanos) {
        if (logged && nowNanos - lastNanos < INTERVAL_NANOS) {
            suppressed++;
            return -1;
        }
        logged = true;
        lastNanos = nowNanos;
        long left = suppressed;
        suppressed = 0;
        return left;
    }
}
