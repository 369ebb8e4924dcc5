package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNull;

/**
 * The record just before a {@link RedoLog}'s first one, kept when the records before the log's start
 * were dropped ({@link RedoLog#truncateBefore}, {@link RedoLog#restartAfter}): its LSN, epoch and
 * origin are what log matching compares at the boundary ({@code docs/protocols/replication.md}).
 * {@link #NONE} (LSN 0) is the boundary of a log that starts at LSN 1.
 *
 * @param lsn the LSN of the dropped record just before the log's start, {@code >= 0}
 * @param epoch that record's epoch
 * @param origin the primary that wrote it, or empty if unknown
 */
public record LogBoundary(long lsn, long epoch, String origin) {
    /** The boundary of a log that was never truncated: it starts at LSN 1. */
    public static final LogBoundary NONE = new LogBoundary(0, 0, "");

    public LogBoundary {
        if (lsn < 0) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: >= 0)");
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= 0)");
        }
        requireNonNull(origin, "origin");
    }

    /** The LSN of the log's first record: {@code lsn() + 1}. */
    public long startLsn() {
        return lsn + 1;
    }
}
