package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * What a partition's hosting says about one replica, which every mode's replica is built with
 * beside its {@link ReplicaCore}.
 *
 * @param priority its priority on the partition: the caught-up replica with the highest leads
 * @param configuredReplicas how many replicas the hosting asks for ({@code replicas:})
 * @param ackTimeout how long a primary waits for a peer's acknowledgement (levels 2 and 3; level 1
 *     does not wait for one)
 * @param staleness how far behind a level-3 read may be, or null below level 3
 * @param learner whether an operator's add-replica started it: it counts for nothing until a
 *     configuration names it ({@code majority} mode only)
 */
record ReplicaSettings(int priority, int configuredReplicas, Duration ackTimeout, @Nullable Duration staleness,
        boolean learner) {
    /** Checks the timeout and the count. */
    ReplicaSettings {
        requireNonNull(ackTimeout, "ackTimeout");
        if (configuredReplicas < 1) {
            throw new IllegalArgumentException("configuredReplicas: " + configuredReplicas + " (expected: >= 1)");
        }
    }

    /** The staleness bound in nanoseconds, 0 below level 3. */
    long stalenessNanos() {
        return staleness == null ? 0 : staleness.toNanos();
    }
}
