package io.neptune.server.internal.log;

import io.neptune.core.NeptuneException;

/**
 * A read of a {@link RedoLog} asked for records below its start: they were dropped after a
 * checkpoint ({@link RedoLog#truncateBefore}). A replica that needs them installs a snapshot instead
 * ({@code docs/protocols/replication.md}, "Snapshots").
 */
public final class LogTruncatedException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final long startLsn;

    /** Creates the exception for a read of {@code lsn} from the log {@code name} that starts at {@code startLsn}. */
    public LogTruncatedException(String name, long lsn, long startLsn) {
        super(name + ": lsn: " + lsn + " (expected: >= " + startLsn + "; truncated below " + startLsn + ")");
        this.startLsn = startLsn;
    }

    /** The LSN of the log's first record: nothing below it can be read. */
    public long startLsn() {
        return startLsn;
    }
}
