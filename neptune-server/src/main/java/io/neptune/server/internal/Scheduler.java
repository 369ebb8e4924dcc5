package io.neptune.server.internal;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The request queue of one hosted service: decides which waiting request a free worker runs next.
 * The seam where class-aware scheduling (DESIGN §7) plugs in.
 *
 * <p>Thread-safety: implementations must be thread-safe; dispatcher threads offer, workers poll.
 */
public interface Scheduler {
    /** Queues {@code task}; returns false, without queuing, when the queue is full. */
    boolean offer(Task task);

    /** Takes the next task to run, waiting up to {@code timeout}; {@code null} if none came. */
    @Nullable Task poll(long timeout, TimeUnit unit) throws InterruptedException;

    /** Requests waiting. */
    int size();

    /** Removes and returns every waiting task, e.g. to refuse them at shutdown. */
    List<Task> drain();
}
