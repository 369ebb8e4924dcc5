package io.neptune.server.internal.replication;

import java.util.ArrayDeque;
import java.util.Queue;
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
 * <p>A drain yields its pool thread after 64 tasks or {@value #DRAIN_BUDGET_MILLIS} ms, whichever
 * comes first, and queues itself behind the other partitions: a partition busy applying a backlog
 * of slow writes cannot hold the pool's threads while other partitions' acknowledgements wait.
 */
final class SerialExecutor implements Executor {
    private static final Logger logger = LoggerFactory.getLogger(SerialExecutor.class);
    private static final long DRAIN_BUDGET_MILLIS = 5;

    private final Executor pool;
    private final String owner;
    /** Times a drain's budget: {@link System#nanoTime()}, or a simulation's clock, which then decides when it yields. */
    private final LongSupplier clock;
    private final Queue<Runnable> tasks = new ArrayDeque<>();
    private boolean running;
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
        Thread self = Thread.currentThread();
        current.set(self);
        long start = clock.getAsLong();
        try {
            for (int i = 0; i < 64 && clock.getAsLong() - start < TimeUnit.MILLISECONDS.toNanos(DRAIN_BUDGET_MILLIS);
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
            }
        } finally {
            // Not a plain null: once this drain set running to false on an empty queue, the next one may already
            // run on another pool thread and have set its own (a replica's assert then failed "off the
            // partition's executor": MajorityNemesisTest, once in 15 runs of the replication tests).
            current.compareAndSet(self, null);
        }
        try {
            pool.execute(this::drain); // yield the pool thread to other partitions, then go on
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
}
