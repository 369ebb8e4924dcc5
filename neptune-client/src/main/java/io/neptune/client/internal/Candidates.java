package io.neptune.client.internal;

import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import java.util.ArrayList;
import java.util.List;

/** Which replicas of a partition may serve an attempt of a {@link Call}. */
final class Candidates {
    private Candidates() {}

    /**
     * The replicas of {@code all} that may serve this call (DESIGN §6): any live one for level 1; the
     * primary for level 2 and 3 writes ({@code needsPrimary}); non-recovering ones for reads, and at
     * level 3 only those whose version reaches both the staleness bound and the session's version
     * ({@code minVersion}), else the primary. Replicas tried already are left out, and so are replicas on
     * a draining node while another one qualifies: that node is about to leave.
     */
    static List<Replica> eligible(List<Replica> all, ConsistencyLevel level, boolean needsPrimary, long minVersion,
            List<NodeId> tried) {
        Replica primary = null;
        for (Replica r : all) {
            if (r.role() == ReplicaRole.PRIMARY && (primary == null || r.epoch() > primary.epoch())) {
                primary = r;
            }
        }
        if (needsPrimary) {
            return primary == null ? List.of() : List.of(primary);
        }
        if (level != ConsistencyLevel.LEVEL_3 && allEligible(all, tried)) {
            return all; // the yellow page's immutable list as it is: nothing to filter (the usual first attempt)
        }
        List<Replica> live = new ArrayList<>(all.size());
        for (Replica r : all) {
            if (r.role() != ReplicaRole.RECOVERING && !tried.contains(r.node())) {
                live.add(r);
            }
        }
        if (level == ConsistencyLevel.LEVEL_3 && primary != null) {
            long bound = Math.max(primary.boundVersion(), minVersion);
            live.removeIf(r -> r.version() < bound);
            if (live.isEmpty() && !tried.contains(primary.node())) {
                live.add(primary);
            }
        }
        if (live.size() > 1 && live.stream().anyMatch(Replica::draining)
                && !live.stream().allMatch(Replica::draining)) {
            live.removeIf(Replica::draining);
        }
        return live;
    }

    private static boolean allEligible(List<Replica> all, List<NodeId> tried) {
        for (Replica r : all) {
            if (r.role() == ReplicaRole.RECOVERING || r.draining() || tried.contains(r.node())) {
                return false;
            }
        }
        return true;
    }
}
