package io.neptune.server.internal.replication.runtime;

import io.neptune.core.ReplicaRole;

/**
 * What a replica publishes about itself: role and versions, read lock-free by announcements and
 * the request path.
 *
 * @param role current role
 * @param applied the LSN of the last write applied here (the version reads see)
 * @param epoch current epoch
 * @param logEnd the LSN of the last write in the REDO log
 * @param lastEpoch the epoch of that last write (0 for an empty log)
 * @param boundVersion level 3 primary: its version x seconds ago; else 0
 */
record ReplicaState(ReplicaRole role, long applied, long epoch, long logEnd, long lastEpoch, long boundVersion) {
    static final ReplicaState INITIAL = new ReplicaState(ReplicaRole.RECOVERING, 0, 0, 0, 0, 0);
}
