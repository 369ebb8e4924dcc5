package io.neptune.server.internal;

import io.neptune.core.ClassStats;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The request queue of one hosted service: decides which waiting request a free worker runs next.
 * {@link FifoScheduler} serves in arrival order; {@link ClassAwareScheduler} is the dissertation's
 * class-aware node scheduler (DESIGN §7).
 *
 * <p>Thread-safety: implementations must be thread-safe; dispatcher threads offer, workers poll.
 */
public interface Scheduler {
    /** Queues {@code task}; returns false, without queuing, when the queue is full or shut down. */
    boolean offer(Task task);

    /** Takes the next task to run, waiting up to {@code timeout}; {@code null} if none came. */
    @Nullable Task poll(long timeout, TimeUnit unit) throws InterruptedException;

    /** Requests waiting. */
    int size();

    /**
     * Refuses every later offer, and removes and returns every waiting task, to refuse them: once it
     * returned, no task can be left in the queue unanswered. Idempotent (later calls return none).
     */
    List<Task> shutdown();

    /**
     * A worker that took {@code task} at {@code startedNanos} answered it successfully at
     * {@code finishedNanos}, having used {@code resourceNanos} of resources (its thread's CPU time, or
     * what the service reported): the answer realises its yield.
     */
    default void completed(Task task, long startedNanos, long finishedNanos, long resourceNanos) {}

    /**
     * As {@link #completed}, but the answer was an error (the method threw, the partition left, a
     * replicated write did not commit): the time and resources count, and it realises no yield.
     */
    default void failed(Task task, long startedNanos, long finishedNanos, long resourceNanos) {}

    /**
     * A worker took {@code task}, but it was refused OVERLOADED before it ran (a replicated write
     * beyond {@code queue-capacity} writes in progress): counted as refused, like a full queue's refusal.
     */
    default void refused(Task task) {}

    /** A worker took {@code task} but its caller's deadline had passed: it was answered without running. */
    default void expired(Task task) {}

    /** Requests of {@code serviceClass} waiting or running: the class's load, as polls report it. */
    default int load(String serviceClass) {
        return size();
    }

    /** Per-class counters, sorted by class name; empty when the scheduler keeps none. */
    default List<ClassStats> stats() {
        return List.of();
    }
}
