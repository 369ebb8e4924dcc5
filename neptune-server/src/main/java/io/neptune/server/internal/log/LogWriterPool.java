package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The threads that write a node's {@link RedoLog}s: a fixed number, shared by every log opened on
 * the pool, so that a node's thread count does not grow with the partitions it hosts. A log's
 * writer runs on one of these threads only while the log has queued work (see {@link LogWriter}),
 * one batch at a time, and then gives the thread to the next log; a log is never written by two
 * threads at once. Threads are named {@code <name>-<i>} and are daemons; they start when there is
 * work and end after {@value #IDLE_SECONDS} s without any, so an idle node keeps none. The pool runs
 * at most {@link #threads()} threads, and never more than it has open logs (a log has one drain at a
 * time, so more threads than logs would idle).
 *
 * <p>The size bounds how many logs force their files at the same time. A force blocks its thread
 * for the device's flush time, so under writes to many logs the pool size, not the number of logs,
 * is the number of fsyncs in flight; the appends that queue meanwhile share the log's next force
 * (group commit). A node sizes its pool with {@code log-writer-threads}.
 *
 * <p>Thread-safety: thread-safe. Close the pool after the logs opened on it.
 */
public final class LogWriterPool implements AutoCloseable {
    /** How long a thread waits for work before it ends, in seconds. */
    static final long IDLE_SECONDS = 10;

    private final String name;
    private final int threads;
    private final ScheduledThreadPoolExecutor executor;
    private final Set<Thread> running = ConcurrentHashMap.newKeySet();
    // @GuardedBy("this")
    private int openLogs;

    /**
     * A pool of {@code threads} threads named {@code <name>-0}, {@code <name>-1}, ...
     *
     * @throws IllegalArgumentException if {@code threads} is below 1
     */
    public LogWriterPool(String name, int threads) {
        this(name, threads, Duration.ofSeconds(IDLE_SECONDS));
    }

    /** A pool whose threads end after {@code idle} without work (tests shorten it). */
    LogWriterPool(String name, int threads, Duration idle) {
        this.name = requireNonNull(name, "name");
        if (threads < 1) {
            throw new IllegalArgumentException("threads: " + threads + " (expected: >= 1)");
        }
        this.threads = threads;
        AtomicInteger count = new AtomicInteger();
        this.executor = new ScheduledThreadPoolExecutor(1, task -> {
            Thread thread = new WriterThread(this, task, name + "-" + count.getAndIncrement());
            thread.setDaemon(true);
            running.add(thread);   // before it starts, so that close() joins it
            return thread;
        });
        // the last thread stays while a timer (a meta file flush) is pending: ThreadPoolExecutor.getTask
        executor.setKeepAliveTime(idle.toNanos(), TimeUnit.NANOSECONDS);
        executor.allowCoreThreadTimeOut(true);
        executor.setRemoveOnCancelPolicy(true);
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    /** The number of threads the pool runs at most. */
    public int threads() {
        return threads;
    }

    /** Counts a log opened on the pool: up to {@link #threads()}, one more thread may run. */
    synchronized void logOpened() {
        openLogs++;
        resize();
    }

    /** Counts a log closed. */
    synchronized void logClosed() {
        openLogs--;
        resize();
    }

    private void resize() {
        assert Thread.holdsLock(this);
        int size = Math.max(1, Math.min(threads, openLogs));
        if (executor.getCorePoolSize() != size) {
            executor.setCorePoolSize(size);   // excess threads end when next idle
        }
    }

    /** Whether the calling thread is one of this pool's. */
    boolean isPoolThread() {
        return Thread.currentThread() instanceof WriterThread thread && thread.pool == this;
    }

    /**
     * Runs {@code task} on a pool thread.
     *
     * @throws java.util.concurrent.RejectedExecutionException if the pool is closed
     */
    void execute(Runnable task) {
        executor.execute(task);
    }

    /**
     * Runs {@code task} on a pool thread after {@code nanos}; dropped if the pool closes first.
     *
     * @throws java.util.concurrent.RejectedExecutionException if the pool is closed
     */
    void schedule(Runnable task, long nanos) {
        executor.schedule(task, nanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Stops the threads once the tasks queued now have run, and waits for them to end (unless called
     * from one of them); idempotent. Close the logs first: a log's later work would be refused, which
     * fails the log.
     */
    @Override
    public void close() {
        executor.shutdown();
        if (isPoolThread()) {
            return;
        }
        boolean interrupted = false;
        for (Thread thread : List.copyOf(running)) {
            while (thread.isAlive()) {
                try {
                    thread.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "LogWriterPool[" + name + ", " + threads + " threads]";
    }

    /** A thread of a pool, known to it until it ends; {@link #isPoolThread} recognizes it. */
    private static final class WriterThread extends Thread {
        final LogWriterPool pool;

        WriterThread(LogWriterPool pool, Runnable task, String name) {
            super(task, name);
            this.pool = pool;
        }

        @Override
        public void run() {
            try {
                super.run();
            } finally {
                pool.running.remove(this);
            }
        }
    }
}
