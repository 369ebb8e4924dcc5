package io.neptune.client.internal;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import java.util.concurrent.CompletableFuture;

/**
 * The server side of the node that embeds this client: a call whose chosen replica is this node
 * goes through the local service queue without touching the network.
 */
public interface LocalEndpoint {
    /** The embedding node. */
    NodeId node();

    /** Queues {@code request} on the local service; never fails the future for ordinary errors, answers a status. */
    CompletableFuture<ResponseMessage> invoke(RequestMessage request);
}
