package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import java.net.InetSocketAddress;

/**
 * A replica of one partition as the yellow page knows it: a candidate for a call.
 *
 * @param node hosting node
 * @param requestAddress TCP request server address
 * @param pollAddress UDP load-index server address
 * @param priority static priority for the partition
 * @param role current role
 * @param version version at the last announcement
 * @param load the service's load index at the last announcement
 * @param epoch the replica's epoch
 * @param logEnd the last LSN in its REDO log
 * @param lastEpoch the epoch of the last record in its REDO log (0 if empty)
 * @param boundVersion on a level-3 primary, its version x seconds ago; else 0
 * @param draining whether its node is draining: a client sends it no new call while another replica serves
 */
public record Replica(
        NodeId node,
        InetSocketAddress requestAddress,
        InetSocketAddress pollAddress,
        int priority,
        ReplicaRole role,
        long version,
        int load,
        long epoch,
        long logEnd,
        long lastEpoch,
        long boundVersion,
        boolean draining) {

    /** Validates the fields. */
    public Replica {
        requireNonNull(node, "node");
        requireNonNull(requestAddress, "requestAddress");
        requireNonNull(pollAddress, "pollAddress");
        requireNonNull(role, "role");
    }

    /** A replica without replication state. */
    public Replica(NodeId node, InetSocketAddress requestAddress, InetSocketAddress pollAddress, int priority,
            ReplicaRole role, long version, int load) {
        this(node, requestAddress, pollAddress, priority, role, version, load, 0, version, 0, 0, false);
    }

    /** A replica on a node that is not draining. */
    public Replica(NodeId node, InetSocketAddress requestAddress, InetSocketAddress pollAddress, int priority,
            ReplicaRole role, long version, int load, long epoch, long logEnd, long lastEpoch, long boundVersion) {
        this(node, requestAddress, pollAddress, priority, role, version, load, epoch, logEnd, lastEpoch, boundVersion,
                false);
    }

    @Override
    public String toString() {
        return node + "@" + requestAddress.getHostString() + ":" + requestAddress.getPort();
    }
}
