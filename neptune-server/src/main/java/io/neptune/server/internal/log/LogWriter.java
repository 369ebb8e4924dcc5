package io.neptune.server.internal.log;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a {@link RedoLog}'s file on a shared {@link LogWriterPool}: it takes queued appends and
 * truncations in order, writes and forces them according to the {@link FsyncPolicy}, completes their
 * futures, and writes the meta file when the committed LSN changed (at most every
 * {@value #META_FLUSH_MILLIS} ms).
 *
 * <p>The writer runs as a drain on one pool thread at a time: a drain takes everything queued, writes
 * it with one force (group commit: what queued while the previous force ran goes out together), and
 * if more has queued meanwhile it queues itself behind the pool's other logs rather than keep the
 * thread. So order per log is queue order, and a log never has two drains at once.
 *
 * <p>Thread-safety: thread-safe. Callers enqueue under {@code lock}; {@link RedoLog} calls in while
 * holding its own lock (so queue order is LSN order), and drains never take that lock. The queued
 * frames that are not written yet stay readable through {@link #unwritten}. Futures complete on a
 * pool thread.
 */
final class LogWriter {
    private static final Logger logger = LoggerFactory.getLogger(LogWriter.class);
    /**
     * How often, at most, the committed mark is written. The mark is only where recovery starts its
     * CHECK search, but each write of the meta file costs two forces (file and directory) on this
     * thread, ahead of the next group commit: every 50 ms, as it was, that took as many forces as the
     * appends themselves while a replica applied a catch-up.
     */
    static final long META_FLUSH_MILLIS = 1000;

    /** A queued change of the file. */
    sealed interface Op permits Append, Truncate, Compact, PersistEpoch {
        CompletableFuture<Void> done();
    }

    /**
     * Writes {@code frame}, record {@code lsn}, at {@code offset}. The records of one
     * {@link RedoLog#appendAll} share one {@code done}, completed once the last of them is durable: a
     * follower's batch of 64 then costs one future, not 64.
     */
    record Append(long lsn, long offset, byte[] frame, CompletableFuture<Void> done) implements Op {
        /** Whether {@code next} (the append queued after this one, or null) no longer shares this one's future. */
        boolean lastOfBatch(@Nullable Append next) {
            return next == null || next.done != done;
        }
    }

    /** Cuts the file to {@code size} bytes. */
    record Truncate(long size, CompletableFuture<Void> done) implements Op {}

    /**
     * Replaces the file with one that starts after {@code boundary} and holds the bytes from
     * {@code cutOffset} on ({@link LogFile#compact}); {@code underLock} installs the new file.
     */
    record Compact(long cutOffset, LogBoundary boundary, Consumer<Runnable> underLock, CompletableFuture<Void> done)
            implements Op {}

    /** Writes {@code epoch} to the meta file ({@link LogMeta#persistEpoch}), off the caller's thread. */
    record PersistEpoch(long epoch, CompletableFuture<Void> done) implements Op {}

    private final String name;
    private final FsyncPolicy policy;
    private final LogFile file;
    private final LogMeta meta;
    private final LogWriterPool pool;
    /** Completes when the writer has closed the file: after {@link #stop}, or when it failed for good. */
    private final CompletableFuture<Void> ended = new CompletableFuture<>();
    private final AtomicLong forces = new AtomicLong();
    /** The time spent in {@link #force()}, for the fsync latency metric. */
    private final AtomicLong forceNanos = new AtomicLong();

    private final ReentrantLock lock = new ReentrantLock();
    // @GuardedBy("lock")
    private final ArrayDeque<Op> queue = new ArrayDeque<>();
    // @GuardedBy("lock"): queued appends not written yet, in LSN order (a suffix of the log)
    private final ArrayDeque<Append> unwritten = new ArrayDeque<>();
    // @GuardedBy("lock")
    private boolean stopping;
    // @GuardedBy("lock")
    private boolean metaDirty;
    // @GuardedBy("lock")
    private @Nullable LogException failure;
    // @GuardedBy("lock"): a drain is queued on the pool or running (never two: order per log)
    private boolean draining;
    // @GuardedBy("lock"): a timer will start a drain to write the meta file
    private boolean metaTimerArmed;
    // read and written by drains only, which the lock hands over one to the next
    private long nextMetaFlush = System.nanoTime();

    LogWriter(String name, LogWriterPool pool, FsyncPolicy policy, LogFile file, LogMeta meta) {
        this.name = name;
        this.pool = pool;
        this.policy = policy;
        this.file = file;
        this.meta = meta;
    }

    /**
     * Whether the calling thread is one of the pool's, which write this log and others: it must not
     * wait for this log's writer (the pool may have no other thread free, or this log's drain may be
     * the one running).
     */
    boolean isWriterThread() {
        return pool.isPoolThread();
    }

    /** How often the log file was forced. */
    long forces() {
        return forces.get();
    }

    /** The time spent forcing the file after appends, in nanoseconds. */
    long forceNanos() {
        return forceNanos.get();
    }

    /** The failure that stopped the writer, if any. */
    @Nullable LogException failure() {
        lock.lock();
        try {
            return failure;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Queues {@code appends} in one step, so that one drain takes them all; their futures fail if the
     * writer has failed or stopped.
     */
    void appendAll(List<Append> appends) {
        if (appends.isEmpty()) {
            return;
        }
        boolean drain;
        lock.lock();
        try {
            if (refuse(appends)) {
                return;
            }
            queue.addAll(appends);
            unwritten.addAll(appends);
            drain = claimDrain();
        } finally {
            lock.unlock();
        }
        if (drain) {
            submitDrain();
        }
    }

    /**
     * Queues a cut of the file to {@code size} bytes, after dropping the unwritten frames of records
     * above {@code lsn} (they are still written, then cut, so that queue order is file order).
     */
    CompletableFuture<Void> truncate(long lsn, long size) {
        Truncate truncate = new Truncate(size, new CompletableFuture<>());
        lock.lock();
        try {
            unwritten.removeIf(append -> append.lsn() > lsn);
            enqueue(truncate);
        } finally {
            lock.unlock();
        }
        return truncate.done();
    }

    /**
     * Queues a compaction ({@link Compact}); with {@code dropUnwritten}, the unwritten frames are
     * dropped from {@link #unwritten} first (they are still written, then cut off with the rest).
     */
    CompletableFuture<Void> compact(long cutOffset, LogBoundary boundary, Consumer<Runnable> underLock,
            boolean dropUnwritten) {
        Compact compact = new Compact(cutOffset, boundary, underLock, new CompletableFuture<>());
        lock.lock();
        try {
            if (dropUnwritten) {
                unwritten.clear();
            }
            enqueue(compact);
        } finally {
            lock.unlock();
        }
        return compact.done();
    }

    /** Queues a write of {@code epoch} to the meta file; the future completes once it is forced. */
    CompletableFuture<Void> persistEpoch(long epoch) {
        PersistEpoch persist = new PersistEpoch(epoch, new CompletableFuture<>());
        enqueue(persist);
        return persist.done();
    }

    private void enqueue(Op op) {
        boolean drain;
        lock.lock();
        try {
            if (refuse(List.of(op))) {
                return;
            }
            queue.add(op);
            drain = claimDrain();
        } finally {
            lock.unlock();
        }
        if (drain) {
            submitDrain();
        }
    }

    /** Fails {@code ops} and returns true if the writer has failed or is stopping. */
    private boolean refuse(List<? extends Op> ops) {
        assert lock.isHeldByCurrentThread();
        if (failure == null && !stopping) {
            return false;
        }
        RuntimeException cause = failure != null ? failure : new IllegalStateException(name + ": closed");
        ops.forEach(op -> op.done().completeExceptionally(cause));
        return true;
    }

    /**
     * The queued appends of records {@code from..to} whose frames are not written yet, in LSN order:
     * empty, or a contiguous run that ends at {@code to} (unwritten records are a suffix of the log).
     */
    List<Append> unwritten(long from, long to) {
        lock.lock();
        try {
            List<Append> appends = new ArrayList<>();
            for (Append append : unwritten) {
                if (append.lsn() >= from && append.lsn() <= to) {
                    appends.add(append);
                }
            }
            return appends;
        } finally {
            lock.unlock();
        }
    }

    /** Asks for a write of the meta file within {@value #META_FLUSH_MILLIS} ms. */
    void metaChanged() {
        boolean drain = false;
        lock.lock();
        try {
            if (!metaDirty) {
                metaDirty = true;
                drain = !metaTimerArmed && claimDrain();   // a drain writes it now or arms the timer
            }
        } finally {
            lock.unlock();
        }
        if (drain) {
            submitDrain();
        }
    }

    /** Lets the writer finish the queue, write the meta file and close the log file, then end. */
    void stop() {
        boolean drain;
        lock.lock();
        try {
            stopping = true;
            drain = claimDrain();
        } finally {
            lock.unlock();
        }
        if (drain) {
            submitDrain();
        }
    }

    /** Waits for the writer to end (see {@link #stop}); not from a pool thread. */
    void join() {
        ended.join();   // never completes exceptionally; waits uninterruptibly, keeping the interrupt flag
    }

    /** Runs {@code action} once the writer has ended: now if it has, else on the pool thread that ends it. */
    void whenEnded(Runnable action) {
        ended.thenRun(action);
    }

    /** Whether the caller must submit a drain: none is queued or running, and the writer has not ended. */
    private boolean claimDrain() {
        assert lock.isHeldByCurrentThread();
        if (draining || ended.isDone()) {
            return false;
        }
        draining = true;
        return true;
    }

    /** Queues a drain on the pool; after {@link #claimDrain}, or by the drain that goes on. */
    private void submitDrain() {
        try {
            pool.execute(this::drain);
        } catch (RejectedExecutionException e) {   // the pool was closed before this log
            fail("the log writer pool " + pool + " is closed", e, List.of());
            closeFile();
            ended.complete(null);
        }
    }

    /** Runs on a pool thread: one batch, then either the end, or the next drain queued, or idle. */
    private void drain() {
        Thread.interrupted();   // nobody interrupts pool threads; keep the flag clear so file I/O stays possible
        try {
            if (drainOnce()) {
                submitDrain();   // more work: go behind the other logs of the pool instead of keeping the thread
            }
        } catch (RuntimeException | Error e) {
            fail("the writer failed", e, List.of());   // logs it; every later change is refused
            closeFile();
            ended.complete(null);
        }
    }

    /** Writes what is queued and the meta file if due; returns whether to drain again right away. */
    private boolean drainOnce() {
        List<Op> batch;
        boolean stop;
        boolean flushMeta;
        lock.lock();
        try {
            batch = new ArrayList<>(queue);
            queue.clear();
            stop = stopping;
            flushMeta = metaDirty && (stop || System.nanoTime() - nextMetaFlush >= 0);
            metaDirty &= !flushMeta;
        } finally {
            lock.unlock();
        }
        process(batch);
        if (flushMeta || stop) {
            flushMeta();
            nextMetaFlush = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(META_FLUSH_MILLIS);
        }
        if (stop) {
            closeFile();
            ended.complete(null);   // draining stays set: nothing runs for this log again
            return false;
        }
        long metaDelay = -1;
        lock.lock();
        try {
            long now = System.nanoTime();
            if (!queue.isEmpty() || stopping || (metaDirty && now - nextMetaFlush >= 0)) {
                return true;
            }
            draining = false;
            if (metaDirty && !metaTimerArmed) {
                metaTimerArmed = true;
                metaDelay = nextMetaFlush - now;
            }
        } finally {
            lock.unlock();
        }
        if (metaDelay >= 0) {
            scheduleMetaFlush(metaDelay);
        }
        return false;
    }

    private void scheduleMetaFlush(long nanos) {
        try {
            pool.schedule(this::metaFlushDue, nanos);
        } catch (RejectedExecutionException e) {
            // the pool is closed (before this log): the log's next change fails it; the meta file is only a hint
            lock.lock();
            try {
                metaTimerArmed = false;
            } finally {
                lock.unlock();
            }
        }
    }

    /** The meta flush timer fired (on a pool thread): drain here unless a drain is already on its way. */
    private void metaFlushDue() {
        boolean drain;
        lock.lock();
        try {
            metaTimerArmed = false;
            drain = metaDirty && claimDrain();
        } finally {
            lock.unlock();
        }
        if (drain) {
            drain();
        }
    }

    private void process(List<Op> batch) {
        List<Append> run = new ArrayList<>();
        for (Op op : batch) {
            if (op instanceof Append append) {
                run.add(append);
            } else {
                writeAll(run);
                run.clear();
                if (op instanceof Truncate truncate) {
                    truncate(truncate);
                } else if (op instanceof PersistEpoch persist) {
                    persistEpoch(persist);
                } else {
                    compact((Compact) op);
                }
            }
        }
        writeAll(run);
    }

    private void writeAll(List<Append> run) {
        if (run.isEmpty() || failIfFailed(run)) {
            return;
        }
        try {
            if (policy == FsyncPolicy.ALWAYS) {
                for (int i = 0; i < run.size(); i++) {
                    Append append = run.get(i);
                    file.write(append.offset(), List.of(append.frame()));
                    written(List.of(append));
                    force();
                    if (append.lastOfBatch(i + 1 < run.size() ? run.get(i + 1) : null)) {
                        append.done().complete(null);   // every record of its batch is forced
                    }
                }
                return;
            }
            List<byte[]> frames = new ArrayList<>(run.size());
            long next = run.get(0).offset();
            for (Append append : run) {
                assert append.offset() == next : "record " + append.lsn() + " at " + append.offset() + ", not " + next;
                next += append.frame().length;
                frames.add(append.frame());
            }
            file.write(run.get(0).offset(), frames);
            written(run);
            if (policy == FsyncPolicy.GROUP) {
                force();
            }
            for (Append append : run) {
                append.done().complete(null);
            }
        } catch (IOException | RuntimeException e) {
            fail("cannot write records " + run.get(0).lsn() + ".." + run.get(run.size() - 1).lsn(), e, run);
        }
    }

    /**
     * Writes the epoch to the meta file. A failure fails only this write, not the writer: the meta
     * file is replaced whole or not at all, and a persist that threw on the caller's thread never did.
     */
    private void persistEpoch(PersistEpoch persist) {
        try {
            if (meta.persistEpoch(persist.epoch())) {
                logger.info("{}: persisted epoch {}", name, persist.epoch());
            }
            persist.done().complete(null);
        } catch (IOException e) {
            persist.done().completeExceptionally(
                    new LogException(meta.directory(), "cannot persist epoch " + persist.epoch(), e));
        } catch (RuntimeException e) {
            persist.done().completeExceptionally(e);
        }
    }

    private void truncate(Truncate truncate) {
        if (failIfFailed(List.of(truncate))) {
            return;
        }
        try {
            file.truncate(truncate.size());
            forces.incrementAndGet();
            truncate.done().complete(null);
        } catch (IOException | RuntimeException e) {
            fail("cannot truncate " + file.path() + " to " + truncate.size() + " bytes", e, List.of(truncate));
        }
    }

    private void compact(Compact compact) {
        if (failIfFailed(List.of(compact))) {
            return;
        }
        try {
            file.compact(compact.cutOffset(), compact.boundary(), compact.underLock());
            forces.incrementAndGet();
            compact.done().complete(null);
        } catch (IOException | RuntimeException e) {
            fail("cannot drop the records of " + file.path() + " up to LSN " + compact.boundary().lsn(), e,
                    List.of(compact));
        }
    }

    private void force() throws IOException {
        long start = System.nanoTime();
        file.force();
        forceNanos.addAndGet(System.nanoTime() - start);
        forces.incrementAndGet();
    }

    /** Drops written frames from {@link #unwritten}; a frame dropped by a truncation is not there. */
    private void written(List<Append> run) {
        lock.lock();
        try {
            for (Append append : run) {
                if (unwritten.peekFirst() == append) {
                    unwritten.removeFirst();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private boolean failIfFailed(List<? extends Op> ops) {
        LogException cause = failure();
        if (cause != null) {
            ops.forEach(op -> op.done().completeExceptionally(cause));
        }
        return cause != null;
    }

    /** Fails {@code ops} and every queued op, and refuses everything from now on. */
    private void fail(String what, Throwable cause, List<? extends Op> ops) {
        List<Op> queued;
        LogException exception = new LogException(meta.directory(), what, cause);
        lock.lock();
        try {
            if (failure == null) {
                failure = exception;
            }
            queued = new ArrayList<>(queue);
            queue.clear();
        } finally {
            lock.unlock();
        }
        logger.error("{}: {}; the log refuses further changes until it is reopened", name, what, cause);
        ops.forEach(op -> op.done().completeExceptionally(exception));
        queued.forEach(op -> op.done().completeExceptionally(exception));
    }

    private void flushMeta() {
        try {
            meta.flush();
        } catch (IOException | RuntimeException e) {
            logger.warn("{}: cannot write the meta file; the committed LSN is kept in memory and retried", name, e);
            metaChanged();
        }
    }

    private void closeFile() {
        try {
            file.close();
        } catch (IOException e) {
            logger.warn("{}: cannot close {}", name, file.path(), e);
        }
    }
}
