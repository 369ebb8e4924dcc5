package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.core.NodeId;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.security.Audit;
import io.neptune.server.internal.security.Caller;
import java.io.IOException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's end of the peer protocol ({@code docs/protocols/replication.md}): a request under the
 * reserved service {@value PeerMessages#SERVICE} is checked against what its caller may send
 * ({@link PeerAccess}), its JSON parsed once (routed by its {@code service} field to the partition's
 * replica, then decoded as the type that replica takes for the method), an operator's action
 * audited, and the replica's answer written back. A message that cannot be decoded is refused as
 * {@code INVALID_REQUEST} before it changes anything.
 *
 * <p>Thread-safety: thread-safe; the replica handles the message on its own executor.
 */
final class PeerEndpoint {
    /** Where a message goes: the hosted replica of a partition, or null. */
    @FunctionalInterface
    interface Replicas {
        @Nullable PartitionReplica find(String service, int partition);
    }

    private static final Logger logger = LoggerFactory.getLogger(PeerEndpoint.class);

    private final NodeId self;
    private final Replicas replicas;
    private final ReplicationTracing tracing;

    PeerEndpoint(NodeId self, Replicas replicas, ReplicationTracing tracing) {
        this.self = self;
        this.replicas = replicas;
        this.tracing = tracing;
    }

    /**
     * Handles a peer-protocol request sent by {@code caller}; one the caller may not send is refused
     * before it changes anything.
     */
    void handle(RequestMessage request, Caller caller, Consumer<ResponseMessage> reply) {
        long id = request.requestId();
        String refused = PeerAccess.refusal(request.method(), caller);
        if (refused != null) {
            refuse(request, refused, reply);
            return;
        }
        String target = request.partition() + "";
        PartitionReplica replica = null;
        Object message;
        try {
            JsonNode tree = Json.mapper().readTree(request.payload()); // parsed once: routed, then decoded
            String service = tree.path("service").asText();
            target = service + "#" + request.partition();
            replica = replicas.find(service, request.partition());
            if (replica == null) {
                reply.accept(ResponseMessage.error(id, Status.NOT_HOSTED, self + " has no replica of " + target));
                return;
            }
            if (request.method().equals("reconfigure") && !replica.takesPlacementChanges()) {
                reply.accept(ResponseMessage.error(id, Status.INVALID_REQUEST, "NEP-PLACE-001 " + target + " is not in"
                        + " majority mode (level-2/3 with failover: majority): its placement changes only through the"
                        + " node configs (docs/protocols/placement.md)"));
                return;
            }
            message = Json.mapper().treeToValue(tree, replica.messageType(request.method()));
        } catch (IOException | RuntimeException e) {
            reply.accept(ResponseMessage.error(id, Status.INVALID_REQUEST, "bad replication message " + request.method()
                    + " for " + target + ": " + e.getMessage()));
            return;
        }
        refused = PeerAccess.refusal(message, caller);
        if (refused != null) {
            refuse(request, refused, reply);
            return;
        }
        if (PeerAccess.isOperatorAction(message)) {
            Audit.operatorAction(self, caller, request.method(), target);
        }
        Consumer<Object> answering = answer -> {
            try {
                reply.accept(ResponseMessage.ok(id, 0, Json.mapper().writeValueAsBytes(answer)));
            } catch (IOException e) {
                reply.accept(ResponseMessage.error(id, Status.METHOD_FAILED,
                        requireNonNullElse(e.getMessage(), e.toString())));
            }
        };
        if (message instanceof PeerMessages.Replicate replicate) {   // a span per traced record, if any
            answering = tracing.received(replicate.service(), request.partition(), request.metadata(), answering);
        }
        replica.onPeerMessage(request.method(), message, answering);
    }

    private void refuse(RequestMessage request, String reason, Consumer<ResponseMessage> reply) {
        logger.warn("{}: {}", self, reason);
        reply.accept(ResponseMessage.error(request.requestId(), Status.PERMISSION_DENIED, reason));
    }
}
