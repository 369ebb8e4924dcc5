package io.neptune.server.internal.replication.runtime;

import java.util.function.Consumer;

/**
 * The group commit of a simulated disk: after an append, one force is queued unless one already is,
 * and it covers every record appended before it runs, as the REDO log's writer forces a batch.
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class GroupCommit {
    private boolean queued;

    /**
     * Queues {@code force} through {@code schedule} (which runs it as an event soon after) unless a
     * force is queued already.
     */
    void appended(Consumer<Runnable> schedule, Runnable force) {
        if (queued) {
            return;
        }
        queued = true;
        schedule.accept(() -> {
            queued = false;
            force.run();
        });
    }

    /** The process crashed: its queued force never runs. */
    void crashed() {
        queued = false;
    }
}
