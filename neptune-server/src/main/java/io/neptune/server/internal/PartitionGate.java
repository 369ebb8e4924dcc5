package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.Snapshottable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;

/**
 * Counts the calls into a service that run now, per partition, and lets a call of a partition in
 * only while the node hosts it: once the placement dropped a partition, new calls of it are refused
 * and {@link #awaitIdle} tells when the running ones ended, so the service can be told it left
 * ({@link io.neptune.core.ServiceLifecycle#partitionRemoved}) with nothing of it running.
 *
 * <p>A call counts itself in first and checks the placement second ({@link #enter}); the placement
 * changes first and the count is read second. Whichever of the two comes last sees the other, so a
 * zero count read after the change means no call of the partition runs or will start.
 *
 * <p>Thread-safety: thread-safe.
 */
final class PartitionGate {
    private final AtomicIntegerArray calls;
    private final IntPredicate hosted;
    private final IntFunction<String> notHosted;

    /**
     * Creates the gate of a service with {@code partitions} partitions.
     *
     * @param hosted whether the node hosts a partition now
     * @param notHosted the message of a refused call of a partition
     */
    PartitionGate(int partitions, IntPredicate hosted, IntFunction<String> notHosted) {
        this.calls = new AtomicIntegerArray(partitions);
        this.hosted = requireNonNull(hosted, "hosted");
        this.notHosted = requireNonNull(notHosted, "notHosted");
    }

    /** Counts a call of {@code partition} in and returns true, or returns false (counting nothing) if it is not hosted. */
    boolean enter(int partition) {
        if (partition < 0 || partition >= calls.length()) {
            return false;
        }
        calls.incrementAndGet(partition);
        if (hosted.test(partition)) {
            return true;
        }
        calls.decrementAndGet(partition);
        return false;
    }

    /** Counts a call {@link #enter} let in out. */
    void exit(int partition) {
        calls.decrementAndGet(partition);
    }

    /** The message of a refused call of {@code partition}. */
    String notHosted(int partition) {
        return notHosted.apply(partition);
    }

    /** The calls of {@code partition} running now. */
    int running(int partition) {
        return calls.get(partition);
    }

    /**
     * Waits up to {@code wait} until no call of {@code partition} runs, which is for good once the
     * placement dropped it; returns whether that happened.
     */
    boolean awaitIdle(int partition, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (calls.get(partition) > 0) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            Thread.sleep(1); // waits for calls in progress to end on their own: rare (a partition leaving) and short
        }
        return true;
    }

    /** {@code service}'s snapshot calls behind this gate: one of a partition not hosted throws an {@link IOException}. */
    Snapshottable snapshots(Snapshottable service) {
        requireNonNull(service, "service");
        return new Snapshottable() {
            @Override
            public long writeSnapshot(int partition, OutputStream out) throws IOException {
                enterOrFail(partition);
                try {
                    return service.writeSnapshot(partition, out);
                } finally {
                    exit(partition);
                }
            }

            @Override
            public void restoreSnapshot(int partition, InputStream in, long lsn) throws IOException {
                enterOrFail(partition);
                try {
                    service.restoreSnapshot(partition, in, lsn);
                } finally {
                    exit(partition);
                }
            }

            @Override
            public void force(int partition) throws IOException {
                enterOrFail(partition);
                try {
                    service.force(partition);
                } finally {
                    exit(partition);
                }
            }
        };
    }

    private void enterOrFail(int partition) throws IOException {
        if (!enter(partition)) {
            throw new IOException(notHosted(partition));
        }
    }
}
