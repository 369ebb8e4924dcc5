package io.neptune.server.internal.log;

import io.neptune.core.internal.wire.RequestId;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;

/**
 * The REDO log of one partition replica as the replication code uses it: an append-only sequence
 * of {@link LogRecord}s with contiguous LSNs from {@link #startLsn()}, the persisted epoch, the
 * committed LSN and the most recent request ids. {@link RedoLog} keeps it in files; tests use an
 * in-memory one whose appends become durable when the test says so.
 *
 * <p>What survives a crash: every record whose append's future completed, every epoch
 * {@link #persistEpoch} returned for, and every {@link #truncateAfter}, {@link #truncateBefore} and
 * {@link #restartAfter} that returned. Records appended but not yet durable may be lost, the newest
 * first (a torn tail is cut off when the log is opened again, never replayed). The committed LSN is
 * only a hint after a crash: it may be lower than was marked, and is never above the last record.
 *
 * <p>Left out because the replication protocol does not need them through this abstraction: the
 * files ({@code RedoLog.directory()}, {@code policy()}), the metrics ({@code forces()},
 * {@code forceNanos()}, {@code sizeBytes()}) and opening.
 */
public interface Log extends AutoCloseable {
    /**
     * Whether writing failed: the log then refuses every change until it is opened again (an append
     * it merely refused, see {@link #append}, leaves it usable).
     */
    boolean hasFailed();

    /** The LSN of the last record, 0 if the log is empty. */
    long lastLsn();

    /**
     * The LSN of the first record the log holds: 1 unless records were dropped at the start
     * ({@link #truncateBefore}, {@link #restartAfter}); {@code lastLsn() + 1} if it holds none.
     */
    long startLsn();

    /** The record just before {@link #startLsn()}: {@link LogBoundary#NONE} if the log starts at 1. */
    LogBoundary boundary();

    /** The epoch of the last record, that of the {@link #boundary()} if the log holds none (0 if it is empty). */
    long lastEpoch();

    /** The persisted epoch: the highest ever passed to {@link #persistEpoch}, 0 initially. */
    long epoch();

    /**
     * Durably records {@code epoch}: it survives a crash once this returns. The same epoch again
     * does nothing.
     *
     * @throws IllegalArgumentException if {@code epoch} is negative or lower than {@link #epoch()}
     * @throws LogException if it cannot be written
     */
    void persistEpoch(long epoch);

    /**
     * {@link #persistEpoch}, done on a thread of the log's own if it writes: the epoch survives a crash,
     * and {@link #epoch()} returns it, once the future completed normally. Lets a replica wait for the
     * write without holding its thread ({@code SerialExecutor.resumeAfter}). The same epoch again
     * gives a completed future. This default writes on the calling thread, and throws as
     * {@link #persistEpoch} does.
     *
     * @throws IllegalArgumentException if {@code epoch} is negative or lower than {@link #epoch()}
     */
    default CompletableFuture<Void> persistEpochAsync(long epoch) {
        persistEpoch(epoch);
        return CompletableFuture.completedFuture(null);
    }

    /** The committed LSN: the highest passed to {@link #markCommitted}, lowered to the last record on open. */
    long committedLsn();

    /**
     * Marks the records up to {@code lsn} as committed (executed). Lower values than the current
     * committed LSN are ignored. Persisted lazily: after a crash it is a hint, never above the last record.
     *
     * @throws IllegalArgumentException if {@code lsn} is negative or above {@link #lastLsn()}
     */
    void markCommitted(long lsn);

    /**
     * Sets the committed LSN to {@code lsn}, up or down: for {@link InternalSync}, when the service
     * reports how far it really got. Persisted lazily, like {@link #markCommitted}.
     */
    void resetCommitted(long lsn);

    /**
     * Records that the service applied writes up to {@code lsn}, past this log's end: the log lost
     * their records (written without a force, then a machine crash). Until the log holds them again,
     * an append at one of those LSNs is refused unless its epoch is one of a primary (at least 1) no
     * newer than {@code epoch}, the persisted epoch when the loss was found (see {@link #lostTailEnd()}).
     * For {@link InternalSync}.
     */
    void refuseOtherWritesUpTo(long lsn, long epoch);

    /**
     * The highest LSN the service applied beyond this log's end when the log was opened, or 0 once the
     * log holds records up to it again: the records the log lost there (written without a force, then
     * a machine crash) must come back from a peer, with their original epochs, before this replica may
     * assign new LSNs, that is, lead. Until then an append at one of those LSNs is refused unless its
     * epoch is a primary's (at least 1) no newer than the persisted epoch when the loss was found.
     */
    long lostTailEnd();

    /**
     * Appends {@code record}, which must carry LSN {@code lastLsn() + 1} and an epoch no lower than
     * {@link #lastEpoch()}. The record is readable when this returns, and counts in {@link #lastLsn()}.
     *
     * @return a future that completes when the record is durable (it then survives a crash), or fails
     *     with a {@link LogException} if writing failed (the log then refuses further changes) or if
     *     the record cannot be the write the service applied at its LSN (see {@link #lostTailEnd()};
     *     the log stays usable), or with an {@link IllegalStateException} if the log is closed
     * @throws IllegalArgumentException if the LSN or epoch is out of sequence
     */
    CompletableFuture<Void> append(LogRecord record);

    /**
     * Appends {@code records}, which must follow each other and {@link #lastLsn()} as {@link #append}
     * requires, in one step (one force for all of them where the log batches forces).
     *
     * @return one future per record, as {@link #append} returns; if a record cannot be the write the
     *     service applied at its LSN (see {@link #lostTailEnd()}), those before it are appended and
     *     its future and those after fail
     * @throws IllegalArgumentException if an LSN or epoch is out of sequence; then none is appended
     */
    List<CompletableFuture<Void>> appendAll(List<LogRecord> records);

    /**
     * Returns up to {@code maxRecords} records from {@code fromLsn} on, in LSN order; empty if
     * {@code fromLsn} is past the last record. May return fewer (but at least one) to bound memory;
     * ask again from the next LSN. Records not yet durable are included.
     *
     * @throws IllegalArgumentException if {@code fromLsn < 1} or {@code maxRecords < 0}
     * @throws LogTruncatedException if {@code fromLsn} is below {@link #startLsn()}: those records were dropped
     */
    List<LogRecord> read(long fromLsn, int maxRecords);

    /**
     * Returns record {@code lsn}, or empty if there is none (LSN 0 or past the last record).
     *
     * @throws LogTruncatedException if {@code lsn} is below {@link #startLsn()}
     */
    default Optional<LogRecord> record(long lsn) {
        if (lsn < 1) {
            return Optional.empty();
        }
        List<LogRecord> records = read(lsn, 1);
        return records.isEmpty() ? Optional.empty() : Optional.of(records.get(0));
    }

    /**
     * The epoch of record {@code lsn} (or of the {@link #boundary()}), 0 for LSN 0.
     *
     * @throws LogTruncatedException if {@code lsn} is below the boundary
     * @throws IllegalArgumentException if {@code lsn} is past the last record
     */
    long epochOf(long lsn);

    /**
     * The origin of record {@code lsn} (or of the {@link #boundary()}); empty for LSN 0 or past the
     * last record.
     *
     * @throws LogTruncatedException if {@code lsn} is below the boundary
     */
    default String originOf(long lsn) {
        LogBoundary boundary = boundary();
        if (lsn == 0) {
            return "";
        }
        if (lsn == boundary.lsn()) {
            return boundary.origin();
        }
        return record(lsn).map(LogRecord::origin).orElse("");
    }

    /** Returns the LSN of the first record of request {@code id}, if it is among the most recent ones. */
    OptionalLong lsnOf(RequestId id);

    /**
     * The request ids this log remembers ({@link #lsnOf}) of writes at or below {@code lsn}, oldest
     * first: what a snapshot taken at {@code lsn} carries, so that its installer recognises retries.
     * Ids of records dropped by {@link #truncateBefore} are still remembered.
     */
    List<KnownRequest> requestsUpTo(long lsn);

    /**
     * Durably removes every record after {@code lsn}: the divergent suffix of a deposed primary. Their
     * request ids are forgotten; appends after this call continue at {@code lsn + 1}. Appends of
     * removed records that were not durable yet still complete. Does nothing if
     * {@code lsn >= lastLsn()}.
     *
     * @throws IllegalArgumentException if {@code lsn} is below {@link #committedLsn()}
     * @throws LogTruncatedException if {@code lsn} is below the boundary
     */
    void truncateAfter(long lsn);

    /**
     * Durably drops every record below {@code lsn}, after a checkpoint: {@link #startLsn()} becomes
     * {@code lsn} and the {@link #boundary()} the last dropped record. Their request ids are kept. Does
     * nothing if {@code lsn <= startLsn()}.
     *
     * @throws IllegalArgumentException if {@code lsn - 1} is above {@link #committedLsn()} (only
     *     executed records may be dropped) or {@code lsn} above {@code lastLsn() + 1}
     */
    void truncateBefore(long lsn);

    /**
     * Durably drops every record and continues the log after {@code boundary}: when the service's
     * state was replaced by a snapshot taken at {@code boundary.lsn()}, whose writes' request ids are
     * {@code requests} (oldest first; each one's LSN is kept, or lowered to the boundary's). The log
     * forgets the request ids it knew and remembers these instead; {@link #lostTailEnd()} becomes 0;
     * the committed LSN becomes {@code boundary.lsn()}; the next append must carry LSN
     * {@code boundary.lsn() + 1}.
     *
     * @throws IllegalArgumentException if {@code boundary.lsn()} is below {@code startLsn() - 1}, or
     *     {@code requests} are not oldest first; nothing was changed
     */
    void restartAfter(LogBoundary boundary, List<KnownRequest> requests);

    /** Closes the log after the queued appends are written; idempotent. Appends are then refused. */
    @Override
    void close();
}
