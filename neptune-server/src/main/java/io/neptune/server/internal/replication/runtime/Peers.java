package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.Metadata;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** The network seam of replication: who the peers are, and a call to one of them. */
interface Peers {
    /** This node. */
    NodeId self();

    /** The live replicas of {@code service#partition} in the yellow page, this node included. */
    List<Replica> replicas(String service, int partition);

    /**
     * Sends {@code message} to {@code node} as the peer-protocol method {@code method} and decodes the
     * reply. Messages for one partition travel in order on one connection.
     */
    <T> CompletableFuture<T> call(NodeId node, String service, int partition, String method, Object message,
            Class<T> replyType);

    /**
     * {@link #call}, the request carrying {@code metadata} too (trace contexts: {@link LoggedTraces});
     * a network that cannot carry metadata drops it.
     */
    default <T> CompletableFuture<T> call(NodeId node, String service, int partition, String method, Object message,
            Metadata metadata, Class<T> replyType) {
        return call(node, service, partition, method, message, replyType);
    }

    /** Publishes this node's announcement now, e.g. after a role change. */
    void announce();
}
