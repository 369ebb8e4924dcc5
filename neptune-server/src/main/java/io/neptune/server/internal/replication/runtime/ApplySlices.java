package io.neptune.server.internal.replication.runtime;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Applying committed writes a slice ({@value #APPLY_SLICE_MILLIS} ms) at a time on the partition's
 * executor: a slice that did not finish queues the next one, behind whatever arrived meanwhile, so
 * a backlog of slow writes (a new primary's unapplied tail, a burst of commits) never holds the
 * executor for long and never delays an acknowledgement or a heartbeat past one slice (longer, up to
 * {@value #MAX_WINDOW_MILLIS} ms, only when its first write waited that long: {@link #window}). At most one
 * next slice is queued at a time, and it runs only if its owner still wants it (a leader still
 * leads, a follower still follows). Used by both leaders ({@link QuorumLeader}, {@link PrimaryPipeline})
 * and by the followers of both modes.
 *
 * <p>Thread-safety: confined to the partition's serial executor, like its owner.
 */
final class ApplySlices {
    /** How long one slice of applying committed writes may hold the executor. */
    static final long APPLY_SLICE_MILLIS = 5;
    /** {@link #APPLY_SLICE_MILLIS} in nanoseconds, the unit of the replica's clock. */
    static final long APPLY_SLICE_NANOS = TimeUnit.MILLISECONDS.toNanos(APPLY_SLICE_MILLIS);
    /** The longest a slice works when its first write waited for its database ({@link #window}). */
    static final long MAX_WINDOW_MILLIS = 50;
    private static final long MAX_WINDOW_NANOS = TimeUnit.MILLISECONDS.toNanos(MAX_WINDOW_MILLIS);

    private final ReplicaCore core;
    private final BooleanSupplier wanted;
    private final Runnable slice;
    /** The next slice is queued on the executor. */
    private boolean queued;

    /**
     * Slices that run {@code slice} on {@code core}'s executor while {@code wanted} holds when it
     * comes to run.
     */
    ApplySlices(ReplicaCore core, BooleanSupplier wanted, Runnable slice) {
        this.core = core;
        this.wanted = wanted;
        this.slice = slice;
    }

    /**
     * Applies logged, durable writes in LSN order up to {@code target} for one slice
     * ({@link Applier#applyUpTo(long, long)}); {@code false} if a write failed in storage.
     */
    boolean apply(long target) {
        return core.applyUpTo(target, APPLY_SLICE_NANOS);
    }

    /**
     * How long a slice (and a storage commit's batch of writes) works after its first write, which took
     * {@code firstWriteNanos}: one slice, or as long as that write took, up to {@value #MAX_WINDOW_MILLIS}
     * ms. A write that took long waited for its database: a {@code PartitionDatabase} runs one writing
     * transaction at a time, shared by every partition of the service, and each commit forces the disk.
     * Working as long as it waited keeps the time a replica spends waiting at most about half, so a
     * replica behind (restarted under load, a new primary's tail) catches up; with a fixed slice each
     * commit carried two or three writes and a restarted replica took 15 s to apply 140 of them.
     */
    static long window(long firstWriteNanos) {
        return Math.max(APPLY_SLICE_NANOS, Math.min(firstWriteNanos, MAX_WINDOW_NANOS));
    }

    /** Whether the slice that started at {@code startNanos} (the replica's clock) is spent. */
    boolean spent(long startNanos) {
        return core.clock.getAsLong() - startNanos > APPLY_SLICE_NANOS;
    }

    /** Queues the next slice on the executor, unless one is queued already. */
    void next() {
        if (queued) {
            return;
        }
        queued = true;
        core.exec.execute(() -> {
            queued = false;
            if (wanted.getAsBoolean()) {
                slice.run();
            }
        });
    }
}
