package io.neptune.benchmarks;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * The emulated machine under one in-process node: a fixed number of workers (the CPUs of the
 * dissertation's dual-processor nodes), each request holding one for its service time. The time is
 * spent asleep, not spinning, so several nodes on a two-core host behave like several machines and
 * queueing is real; the service's real work (H2) runs inside that time, and only the remainder is
 * slept.
 *
 * <p>Reads reach {@link #serve} on the service's workers and replicated writes on the node's
 * replication threads; both take a permit of the same fair semaphore, so the node runs at most
 * {@link #workers()} requests of any kind at once.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ServerCapacity {
    private final int workers;
    private final Semaphore permits;
    private final AtomicInteger inFlight = new AtomicInteger();

    ServerCapacity(int workers) {
        if (workers < 1) {
            throw new IllegalArgumentException("workers: " + workers + " (expected: >= 1)");
        }
        this.workers = workers;
        this.permits = new Semaphore(workers, true);
    }

    /** The emulated workers of this node. */
    int workers() {
        return workers;
    }

    /**
     * Runs {@code work} holding one worker for at least {@code serviceTime}: waits for a free worker,
     * runs the work, then sleeps whatever is left of the service time.
     */
    <T> T serve(Duration serviceTime, Supplier<T> work) {
        inFlight.incrementAndGet();
        try {
            permits.acquireUninterruptibly();
            try {
                long start = System.nanoTime();
                T result = work.get();
                long left = serviceTime.toNanos() - (System.nanoTime() - start);
                if (left > 0) {
                    sleep(left);
                }
                return result;
            } finally {
                permits.release();
            }
        } finally {
            inFlight.decrementAndGet();
        }
    }

    /** Requests running or waiting for a worker on this node: 0 once the node is idle. */
    int inFlight() {
        return inFlight.get();
    }

    private static void sleep(long nanos) {
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the node is closing; the request ends early
        }
    }
}
