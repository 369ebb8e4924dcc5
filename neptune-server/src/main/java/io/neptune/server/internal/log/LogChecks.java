package io.neptune.server.internal.log;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * The argument checks and small rules every {@link Log} applies the same way, so that
 * {@link RedoLog} and the tests' in-memory log refuse the same calls with the same messages.
 */
final class LogChecks {
    private LogChecks() {}

    /**
     * Checks that {@code records} follow each other and the record {@code lastLsn} of {@code lastEpoch}
     * as {@link Log#appendAll} requires.
     *
     * @throws IllegalArgumentException if an LSN or epoch is out of sequence
     */
    static void checkSequence(long lastLsn, long lastEpoch, List<LogRecord> records) {
        long lsn = lastLsn;
        long epoch = lastEpoch;
        for (LogRecord record : records) {
            if (record.lsn() != lsn + 1) {
                throw new IllegalArgumentException(
                        "lsn: " + record.lsn() + " (expected: " + (lsn + 1) + ", the next LSN)");
            }
            if (record.epoch() < epoch) {
                throw new IllegalArgumentException("epoch: " + record.epoch() + " (expected: >= " + epoch
                        + ", the epoch of record " + lsn + ")");
            }
            lsn = record.lsn();
            epoch = record.epoch();
        }
    }

    /**
     * The futures {@link Log#appendAll} returns for {@code count} records of which the first
     * {@code appended} were appended with the future {@code durable} and the others refused with
     * {@code lost} (null if none was).
     */
    static List<CompletableFuture<Void>> futures(int count, int appended, CompletableFuture<Void> durable,
            @Nullable LogException lost) {
        if (lost == null) {
            return Collections.nCopies(count, durable);
        }
        List<CompletableFuture<Void>> done = new ArrayList<>(Collections.nCopies(appended, durable));
        done.addAll(Collections.nCopies(count - appended, CompletableFuture.failedFuture(lost)));
        return done;
    }

    /** Checks the arguments of {@link Log#read}. */
    static void checkRead(long fromLsn, int maxRecords) {
        if (fromLsn < 1) {
            throw new IllegalArgumentException("fromLsn: " + fromLsn + " (expected: >= 1)");
        }
        if (maxRecords < 0) {
            throw new IllegalArgumentException("maxRecords: " + maxRecords + " (expected: >= 0)");
        }
    }

    /** Checks that {@code lsn} may be marked committed in a log whose last record is {@code lastLsn}. */
    static void checkCommittable(long lsn, long lastLsn) {
        if (lsn < 0 || lsn > lastLsn) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: 0.." + lastLsn + ")");
        }
    }

    /** Checks that the records below {@code lsn} may be dropped ({@link Log#truncateBefore}). */
    static void checkDroppable(long lsn, long committedLsn, long lastLsn) {
        if (lsn - 1 > committedLsn || lsn > lastLsn + 1) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: <= " + (committedLsn + 1)
                    + ", above the committed LSN, and <= " + (lastLsn + 1) + ", after the last record)");
        }
    }

    /** Checks that the records after {@code lsn} may be removed ({@link Log#truncateAfter}). */
    static void checkRemovable(long lsn, long committedLsn) {
        if (lsn < committedLsn) {
            throw new IllegalArgumentException(
                    "lsn: " + lsn + " (expected: >= " + committedLsn + ", the committed LSN)");
        }
    }

    /**
     * The request ids a log continuing after {@code boundary} remembers of the snapshot's writes
     * ({@link Log#restartAfter}): {@code requests}, each one's LSN lowered to the boundary's if above.
     *
     * @throws IllegalArgumentException if {@code requests} are not oldest first
     */
    static List<KnownRequest> earlierRequests(LogBoundary boundary, List<KnownRequest> requests) {
        List<KnownRequest> earlier = new ArrayList<>(requests.size());
        long previous = 0;
        for (KnownRequest request : requests) {
            if (request.lsn() < previous) {
                throw new IllegalArgumentException("requests: LSN " + request.lsn() + " after " + previous
                        + " (expected: oldest first)");
            }
            previous = request.lsn();
            earlier.add(request.lsn() <= boundary.lsn() ? request
                    : new KnownRequest(request.id(), Math.max(1, boundary.lsn())));
        }
        return earlier;
    }
}
