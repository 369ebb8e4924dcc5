package io.neptune.server.internal.log;

import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The LSNs up to {@link #end} that the service applied and the log lost, and which records may
 * still fill them: a primary's record (epoch at least 1) of an epoch no newer than {@link #epoch},
 * the persisted epoch when the loss was found. See {@link RedoLog#lostTailEnd()}.
 *
 * <p>Thread-safety: not thread-safe; {@link RedoLog} guards it with its lock.
 */
final class LostTail {
    /** No lost tail: every record is admitted. */
    static final LostTail NONE = new LostTail(0, 0);

    private static final Logger logger = LoggerFactory.getLogger(LostTail.class);

    private final long end;
    private final long epoch;
    private boolean reported;

    LostTail(long end, long epoch) {
        this.end = end;
        this.epoch = epoch;
    }

    long end() {
        return end;
    }

    /** Whether {@code record} may take its LSN: past the lost tail, or possibly the write applied there. */
    boolean admits(LogRecord record) {
        return record.lsn() > end || (record.epoch() >= 1 && record.epoch() <= epoch);
    }

    /** The failure for a record {@link #admits} refused, logged at ERROR the first time. */
    LogException refuse(LogRecord record, String name, Path directory) {
        String message = "refused record " + record.lsn() + " of epoch " + record.epoch() + ": the service applied a"
                + " write at that LSN that this log lost (up to LSN " + end + ", epochs 1.." + epoch + "), and this"
                + " record cannot be it; this replica must fetch those records from a peer or be rebuilt";
        if (!reported) {
            reported = true;
            logger.error("{}: [NEP-LOG-002] {} (docs/OPERATIONS.md, 'Machine crashes')", name, message);
        } else {
            logger.debug("{}: {}", name, message);
        }
        return new LogException(directory, message);
    }
}
