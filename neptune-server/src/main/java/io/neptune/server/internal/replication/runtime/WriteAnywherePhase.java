package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import org.jspecify.annotations.Nullable;

/**
 * Where a level-1 replica stands ({@link WriteAnywhereReplica}), with what it carries out there:
 * the snapshot install and its source, or why it left service. The role it publishes follows from
 * the phase.
 *
 * <pre>
 * Recovering   -&gt; Serving (a full anti-entropy round), Installing, OutOfService, Closed
 * Serving      -&gt; Recovering (a write failed in storage), Installing (a peer dropped writes it lacks),
 *                 OutOfService, Closed
 * Installing   -&gt; Installing (another source, or the install started), Recovering (installed),
 *                 OutOfService, Closed
 * OutOfService -&gt; Closed
 * </pre>
 */
sealed interface WriteAnywherePhase {
    /** The role a replica in this phase publishes: RECOVERING in every phase but {@link Serving}. */
    default ReplicaRole role() {
        return ReplicaRole.RECOVERING;
    }

    /** Whether a replica in this phase may move to {@code next} (the table above). */
    boolean mayBecome(WriteAnywherePhase next);

    /** Catching up with its peers by anti-entropy: takes their writes, serves no client. */
    record Recovering() implements WriteAnywherePhase {
        @Override
        public boolean mayBecome(WriteAnywherePhase next) {
            return !(next instanceof Recovering);
        }
    }

    /** Serves reads and writes; what it logs reaches the peers by gossip and their pulls. */
    record Serving() implements WriteAnywherePhase {
        @Override
        public ReplicaRole role() {
            return ReplicaRole.SECONDARY;
        }

        @Override
        public boolean mayBecome(WriteAnywherePhase next) {
            return !(next instanceof Serving);
        }
    }

    /**
     * Lacks writes no peer can send any more (dropped after a checkpoint): installs a snapshot.
     *
     * @param from the peer it installs from, or null until one serves
     * @param started whether the install began (the source had pulled everything this replica held)
     */
    record Installing(@Nullable NodeId from, boolean started) implements WriteAnywherePhase {
        @Override
        public boolean mayBecome(WriteAnywherePhase next) {
            return !(next instanceof Serving);
        }
    }

    /**
     * Out of service until the node restarts or the replica is rebuilt: its log failed, or lost
     * writes its service applied.
     *
     * @param reason why, as logged once at ERROR and given to refused clients
     */
    record OutOfService(String reason) implements WriteAnywherePhase {
        @Override
        public boolean mayBecome(WriteAnywherePhase next) {
            return next instanceof Closed;
        }
    }

    /** Closed: nothing more runs against its log, which the node closes next. */
    record Closed() implements WriteAnywherePhase {
        @Override
        public boolean mayBecome(WriteAnywherePhase next) {
            return false;
        }
    }
}
