package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The network seam of replication: who the peers are, and a call to one of them. */
interface Peers {
    /** This node. */
    NodeId self();

    /** The live replicas of {@code service#partition} in the yellow page, this node included. */
    List<Replica> replicas(String service, int partition);

    /**
     * Sends {@code request} to {@code node} and decodes the reply as {@code replyType}. Requests for
     * one partition travel in order on one connection.
     */
    <T> CompletableFuture<T> call(NodeId node, PeerRequest request, Class<T> replyType);

    /**
     * Like {@link #call}, for a message that may wait a moment to travel with others for {@code node}
     * (a heartbeat: the ticks of many partitions send them together), still in order with the
     * partition's other calls. Without batching, the same as {@link #call}.
     */
    default <T> CompletableFuture<T> callBatched(NodeId node, PeerRequest request, Class<T> replyType) {
        return call(node, request, replyType);
    }

    /** Publishes this node's announcement now, e.g. after a role change. */
    void announce();
}
