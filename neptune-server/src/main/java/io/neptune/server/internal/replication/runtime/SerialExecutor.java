package io.neptune.server.internal.replication.runtime;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs tasks one at a time, in submission order, on a shared pool: the confinement of one
 * partition's replication state. Thread-safety: thread-safe; tasks never run concurrently.
 *
 * <p>A task that throws (an {@code assert} that fails included) does not stop the tasks after it;
 * its failure is logged and reported to the thread's uncaught-exception handler ({@code report}).
 *
 * <p>A drain yields its pool thread after {@value #DRAIN_TASKS} tasks or {@value #DRAIN_BUDGET_MILLIS} ms, whichever
 * comes first, and queues itself behind the other partitions: a partition busy applying a backlog
 * of slow writes cannot hold the pool's threads while other partitions' acknowledgements wait.
 *
 * <p>A task that must wait for I/O before the partition goes on (a persisted epoch) ends with
 * {@link #resumeAfter}: the executor then runs nothing else until the I/O is done, and its
 * continuation runs first, but the pool thread is free meanwhile. A burst of elections on a node
 * used to hold its pool threads in {@code fsync} (16 to 72 ms each under concurrency) while the
 * heartbeats and acknowledgements of its other partitions waited behind them.
 */
final class SerialExecutor implements Executor {
    private static final Logger logger = LoggerFactory.getLogger(SerialExecutor.class);
    private static final long DRAIN_BUDGET_MILLIS = 5;
    private static final int DRAIN_TASKS = 64;
    /** A wait for I/O ({@link #resumeAfter}) longer than this is logged at WARN: the partition stood still meanwhile. */
    private static final long LONG_WAIT_MILLIS = 1000;

    private final Executor pool;
    private final String owner;
    /** Times a drain's budget: {@link System#nanoTime()}, or a simulation's clock, which then decides when it yields. */
    private final LongSupplier clock;
    private final Deque<Runnable> tasks = new ArrayDeque<>();
    /** A drain is queued on the pool or running, or the executor waits for a {@link #resumeAfter}. */
    private boolean running;
    /** What the running task asked to wait for ({@link #resumeAfter}); taken by the drain once the task returned. */
    private @Nullable Resumption waiting;
    /** The thread of the drain running tasks; cleared only by that drain, and only if still its own. */
    private final AtomicReference<@Nullable Thread> current = new AtomicReference<>();

    SerialExecutor(Executor pool, String owner) {
        this(pool, owner, System::nanoTime);
    }

    SerialExecutor(Executor pool, String owner, LongSupplier clock) {
        this.pool = pool;
        this.owner = owner;
        this.clock = clock;
    }

    @Override
    public void execute(Runnable task) {
        synchronized (tasks) {
            tasks.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        pool.execute(this::drain);
    }

    /**
     * Runs {@code task} on the calling thread now if nothing of this executor is queued or running,
     * else queues it as {@link #execute} does. For periodic work over many partitions (the tick): a
     * pool thread that ticks a batch of partitions runs each idle one's tick itself, where a hand-off
     * per partition woke a pool thread for each (at 500 partitions, 5,000 wake-ups a second). What
     * queues meanwhile goes on in a drain on the pool, as after any drain.
     */
    void runNowOrQueue(Runnable task) {
        synchronized (tasks) {
            tasks.add(task);
            if (running) {
                return;
            }
            running = true;
        }
        runTasks(1);
    }

    /**
     * Runs {@code then} once {@code done} completed, before any other task of this executor, without
     * holding a pool thread meanwhile: for a task whose next step must wait for I/O. Call it as the
     * task's last step; the rest of the task still runs before the wait. If {@code done} has already
     * completed, {@code then} runs now. If {@code done} fails, {@code then} does not run and the
     * failure is thrown in its place, as a failed task's.
     *
     * @throws IllegalStateException if the task already waits: the first continuation would be lost,
     *     and the partition would stand still for good
     */
    void resumeAfter(CompletableFuture<?> done, Runnable then) {
        assert inExecutor() : "off the executor " + owner;
        if (waiting != null) {
            throw new IllegalStateException(owner + ": a task waits for I/O twice; its first continuation would be lost");
        }
        if (done.isDone()) {
            continuation(done, then).run();
        } else {
            waiting = new Resumption(done, then, clock.getAsLong());
        }
    }

    /** Whether the calling thread is running one of this executor's tasks. */
    boolean inExecutor() {
        return current.get() == Thread.currentThread();
    }

    /**
     * Makes a task's failure seen without ending the drain: logs it at ERROR with this executor's
     * name and hands it to the uncaught-exception handler the pool thread would die through, its own
     * or else the JVM's default (in the test suites {@code io.neptune.testing.BackgroundFailures},
     * which fails the test that ran). With neither, the log line is all: a thread group's fallback
     * would only print the stack trace to stderr again. What the handler throws is logged, not thrown.
     */
    private void report(Throwable failure) {
        logger.error("{}: a task failed; the next one runs", owner, failure);
        Thread thread = Thread.currentThread();
        Thread.UncaughtExceptionHandler handler = thread.getUncaughtExceptionHandler();
        if (handler == thread.getThreadGroup()) { // the thread has no handler of its own
            handler = Thread.getDefaultUncaughtExceptionHandler();
        }
        if (handler == null) {
            return;
        }
        try {
            handler.uncaughtException(thread, failure);
        } catch (Throwable e) {
            logger.error("{}: the uncaught-exception handler failed", owner, e);
        }
    }

    private void drain() {
        runTasks(DRAIN_TASKS);
    }

    /**
     * Runs up to {@code limit} queued tasks on the calling thread, within the drain's time budget; the
     * caller owns the executor ({@code running} is set). Then queues a drain on the pool if tasks are
     * left, else marks the executor idle.
     */
    private void runTasks(int limit) {
        Thread self = Thread.currentThread();
        current.set(self);
        long start = clock.getAsLong();
        try {
            for (int i = 0; i < limit && clock.getAsLong() - start < TimeUnit.MILLISECONDS.toNanos(DRAIN_BUDGET_MILLIS);
                    i++) {
                Runnable task;
                synchronized (tasks) {
                    task = tasks.poll();
                    if (task == null) {
                        running = false;
                        return;
                    }
                }
                try {
                    task.run();
                } catch (Throwable e) { // an Error too: the next task must still run, or the partition stalls for good
                    report(e);
                }
                Resumption resumption = waiting;
                if (resumption != null) {
                    waiting = null;
                    if (!resumption.done().isDone()) {
                        // Nothing more runs here: the continuation queues the next drain. The callback may run at
                        // once on another thread, so this drain touches no state after registering it.
                        resumption.done().whenComplete((v, e) -> resume(resumption));
                        return;
                    }
                    synchronized (tasks) {
                        tasks.addFirst(continuation(resumption.done(), resumption.then()));
                    }
                }
            }
        } finally {
            // Not a plain null: once this drain set running to false on an empty queue, the next one may already
            // run on another pool thread and have set its own (a replica's assert then failed "off the
            // partition's executor": MajorityNemesisTest, once in 15 runs of the replication tests).
            current.compareAndSet(self, null);
        }
        synchronized (tasks) {
            if (tasks.isEmpty()) {
                running = false;
                return;
            }
        }
        schedule(); // yield the pool thread to other partitions, then go on
    }

    /** What a task waited for is done (on the thread that completed it): its continuation runs first. */
    private void resume(Resumption resumption) {
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(clock.getAsLong() - resumption.sinceNanos());
        if (waitedMillis > LONG_WAIT_MILLIS) {
            logger.warn("{}: waited {} ms for I/O (an epoch write) before going on", owner, waitedMillis);
        }
        synchronized (tasks) {
            tasks.addFirst(continuation(resumption.done(), resumption.then()));
        }
        schedule();
    }

    /** Queues a drain on the pool, which a drain or a resumption owns ({@code running} is set). */
    private void schedule() {
        try {
            pool.execute(this::drain);
        } catch (RejectedExecutionException e) {
            // The node is closing and its pool takes no more work: the partition's remaining tasks would
            // have been cancelled with it. Dropped here rather than thrown, which killed the pool thread.
            int dropped;
            synchronized (tasks) {
                dropped = tasks.size();
                tasks.clear();
                running = false;
            }
            logger.debug("{}: pool shut down; {} queued task(s) dropped", owner, dropped);
        }
    }

    /** {@code then}, or the failure of {@code done} thrown in its place. */
    private static Runnable continuation(CompletableFuture<?> done, Runnable then) {
        return () -> {
            try {
                done.join();
            } catch (CompletionException e) {
                if (e.getCause() instanceof RuntimeException cause) {
                    throw cause;
                }
                throw e;
            }
            then.run();
        };
    }

    /** A continuation waiting for {@code done} since {@code sinceNanos} (the executor's clock). */
    private record Resumption(CompletableFuture<?> done, Runnable then, long sinceNanos) {}
}
