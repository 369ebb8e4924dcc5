package io.neptune.server.internal.replication.protocol;

import io.neptune.server.internal.log.LogRecord;
import java.util.List;

/**
 * What a protocol decision may read of a replica's log: where it starts and ends, which epoch wrote
 * a record, and the records a leader sends next. Read-only: the protocol appends and truncates only
 * by asking its driver to ({@link Ready}).
 */
public interface LogView {
    /** The LSN of the log's last record, 0 if it is empty. */
    long lastLsn();

    /** The epoch of the record at {@code lsn} (0 for LSN 0); {@code lsn} must not be below the log's start. */
    long epochOf(long lsn);

    /** The epoch this replica last persisted (its current epoch). */
    long epoch();

    /** The record at {@code lsn}, which must be in the log (from {@link #startLsn()} to {@link #lastLsn()}). */
    LogRecord record(long lsn);

    /** The LSN of the log's first record (1 until a checkpoint dropped records). */
    long startLsn();

    /**
     * The records one {@code replicate} carries from {@code fromLsn} on, bounded in count and bytes
     * (none if the log ends before it); {@code fromLsn} must not be below {@link #startLsn()}.
     */
    List<LogRecord> batch(long fromLsn);
}
