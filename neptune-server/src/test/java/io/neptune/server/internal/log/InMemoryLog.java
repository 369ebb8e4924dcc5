package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNull;

import io.neptune.core.internal.wire.RequestId;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A {@link Log} in memory for tests and the deterministic simulation: no threads, no clock, no
 * files. An append is readable at once and durable only when the test says the log was forced
 * ({@link #force()}, {@link #forceUpTo}); its future then completes on the calling thread. A
 * {@link #crash} loses what was not durable, as a machine crash does, and leaves the log as
 * {@link RedoLog#open} would find it; {@link #close()} then {@link #reopen()} is a clean restart.
 *
 * <p>Like {@link RedoLog}: records appended together share one future, which completes once the
 * last of them is durable; {@link #truncateAfter}, {@link #truncateBefore}, {@link #restartAfter}
 * and {@link #close} make every queued record durable first (the writer drains before it cuts); the
 * committed LSN is persisted lazily, here when the log is forced, truncated or closed.
 *
 * <p>Unlike {@link RedoLog}: {@link #read} has no byte limit, {@link #hasFailed()} is always false
 * (writing cannot fail), and the futures of records lost in a crash never complete (their process
 * is gone).
 *
 * <p>Thread-safety: not thread-safe; confine it to one thread.
 */
public final class InMemoryLog implements Log {
    private final String name;
    private final int requestIds;
    /** The records from {@code boundary.lsn() + 1} on. */
    private final List<LogRecord> records = new ArrayList<>();
    /** The futures of appends not yet durable, oldest first, each with the last LSN of its call. */
    private final List<Pending> pending = new ArrayList<>();
    private RequestIdWindow ids;
    private LogBoundary boundary = LogBoundary.NONE;
    private long durableLsn;
    private long epoch;
    private long committedLsn;
    private long persistedCommittedLsn;
    private LostTail lostTail = LostTail.NONE;
    private boolean closed;
    /** Where {@link #persistEpochAsync} hands its write, to be run later; null: it writes at once. */
    private @Nullable Consumer<Runnable> epochWrites;

    /** An empty log that remembers the request ids of its last {@code requestIds} writes. */
    public InMemoryLog(String name, int requestIds) {
        this.name = requireNonNull(name, "name");
        this.requestIds = requestIds;
        this.ids = new RequestIdWindow(requestIds);
    }

    /** An empty log that remembers as many request ids as {@link RedoLog} does by default. */
    public InMemoryLog(String name) {
        this(name, RedoLog.REQUEST_ID_CAPACITY);
    }

    // --- what the test controls ---------------------------------------------------------------

    /**
     * Makes {@link #persistEpochAsync} hand each write of a new epoch to {@code writes}, which runs it
     * later (a simulation's fsync event), or never if the process crashes first: the epoch is then
     * lost, as an unforced write is. Until it runs, {@link #epoch()} stays where it was.
     */
    public void writeEpochsThrough(Consumer<Runnable> writes) {
        this.epochWrites = requireNonNull(writes, "writes");
    }

    /** Makes every record durable and completes their futures: a force of the whole log. */
    public void force() {
        forceUpTo(lastLsn());
    }

    /**
     * Makes the records up to {@code lsn} durable, as a force that covered only them, and completes
     * the futures of the appends whose records are all durable now.
     */
    public void forceUpTo(long lsn) {
        checkOpen();
        if (lsn > lastLsn()) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: <= " + lastLsn() + ", the last record)");
        }
        durableLsn = Math.max(durableLsn, lsn);
        persistedCommittedLsn = Math.min(committedLsn, durableLsn);
        while (!pending.isEmpty() && pending.get(0).lastLsn <= durableLsn) {
            pending.remove(0).future.complete(null);
        }
    }

    /** The highest LSN that survives a crash now. */
    public long durableLsn() {
        return durableLsn;
    }

    /**
     * A machine crash and the open after it: every record that was not durable is lost, except with
     * {@code tornTail} the writes had reached the disk but for the last record, torn in the middle,
     * which the open cuts off (so the records between the durable LSN and it survive: a process can
     * find records after a restart that it never saw acknowledged). The persisted epoch survives;
     * the committed LSN falls back to what was persisted, at most the last record. The log is open
     * afterwards, every record it holds durable.
     */
    public void crash(boolean tornTail) {
        long survives = tornTail ? Math.max(durableLsn, lastLsn() - 1) : durableLsn;
        cutAfter(survives);
        pending.clear();   // never complete: the process that waited for them is gone
        durableLsn = lastLsn();
        committedLsn = Math.min(persistedCommittedLsn, lastLsn());
        persistedCommittedLsn = committedLsn;
        lostTail = LostTail.NONE;
        closed = false;
    }

    /** Opens the log again after {@link #close()}: it holds what it held, all of it durable. */
    public void reopen() {
        if (!closed) {
            throw new IllegalStateException(name + ": open (expected: closed)");
        }
        closed = false;
        lostTail = LostTail.NONE;
    }

    /** As {@code RedoLog.refuseOtherWritesUpTo}: the service applied writes up to {@code lsn} that this log lost. */
    @Override
    public void refuseOtherWritesUpTo(long lsn, long epoch) {
        lostTail = new LostTail(lsn, epoch);
    }

    // --- Log --------------------------------------------------------------------------------------

    @Override
    public boolean hasFailed() {
        return false;
    }

    @Override
    public long lastLsn() {
        return boundary.lsn() + records.size();
    }

    @Override
    public long startLsn() {
        return boundary.lsn() + 1;
    }

    @Override
    public LogBoundary boundary() {
        return boundary;
    }

    @Override
    public long lastEpoch() {
        return records.isEmpty() ? boundary.epoch() : records.get(records.size() - 1).epoch();
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public void persistEpoch(long epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= 0)");
        }
        checkOpen();
        if (epoch < this.epoch) {
            throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= " + this.epoch
                    + ", the persisted epoch)");
        }
        this.epoch = epoch;
    }

    @Override
    public CompletableFuture<Void> persistEpochAsync(long epoch) {
        Consumer<Runnable> writes = epochWrites;
        if (writes == null || epoch == this.epoch) {
            persistEpoch(epoch);
            return CompletableFuture.completedFuture(null);
        }
        checkOpen();
        if (epoch < this.epoch) {
            throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= " + this.epoch
                    + ", the persisted epoch)");
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        writes.accept(() -> {
            this.epoch = Math.max(this.epoch, epoch);
            done.complete(null);
        });
        return done;
    }

    @Override
    public long committedLsn() {
        return committedLsn;
    }

    @Override
    public void markCommitted(long lsn) {
        checkOpen();
        LogChecks.checkCommittable(lsn, lastLsn());
        committedLsn = Math.max(committedLsn, lsn);
    }

    @Override
    public void resetCommitted(long lsn) {
        checkOpen();
        LogChecks.checkCommittable(lsn, lastLsn());
        committedLsn = lsn;
    }

    @Override
    public long lostTailEnd() {
        return lostTail.end() > lastLsn() ? lostTail.end() : 0;
    }

    @Override
    public CompletableFuture<Void> append(LogRecord record) {
        return appendAll(List.of(requireNonNull(record, "record"))).get(0);
    }

    @Override
    public List<CompletableFuture<Void>> appendAll(List<LogRecord> batch) {
        batch.forEach(record -> requireNonNull(record, "record"));
        if (closed) {
            return Collections.nCopies(batch.size(),
                    CompletableFuture.failedFuture(new IllegalStateException(name + ": closed")));
        }
        LogChecks.checkSequence(lastLsn(), lastEpoch(), batch);
        CompletableFuture<Void> durable = new CompletableFuture<>();
        int appended = 0;
        LogException lost = null;
        for (LogRecord record : batch) {
            if (!lostTail.admits(record)) {
                lost = lostTail.refuse(record, name, Path.of(name));
                break;
            }
            records.add(record);
            ids.addIfAbsent(record.requestId(), record.lsn());
            appended++;
        }
        if (appended > 0) {
            pending.add(new Pending(lastLsn(), durable));
        }
        return LogChecks.futures(batch.size(), appended, durable, lost);
    }

    @Override
    public List<LogRecord> read(long fromLsn, int maxRecords) {
        LogChecks.checkRead(fromLsn, maxRecords);
        checkOpen();
        if (fromLsn < startLsn()) {
            throw new LogTruncatedException(name, fromLsn, startLsn());
        }
        int from = (int) Math.min(records.size(), fromLsn - startLsn());
        int to = (int) Math.min(records.size(), (long) from + maxRecords);
        return List.copyOf(records.subList(from, to));
    }

    @Override
    public long epochOf(long lsn) {
        if (lsn == 0) {
            return 0;
        }
        if (lsn < boundary.lsn()) {
            throw new LogTruncatedException(name, lsn, startLsn());
        }
        if (lsn > lastLsn()) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: " + boundary.lsn() + ".." + lastLsn() + ")");
        }
        return lsn == boundary.lsn() ? boundary.epoch() : recordAt(lsn).epoch();
    }

    @Override
    public OptionalLong lsnOf(RequestId id) {
        long lsn = ids.lsnOf(requireNonNull(id, "id"));
        return lsn < 0 ? OptionalLong.empty() : OptionalLong.of(lsn);
    }

    @Override
    public List<KnownRequest> requestsUpTo(long lsn) {
        return ids.upTo(lsn);
    }

    @Override
    public void truncateAfter(long lsn) {
        checkOpen();
        LogChecks.checkRemovable(lsn, committedLsn);
        if (lsn < boundary.lsn()) {
            throw new LogTruncatedException(name, lsn, startLsn());
        }
        if (lsn >= lastLsn()) {
            return;
        }
        drain();
        cutAfter(lsn);
        durableLsn = lastLsn();
    }

    @Override
    public void truncateBefore(long lsn) {
        if (lsn <= startLsn()) {
            return;
        }
        checkOpen();
        LogChecks.checkDroppable(lsn, committedLsn, lastLsn());
        drain();
        LogRecord last = recordAt(lsn - 1);
        records.subList(0, (int) (lsn - startLsn())).clear();
        boundary = new LogBoundary(lsn - 1, last.epoch(), last.origin());
    }

    @Override
    public void restartAfter(LogBoundary boundary, List<KnownRequest> requests) {
        requireNonNull(boundary, "boundary");
        List<KnownRequest> earlier = LogChecks.earlierRequests(boundary, requests);
        checkOpen();
        if (boundary.lsn() < this.boundary.lsn()) {
            throw new IllegalArgumentException("boundary lsn: " + boundary.lsn() + " (expected: >= "
                    + this.boundary.lsn() + ", the log's boundary)");
        }
        drain();
        records.clear();
        this.boundary = boundary;
        durableLsn = boundary.lsn();
        lostTail = LostTail.NONE;
        committedLsn = boundary.lsn();
        persistedCommittedLsn = committedLsn;
        ids = new RequestIdWindow(requestIds);
        if (boundary.lsn() > 0) {
            earlier.forEach(request -> ids.addIfAbsent(request.id(), request.lsn()));
        }
    }

    /** Writes the queued appends and forces them, then persists the committed LSN; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        drain();
        closed = true;
    }

    @Override
    public String toString() {
        return "InMemoryLog[" + name + ", records " + startLsn() + ".." + lastLsn() + ", durable " + durableLsn + "]";
    }

    /** What a writer draining its queue does before a truncation or close: everything becomes durable. */
    private void drain() {
        force();
    }

    /** Removes the records after {@code lsn} and their request ids; keeps the committed LSN at most there. */
    private void cutAfter(long lsn) {
        records.subList((int) (lsn - boundary.lsn()), records.size()).clear();
        ids.removeAbove(lsn);
        durableLsn = Math.min(durableLsn, lsn);
    }

    private LogRecord recordAt(long lsn) {
        return records.get((int) (lsn - startLsn()));
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException(name + ": closed");
        }
    }

    private record Pending(long lastLsn, CompletableFuture<Void> future) {}
}
