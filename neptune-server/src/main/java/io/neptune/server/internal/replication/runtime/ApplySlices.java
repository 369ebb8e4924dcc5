package io.neptune.server.internal.replication.runtime;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Applying committed writes a slice ({@value #APPLY_SLICE_MILLIS} ms) at a time on the partition's
 * executor: a slice that did not finish queues the next one, behind whatever arrived meanwhile, so
 * a backlog of slow writes (a new primary's unapplied tail, a burst of commits) never holds the
 * executor for long and never delays an acknowledgement or a heartbeat past one slice. At most one
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
     * ({@link ReplicaCore#applyUpTo(long, long)}); {@code false} if a write failed in storage.
     */
    boolean apply(long target) {
        return core.applyUpTo(target, APPLY_SLICE_NANOS);
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
