package io.neptune.server.internal.replication.protocol;

/** What a protocol decision may read of a replica's log: where it ends and which epoch wrote a record. */
public interface LogView {
    /** The LSN of the log's last record, 0 if it is empty. */
    long lastLsn();

    /** The epoch of the record at {@code lsn} (0 for LSN 0); {@code lsn} must not be below the log's start. */
    long epochOf(long lsn);
}
