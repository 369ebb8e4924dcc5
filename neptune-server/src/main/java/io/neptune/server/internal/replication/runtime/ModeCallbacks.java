package io.neptune.server.internal.replication.runtime;

import io.neptune.server.internal.log.LogBoundary;

/**
 * What a partition's {@link ReplicaCore} asks of the replica built on it, whose mode answers for
 * itself: the replica {@linkplain ReplicaCore#attach attaches} it once, when it is built. Each
 * method has the answer of a mode that does nothing there.
 *
 * <p>Called on the partition's serial executor.
 */
interface ModeCallbacks {
    /** None of the answers: what a core has before its replica attaches. */
    ModeCallbacks NONE = new ModeCallbacks() { };

    /** The log became durable further ({@link ReplicaCore#durable} advanced): a leader may commit more. */
    default void durableAdvanced() {
    }

    /**
     * What a snapshot taken at {@code lsn} carries beside the service's state, in its offer's
     * {@code members} field: majority mode's configuration in force there ({@code "lsn epoch a,b,c"},
     * empty if implicit, docs/protocols/placement.md), level 1's origin bases; empty elsewhere.
     */
    default String snapshotMembers(long lsn) {
        return "";
    }

    /** A snapshot carrying {@code members} ({@link #snapshotMembers}) was installed here. */
    default void installedMembers(String members) {
    }

    /** A snapshot was installed here: the log now starts after its boundary, and holds nothing below it. */
    default void snapshotInstalled() {
    }

    /**
     * Where the log continues after a snapshot offered at {@code offered}: there, for LSNs that are the
     * partition's (levels 2 and 3); level 1, whose LSNs are each replica's own, picks one above
     * everything its log and service hold.
     */
    default LogBoundary continueAfter(LogBoundary offered) {
        return offered;
    }
}
