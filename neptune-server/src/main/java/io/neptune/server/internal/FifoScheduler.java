package io.neptune.server.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * First come, first served, with a fixed capacity.
 *
 * <p>Thread-safety: thread-safe; offers and {@link #shutdown()} serialize on a monitor, so no offer
 * lands after the shutdown took the queue's last tasks. Polls and {@link #size()} do not take it.
 */
public final class FifoScheduler implements Scheduler {
    private final BlockingQueue<Task> queue;
    private final Object admission = new Object();
    // @GuardedBy("admission")
    private boolean shut;

    /** Creates a queue holding at most {@code capacity} tasks. */
    public FifoScheduler(int capacity) {
        this.queue = new ArrayBlockingQueue<>(capacity);
    }

    @Override
    public boolean offer(Task task) {
        synchronized (admission) {
            return !shut && queue.offer(task);
        }
    }

    @Override
    public @Nullable Task poll(long timeout, TimeUnit unit) throws InterruptedException {
        return queue.poll(timeout, unit);
    }

    @Override
    public int size() {
        return queue.size();
    }

    @Override
    public List<Task> shutdown() {
        synchronized (admission) {
            shut = true;
            List<Task> tasks = new ArrayList<>();
            queue.drainTo(tasks);
            return tasks;
        }
    }
}
