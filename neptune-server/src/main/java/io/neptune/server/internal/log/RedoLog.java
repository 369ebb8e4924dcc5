package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNull;

import io.neptune.core.internal.wire.RequestId;
import io.neptune.server.LogRetentionConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The REDO log of one partition replica (DESIGN §6.5), kept in files: an append-only sequence of
 * {@link LogRecord}s with contiguous LSNs from {@link #startLsn()} (1 until records were dropped at
 * the start after a checkpoint, see {@link #truncateBefore}), the persisted epoch and the committed
 * LSN.
 *
 * <p>Files in the log's directory: {@code redo.log} (see {@link LogFile} and {@link RecordCodec}
 * for the format), {@code meta} (see {@link LogMeta}) and, once records were dropped at the start,
 * {@code request-ids-<LSN>} (see {@link EarlierRequests}). {@link #open} scans the log, truncates a
 * torn or corrupt tail at the first bad record (it is never replayed) and builds the indexes: LSN to
 * file offset, and request id to LSN for the most recent ids (by default
 * {@value #REQUEST_ID_CAPACITY}; the node's {@code request-id-window}), those of writes before the
 * log's start included.
 *
 * <p>Appends are queued for the log's writer, which runs on the threads of a {@link LogWriterPool}
 * (a node's logs share one; a log opened without one gets its own single thread,
 * {@code neptune-log-<directory name>-0}), writes them in LSN order and forces them according to the
 * {@link FsyncPolicy}; the future of an append completes, on a pool thread, when the record is
 * durable by that policy. A record is readable as soon as {@link #append} returns. Callbacks on the
 * futures run on a pool thread, which other logs share, and must not block; {@link #truncateAfter}
 * and {@link #close} from a pool thread are refused or do not wait.
 *
 * <p>Thread-safety: thread-safe. Callers serialize appends per partition (each append names the
 * next LSN). The in-memory state is guarded by one lock that is never held during file I/O; reads
 * of the file run concurrently with the writer.
 */
public final class RedoLog implements Log {
    private static final Logger logger = LoggerFactory.getLogger(RedoLog.class);
    /** How many of the most recent request ids {@link #lsnOf} remembers unless the opener says otherwise. */
    public static final int REQUEST_ID_CAPACITY = LogRetentionConfig.DEFAULT_REQUEST_IDS;
    /** Above this many bytes, {@link #read} returns fewer records than asked for. */
    static final int READ_LIMIT_BYTES = 16 * 1024 * 1024;

    private final Path directory;
    private final String name;
    private final FsyncPolicy policy;
    private final LogFile file;
    private final LogMeta meta;
    private final LogWriter writer;
    /** The pool this log opened for itself, closed with it; null if it writes on a shared one. */
    private final @Nullable LogWriterPool ownPool;
    private final Object lock = new Object();
    // @GuardedBy("lock")
    private final LogIndex index;
    // @GuardedBy("lock"): goes up with every truncation, so a read that raced one can tell
    private long generation;
    // @GuardedBy("lock")
    private boolean closed;
    // @GuardedBy("lock"): see refuseOtherWritesUpTo
    private LostTail lostTail = LostTail.NONE;
    // @GuardedBy("lock"): file offset minus index offset while a compaction is queued (index offsets are the new file's)
    private long fileShift;
    /** Held by a compaction until it is done, so at most one is queued at a time. */
    private final Object compactionLock = new Object();

    private RedoLog(Path directory, FsyncPolicy policy, LogFile file, LogMeta meta, LogIndex index,
            LogWriterPool pool, @Nullable LogWriterPool ownPool) {
        this.directory = directory;
        this.name = directory.toString();
        this.policy = policy;
        this.file = file;
        this.meta = meta;
        this.index = index;
        this.ownPool = ownPool;
        this.writer = new LogWriter(name, pool, policy, file, meta);
    }

    /**
     * Opens the log in {@code directory} like {@link #open(Path, FsyncPolicy, LogWriterPool, int)}, with a
     * writer thread of its own ({@code neptune-log-<directory name>-0}) that ends when the log is
     * closed: for a log on its own (tools, tests, benchmarks). A node's logs share a pool instead.
     */
    public static RedoLog open(Path directory, FsyncPolicy policy) {
        requireNonNull(directory, "directory");
        Path fileName = directory.getFileName();
        LogWriterPool own = new LogWriterPool("neptune-log-" + (fileName == null ? directory : fileName), 1);
        try {
            return open(directory, policy, own, own, REQUEST_ID_CAPACITY);
        } catch (RuntimeException e) {
            own.close();
            throw e;
        }
    }

    /**
     * Opens the log in {@code directory}, creating the directory and an empty log if needed, and
     * recovers it: a torn or corrupt tail is cut off (logged at WARN), the committed LSN is lowered
     * to the last record if it points past it, and the file and directory are forced, so every
     * record the log holds when this returns is durable whatever the policy it was written with.
     *
     * <p>The log is written on {@code pool}'s threads, which it shares with the other logs opened on
     * it; close the pool after the logs. It remembers the request ids of its last {@code requestIds}
     * writes ({@link #lsnOf}; 1 to {@link LogRetentionConfig#MAX_REQUEST_IDS}).
     *
     * @throws LogException if the files cannot be read or written, or are not a log of this format
     */
    public static RedoLog open(Path directory, FsyncPolicy policy, LogWriterPool pool, int requestIds) {
        return open(directory, policy, requireNonNull(pool, "pool"), null, requestIds);
    }

    private static RedoLog open(Path directory, FsyncPolicy policy, LogWriterPool pool,
            @Nullable LogWriterPool ownPool, int requestIds) {
        requireNonNull(directory, "directory");
        requireNonNull(policy, "policy");
        LogFile file = null;
        try {
            AtomicFiles.createDirectories(directory);
            LogMeta meta = LogMeta.load(directory);
            file = LogFile.open(directory);
            LogIndex index = new LogIndex(file.boundary(), file.headerBytes(), requestIds);
            EarlierRequests.read(directory, file.boundary()).forEach(index::addEarlier);
            LogFile.Scan scan = file.scan((record, offset, frameBytes) ->
                    index.add(record.lsn(), record.epoch(), record.requestId(), offset, frameBytes));
            if (scan.hasBadTail()) {
                logger.warn("{}: truncated {} bytes at offset {}, after LSN {}: {}", directory,
                        scan.fileSize() - scan.validEnd(), scan.validEnd(), index.lastLsn(), scan.problem());
                file.truncate(scan.validEnd());
            }
            if (meta.committedLsn() > index.lastLsn()) {
                logger.warn("{}: committed LSN {} is past the last record {}; lowered to it", directory,
                        meta.committedLsn(), index.lastLsn());
                meta.clampCommitted(index.lastLsn());
                meta.flush();
            }
            forceOnOpen(directory, file);
            RedoLog log = new RedoLog(directory, policy, file, meta, index, pool, ownPool);
            pool.logOpened();
            log.writer.whenEnded(pool::logClosed);
            logger.info("{}: opened with records {}..{}, last epoch {}, epoch {}, committed LSN {}, fsync {}", directory,
                    index.startLsn(), index.lastLsn(), index.lastEpoch(), meta.epoch(), meta.committedLsn(),
                    policy.configName());
            return log;
        } catch (IOException | RuntimeException e) {
            closeQuietly(file, e);
            if (e instanceof LogException logException) {
                throw logException;
            }
            throw new LogException(directory, "cannot open the log", e);
        }
    }

    /**
     * Forces what this open read back before anything is reported durable: the file may hold records
     * a killed process wrote but never forced ({@code log-sync: none}, or a group commit cut short),
     * which are only in the page cache and would be lost in a power cut after this replica had
     * acknowledged or counted them. The directory is forced too, so that a file or meta file a
     * killed process created or renamed is durable as seen ({@link AtomicFiles#createDirectories}
     * made the path to it durable).
     */
    private static void forceOnOpen(Path directory, LogFile file) throws IOException {
        file.forceAll();
        AtomicFiles.forceDirectory(directory.toAbsolutePath());
    }

    private static void closeQuietly(@Nullable LogFile file, Exception failure) {
        if (file != null) {
            try {
                file.close();
            } catch (IOException e) {
                failure.addSuppressed(e);
            }
        }
    }

    /**
     * Whether writing failed: the log then refuses every change until it is opened again (an append
     * it merely refused, see {@link #append}, leaves it usable).
     */
    @Override
    public boolean hasFailed() {
        return writer.failure() != null;
    }

    /** The log's directory. */
    public Path directory() {
        return directory;
    }

    /** The fsync policy the log was opened with. */
    public FsyncPolicy policy() {
        return policy;
    }

    /** The LSN of the last record, 0 if the log is empty. */
    @Override
    public long lastLsn() {
        synchronized (lock) {
            return index.lastLsn();
        }
    }

    /**
     * The LSN of the first record the log holds: 1 unless records were dropped at the start
     * ({@link #truncateBefore}, {@link #restartAfter}); {@code lastLsn() + 1} if it holds none.
     */
    @Override
    public long startLsn() {
        synchronized (lock) {
            return index.startLsn();
        }
    }

    /** The record just before {@link #startLsn()}: {@link LogBoundary#NONE} if the log starts at 1. */
    @Override
    public LogBoundary boundary() {
        return file.boundary();
    }

    /** The epoch of the last record, that of the {@link #boundary()} if the log holds none (0 if it is empty). */
    @Override
    public long lastEpoch() {
        synchronized (lock) {
            return index.lastEpoch();
        }
    }

    /** The persisted epoch: the highest ever passed to {@link #persistEpoch}, 0 initially. */
    @Override
    public long epoch() {
        return meta.epoch();
    }

    /**
     * Durably records {@code epoch} (the meta file is replaced and forced before this returns).
     *
     * @throws IllegalArgumentException if {@code epoch} is lower than {@link #epoch()}
     * @throws LogException if the meta file cannot be written
     */
    @Override
    public void persistEpoch(long epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= 0)");
        }
        checkOpen();
        try {
            if (meta.persistEpoch(epoch)) {
                logger.info("{}: persisted epoch {}", name, epoch);
            }
        } catch (IOException e) {
            throw new LogException(directory, "cannot persist epoch " + epoch, e);
        }
    }

    /**
     * {@link #persistEpoch} on the log's writer, queued behind the appends before it: the meta file is
     * replaced and forced on a {@link LogWriterPool} thread. The same epoch again completes at once.
     * A log whose writer failed writes it in place, as {@link #persistEpoch} does: the writer takes no
     * more work, and the meta file never depended on the log file it failed on.
     *
     * @throws IllegalArgumentException if {@code epoch} is lower than {@link #epoch()}
     */
    @Override
    public CompletableFuture<Void> persistEpochAsync(long epoch) {
        if (epoch < meta.epoch()) {
            throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= " + meta.epoch()
                    + ", the persisted epoch)");
        }
        checkOpen();
        if (epoch == meta.epoch()) {
            return CompletableFuture.completedFuture(null);
        }
        if (hasFailed()) {
            persistEpoch(epoch);
            return CompletableFuture.completedFuture(null);
        }
        return writer.persistEpoch(epoch);
    }

    /** The committed LSN: the highest passed to {@link #markCommitted}, lowered to the last record on open. */
    @Override
    public long committedLsn() {
        return meta.committedLsn();
    }

    /**
     * Marks the records up to {@code lsn} as committed (executed). Lower values than the current
     * committed LSN are ignored. Persisted lazily, within {@value LogWriter#META_FLUSH_MILLIS} ms or on
     * close: recovery uses it only as a hint, checking uncommitted records with the service.
     *
     * @throws IllegalArgumentException if {@code lsn} is above {@link #lastLsn()}
     */
    @Override
    public void markCommitted(long lsn) {
        synchronized (lock) {
            checkOpen();
            LogChecks.checkCommittable(lsn, index.lastLsn());
            if (meta.advanceCommitted(lsn)) {
                writer.metaChanged();
            }
        }
    }

    /**
     * Sets the committed LSN to {@code lsn}, up or down: for {@link InternalSync}, when the service
     * reports how far it really got. Persisted lazily, like {@link #markCommitted}.
     */
    @Override
    public void resetCommitted(long lsn) {
        synchronized (lock) {
            checkOpen();
            LogChecks.checkCommittable(lsn, index.lastLsn());
            if (meta.resetCommitted(lsn)) {
                writer.metaChanged();
            }
        }
    }

    /**
     * Records that the service applied writes up to {@code lsn}, past this log's end: the log lost
     * their records (written with {@code log-sync: none}, then a machine crash). Until the log holds
     * them again, an append at one of those LSNs is refused unless its epoch is one of a primary
     * (at least 1) no newer than {@code epoch}, the persisted epoch when the loss was found: a
     * record of a newer epoch, or a level-1 record (epoch 0), cannot be the write the service
     * applied there, and accepting it would skip it here while the other replicas execute it.
     */
    @Override
    public void refuseOtherWritesUpTo(long lsn, long epoch) {
        synchronized (lock) {
            lostTail = new LostTail(lsn, epoch);
        }
    }

    /**
     * The highest LSN the service applied beyond this log's end when the log was opened, or 0: the
     * records the log lost there must come back from a peer (with their original epochs) before this
     * replica may assign new LSNs, that is, lead. Appends that cannot be those records are refused.
     */
    @Override
    public long lostTailEnd() {
        synchronized (lock) {
            return lostTail.end() > index.lastLsn() ? lostTail.end() : 0;
        }
    }

    /**
     * Appends {@code record}, which must carry LSN {@code lastLsn() + 1} and an epoch no lower than
     * {@link #lastEpoch()}. The record is readable when this returns.
     *
     * @return a future that completes when the record is durable by the {@link FsyncPolicy}, or fails
     *     with a {@link LogException} if writing failed (the log then refuses further changes) or if
     *     the record cannot be the write the service applied at its LSN (see {@link #lostTailEnd()};
     *     the log stays usable), or with an {@link IllegalStateException} if the log is closed
     * @throws IllegalArgumentException if the LSN or epoch is out of sequence or a field is too large
     */
    @Override
    public CompletableFuture<Void> append(LogRecord record) {
        return appendAll(List.of(requireNonNull(record, "record"))).get(0);
    }

    /**
     * Appends {@code records}, which must follow each other and {@link #lastLsn()} as {@link #append}
     * requires, in one step: the writer sees them together, so under {@link FsyncPolicy#GROUP} they
     * are written with one force (appended one by one, the writer wakes at the first and forces again
     * for the rest). A follower appends each batch from its primary this way.
     *
     * @return one future per record, as {@link #append} returns, completed when every appended
     *     record of the call is durable (the records appended together share one future object); if a
     *     record cannot be the write the service applied at its LSN (see {@link #lostTailEnd()}),
     *     those before it are appended and its future and those after fail
     * @throws IllegalArgumentException if an LSN or epoch is out of sequence or a field is too large;
     *     then none of {@code records} is appended
     */
    @Override
    public List<CompletableFuture<Void>> appendAll(List<LogRecord> records) {
        List<byte[]> frames = new ArrayList<>(records.size());
        for (LogRecord record : records) {
            frames.add(RecordCodec.encode(requireNonNull(record, "record")));
        }
        synchronized (lock) {
            RuntimeException refusal = closed ? new IllegalStateException(name + ": closed") : writer.failure();
            if (refusal != null) {
                return Collections.nCopies(records.size(), CompletableFuture.failedFuture(refusal));
            }
            LogChecks.checkSequence(index.lastLsn(), index.lastEpoch(), records);
            CompletableFuture<Void> durable = new CompletableFuture<>();   // the batch's: see LogWriter.Append
            List<LogWriter.Append> appends = new ArrayList<>(records.size());
            LogException lost = null;
            for (LogRecord record : records) {
                if (!lostTail.admits(record)) {
                    lost = lostTail.refuse(record, name, directory);
                    break;
                }
                byte[] frame = frames.get(appends.size());
                long offset = index.end();
                index.add(record.lsn(), record.epoch(), record.requestId(), offset, frame.length);
                appends.add(new LogWriter.Append(record.lsn(), offset, frame, durable));
            }
            writer.appendAll(appends);
            return LogChecks.futures(records.size(), appends.size(), durable, lost);
        }
    }

    /**
     * Returns up to {@code maxRecords} records from {@code fromLsn} on, in LSN order; empty if
     * {@code fromLsn} is past the last record. Returns fewer (but at least one) when the records
     * span more than 16 MiB, to bound memory; ask again from the next LSN.
     *
     * @throws LogTruncatedException if {@code fromLsn} is below {@link #startLsn()}: those records were dropped
     * @throws LogException if the file cannot be read or a record in it no longer checks out
     */
    @Override
    public List<LogRecord> read(long fromLsn, int maxRecords) {
        LogChecks.checkRead(fromLsn, maxRecords);
        while (true) {
            ReadPlan plan = plan(fromLsn, maxRecords);
            if (plan == null) {
                return List.of();
            }
            List<LogRecord> records = new ArrayList<>();
            try {
                if (plan.fileTo >= fromLsn) {
                    ByteBuffer bytes = file.read(plan.fileStart + plan.fileShift, (int) (plan.fileEnd - plan.fileStart));
                    for (long lsn = fromLsn; lsn <= plan.fileTo; lsn++) {
                        records.add(RecordCodec.decodeFrame(bytes, lsn));
                    }
                }
                long lsn = plan.fileTo + 1;
                for (LogWriter.Append append : plan.unwritten) {
                    records.add(RecordCodec.decodeFrame(ByteBuffer.wrap(append.frame()), lsn++));
                }
                if (isCurrent(plan.generation)) {
                    return records;
                }
            } catch (IOException | IllegalArgumentException e) {
                if (isCurrent(plan.generation)) {
                    throw new LogException(directory, "cannot read records from " + fromLsn, e);
                }
            }
            // a truncation changed the records under us: read again
        }
    }

    /**
     * The epoch of record {@code lsn} (or of the {@link #boundary()}), 0 for LSN 0, read from the
     * in-memory index (no disk access).
     *
     * @throws LogTruncatedException if {@code lsn} is below the boundary
     */
    @Override
    public long epochOf(long lsn) {
        if (lsn == 0) {
            return 0;
        }
        synchronized (lock) {
            if (lsn < index.startLsn() - 1) {
                throw new LogTruncatedException(name, lsn, index.startLsn());
            }
            return index.epochOf(lsn);
        }
    }

    /**
     * Durably drops every record below {@code lsn}: after a checkpoint, when the service's state
     * holds their writes durably and no replica that is still served from this log needs them. The
     * kept records are copied to a new file that replaces the log's by atomic rename, with a header
     * naming the {@link #boundary()} (the last dropped record's LSN, epoch and origin) for log
     * matching; appends and reads go on meanwhile. The request ids of the dropped records are kept
     * first ({@link EarlierRequests}); if they cannot be, nothing is dropped (logged at WARN). Does
     * nothing if {@code lsn <= startLsn()}.
     *
     * @throws IllegalArgumentException if {@code lsn - 1} is above {@link #committedLsn()} (only
     *     executed records may be dropped) or {@code lsn} above {@code lastLsn() + 1}
     * @throws IllegalStateException if called from a pool thread (a future's callback)
     * @throws LogException if the files cannot be written; the log then refuses changes until reopened
     */
    @Override
    public void truncateBefore(long lsn) {
        synchronized (compactionLock) {
            if (lsn <= startLsn()) {
                return;
            }
            LogChecks.checkDroppable(lsn, meta.committedLsn(), lastLsn());
            LogRecord last = record(lsn - 1).orElseThrow();   // committed: no truncateAfter can take it
            LogBoundary boundary = new LogBoundary(lsn - 1, last.epoch(), last.origin());
            try {
                EarlierRequests.write(directory, boundary, requestsUpTo(lsn - 1));
            } catch (IOException e) {
                // cutting now would forget them after a restart, and a retry of one of those writes would run again
                logger.warn("{}: cannot keep the request ids below LSN {}; not dropping records: {}", name, lsn,
                        e.toString());
                return;
            }
            long dropped = compact(boundary, false);
            deleteOtherEarlierRequests(boundary);
            logger.info("{}: dropped {} records below LSN {}", name, dropped, lsn);
        }
    }

    /**
     * The request ids this log remembers ({@link #lsnOf}) of writes at or below {@code lsn}, oldest
     * first: what a snapshot taken at {@code lsn} carries, so that its installer recognises retries.
     */
    @Override
    public List<KnownRequest> requestsUpTo(long lsn) {
        synchronized (lock) {
            return index.requestsUpTo(lsn);
        }
    }

    /** Deletes the request ids kept for boundaries the log no longer has; a failure only leaves garbage. */
    private void deleteOtherEarlierRequests(LogBoundary boundary) {
        try {
            EarlierRequests.deleteOthers(directory, boundary);
        } catch (IOException e) {
            logger.warn("{}: cannot delete old request-id files: {}", name, e.toString());
        }
    }

    /**
     * Durably drops every record and continues the log after {@code boundary}: when the service's
     * state was replaced by a snapshot taken at {@code boundary.lsn()}, whose last write had that
     * epoch and origin, and whose writes' request ids are {@code requests} (oldest first; each one's
     * LSN is kept, or lowered to the boundary's). The log forgets the request ids it knew and
     * remembers these instead. The committed mark becomes {@code boundary.lsn()}; the next append
     * must carry LSN {@code boundary.lsn() + 1}.
     *
     * @throws IllegalArgumentException if {@code boundary.lsn()} is below {@code startLsn() - 1}, or
     *     {@code requests} are not oldest first; nothing was changed
     * @throws IllegalStateException if called from a pool thread (a future's callback)
     * @throws LogException if the files cannot be written; the log then refuses changes until reopened
     */
    @Override
    public void restartAfter(LogBoundary boundary, List<KnownRequest> requests) {
        requireNonNull(boundary, "boundary");
        List<KnownRequest> earlier = LogChecks.earlierRequests(boundary, requests);
        synchronized (compactionLock) {
            if (boundary.lsn() > 0) {
                try {
                    EarlierRequests.write(directory, boundary, earlier);
                } catch (IOException e) {
                    throw new LogException(directory, "cannot keep the request ids before LSN " + boundary.startLsn(),
                            e);
                }
            }
            long dropped = compact(boundary, true);
            synchronized (lock) {
                lostTail = LostTail.NONE;
                meta.resetCommitted(boundary.lsn());
                writer.metaChanged();
                index.forgetRequestIds();
                if (boundary.lsn() > 0) {
                    earlier.forEach(index::addEarlier);
                }
            }
            deleteOtherEarlierRequests(boundary);
            logger.info("{}: dropped all {} records; the log continues after LSN {} (epoch {})", name, dropped,
                    boundary.lsn(), boundary.epoch());
        }
    }

    /** Queues the compaction to {@code boundary} and waits for it; returns how many records it dropped. */
    private long compact(LogBoundary boundary, boolean all) {
        if (writer.isWriterThread()) {
            throw new IllegalStateException(name + ": dropping records on a log writer thread would wait for the log"
                    + " writers");
        }
        CompletableFuture<Void> done;
        long dropped;
        synchronized (lock) {
            checkOpen();
            LogException failure = writer.failure();
            if (failure != null) {
                throw failure;
            }
            long base = index.startLsn() - 1;
            if (boundary.lsn() < base) {
                throw new IllegalArgumentException(
                        "boundary lsn: " + boundary.lsn() + " (expected: >= " + base + ", the log's boundary)");
            }
            dropped = all ? index.lastLsn() - base : boundary.lsn() - base;
            if (all) {
                index.truncateAfter(base);
            }
            long cutOffset = all ? Long.MAX_VALUE : index.offsetOf(boundary.lsn() + 1);
            int headerBytes = LogFile.headerBytes(boundary);
            long shift = all ? 0 : cutOffset - headerBytes;
            index.dropBefore(boundary, headerBytes);
            fileShift += shift;
            generation++;
            done = writer.compact(cutOffset, boundary, install -> {
                synchronized (lock) {
                    install.run();
                    fileShift -= shift;
                    generation++;
                }
            }, all);
        }
        await(done, "cannot drop the records up to LSN " + boundary.lsn());
        return dropped;
    }

    /** Returns the LSN of the first record of request {@code id}, if it is among the most recent ones. */
    @Override
    public OptionalLong lsnOf(RequestId id) {
        requireNonNull(id, "id");
        synchronized (lock) {
            return index.lsnOf(id);
        }
    }

    /**
     * Durably removes every record after {@code lsn}: the divergent suffix of a deposed primary.
     * Appends queued before still complete (they become durable, then removed); appends after this
     * call continue at {@code lsn + 1}. Does nothing if {@code lsn >= lastLsn()}.
     *
     * @throws IllegalArgumentException if {@code lsn} is below {@link #committedLsn()}
     * @throws IllegalStateException if called from a pool thread (a future's callback)
     * @throws LogException if the file cannot be truncated
     */
    @Override
    public void truncateAfter(long lsn) {
        if (writer.isWriterThread()) {
            throw new IllegalStateException(name + ": truncateAfter on a log writer thread would wait for the log"
                    + " writers");
        }
        CompletableFuture<Void> done;
        long removed;
        synchronized (lock) {
            checkOpen();
            LogException failure = writer.failure();
            if (failure != null) {
                throw failure;
            }
            LogChecks.checkRemovable(lsn, meta.committedLsn());
            if (lsn < index.startLsn() - 1) {
                throw new LogTruncatedException(name, lsn, index.startLsn());
            }
            if (lsn >= index.lastLsn()) {
                return;
            }
            removed = index.lastLsn() - lsn;
            long size = index.offsetOf(lsn + 1);
            index.truncateAfter(lsn);
            generation++;
            done = writer.truncate(lsn, size);
        }
        await(done, "cannot truncate after LSN " + lsn);
        logger.info("{}: truncated {} records after LSN {}", name, removed, lsn);
    }

    /** How often the log file was forced (after appends and truncations); a metric, and for group-commit tests. */
    public long forces() {
        return writer.forces();
    }

    /** The time forcing the log file after appends took, in nanoseconds, since it was opened; a metric. */
    public long forceNanos() {
        return writer.forceNanos();
    }

    /** The log file's size in bytes; 0 if it cannot be read (a metric must not fail). */
    public long sizeBytes() {
        try {
            return Files.size(file.path());
        } catch (IOException e) {
            return 0;
        }
    }

    /**
     * Stops the writer after it has written the queued appends, writes the meta file and closes the
     * files, and ends the log's own writer thread if it has one; idempotent. Called from a pool thread
     * (a future's callback), it does not wait.
     */
    @Override
    public void close() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        writer.stop();
        if (!writer.isWriterThread()) {
            writer.join();
        }
        if (ownPool != null) {
            writer.whenEnded(ownPool::close);   // not before: the writer's last drain still needs the thread
        }
        logger.info("{}: closed at LSN {} (records from {}), committed LSN {}", name, lastLsn(), startLsn(),
                meta.committedLsn());
    }

    @Override
    public String toString() {
        return "RedoLog[" + name + ", " + policy.configName() + "]";
    }

    private @Nullable ReadPlan plan(long fromLsn, int maxRecords) {
        synchronized (lock) {
            checkOpen();
            long last = index.lastLsn();
            if (fromLsn < index.startLsn()) {
                throw new LogTruncatedException(name, fromLsn, index.startLsn());
            }
            if (maxRecords == 0 || fromLsn > last) {
                return null;
            }
            long to = Math.min(last, fromLsn - 1 + maxRecords);
            List<LogWriter.Append> unwritten = writer.unwritten(fromLsn, to);   // a suffix of fromLsn..to
            long fileTo = unwritten.isEmpty() ? to : unwritten.get(0).lsn() - 1;
            if (fileTo < fromLsn) {
                return new ReadPlan(generation, fileTo, 0, 0, 0, unwritten);
            }
            long cappedTo = index.lastWithin(fromLsn, fileTo, READ_LIMIT_BYTES);
            return new ReadPlan(generation, cappedTo, index.offsetOf(fromLsn), index.offsetOf(cappedTo + 1), fileShift,
                    cappedTo == fileTo ? unwritten : List.of());
        }
    }

    private boolean isCurrent(long planGeneration) {
        synchronized (lock) {
            return generation == planGeneration;
        }
    }

    private void checkOpen() {
        synchronized (lock) {
            if (closed) {
                throw new IllegalStateException(name + ": closed");
            }
        }
    }

    private void await(CompletableFuture<Void> done, String what) {
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    done.get();
                    return;
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    throw cause instanceof LogException logException ? logException
                            : new LogException(directory, what, cause == null ? e : cause);
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** What {@link #read} takes from the file ({@code fromLsn..fileTo}) and from memory. */
    private record ReadPlan(long generation, long fileTo, long fileStart, long fileEnd, long fileShift,
            List<LogWriter.Append> unwritten) {}
}
