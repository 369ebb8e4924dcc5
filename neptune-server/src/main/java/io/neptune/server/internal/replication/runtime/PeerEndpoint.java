package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNullElse;

import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.core.NodeId;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.Metadata;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.security.Audit;
import io.neptune.server.internal.security.Caller;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
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
 * {@code INVALID_REQUEST} before it changes anything. A {@link PeerMessages.Batch} (heartbeats of
 * several partitions that travelled together) is checked whole, then each of its messages is handled
 * the same way, and their answers go back in one reply ({@link BatchAnswers}).
 *
 * <p>Thread-safety: thread-safe; the replica handles the message on its own executor.
 */
final class PeerEndpoint {
    /** Where a message goes: the hosted replica of a partition, or null. */
    @FunctionalInterface
    interface Replicas {
        @Nullable PartitionReplica find(String service, int partition);
    }

    /** The method of a {@link PeerMessages.Batch}. */
    static final String BATCH = "batch";
    /** The most messages one batch carries. */
    static final int MAX_BATCH_ITEMS = 256;

    private static final Logger logger = LoggerFactory.getLogger(PeerEndpoint.class);

    private final NodeId self;
    private final Replicas replicas;
    private final ReplicationTracing tracing;
    private final ScheduledExecutorService timer;
    /** How long a batch's answers wait for its slowest item ({@link BatchAnswers}). */
    private final long answerWaitMillis;

    /**
     * Routes to the replicas {@code replicas} finds; a batch's answers wait for its slowest item up to
     * {@code answerWait}, on {@code timer}.
     *
     * <p>An answer held back is late, one not given in time is lost, and a replica whose executor has a
     * backlog (a node starting hundreds of partitions) answers every heartbeat late: with a short wait
     * its primary would hear none of its answers and not hand over to it, nor count it caught up. The
     * engine waits one election timeout: answers count when they arrive (fresh reads count from the
     * send time), and one held back that long still comes within the primary's check-quorum period
     * ({@link io.neptune.server.internal.replication.protocol.MajorityLease#periodFor}, two of them).
     */
    PeerEndpoint(NodeId self, Replicas replicas, ReplicationTracing tracing, ScheduledExecutorService timer,
            Duration answerWait) {
        this.self = self;
        this.replicas = replicas;
        this.tracing = tracing;
        this.timer = timer;
        this.answerWaitMillis = answerWait.toMillis();
    }

    /**
     * Handles a peer-protocol request sent by {@code caller}; one the caller may not send is refused
     * before it changes anything. A {@value #BATCH} carries several, each handled as if it came alone.
     */
    void handle(RequestMessage request, Caller caller, Consumer<ResponseMessage> reply) {
        long id = request.requestId();
        if (request.method().equals(BATCH)) {
            batch(request, caller, reply);
            return;
        }
        JsonNode tree;
        try {
            tree = Json.mapper().readTree(request.payload()); // parsed once: routed, then decoded
        } catch (IOException | RuntimeException e) {
            reply.accept(ResponseMessage.error(id, Status.INVALID_REQUEST, "bad replication message " + request.method()
                    + " for partition " + request.partition() + ": " + e.getMessage()));
            return;
        }
        dispatch(request.method(), request.partition(), tree, request.metadata(), caller, new BatchAnswers.Answer() {
            @Override
            public void ok(Object answer) {
                replyOk(id, answer, reply);
            }

            @Override
            public void error(Status status, String reason) {
                reply.accept(ResponseMessage.error(id, status, reason));
            }
        });
    }

    /**
     * Routes {@code method}'s message (the JSON {@code tree}) for {@code partition} of the service it
     * names to the hosted replica, which answers {@code answer}; refused before it changes anything
     * if {@code caller} may not send it, it cannot be decoded or nothing here hosts its partition.
     */
    private void dispatch(String method, int partition, JsonNode tree, Metadata metadata, Caller caller,
            BatchAnswers.Answer answer) {
        String refused = PeerAccess.refusal(method, caller);
        if (refused != null) {
            refuse(refused, answer);
            return;
        }
        String target = partition + "";
        PartitionReplica replica;
        Object message;
        try {
            String service = tree.path("service").asText();
            target = service + "#" + partition;
            replica = replicas.find(service, partition);
            if (replica == null) {
                answer.error(Status.NOT_HOSTED, self + " has no replica of " + target);
                return;
            }
            if (method.equals("reconfigure") && !replica.takesPlacementChanges()) {
                answer.error(Status.INVALID_REQUEST, "NEP-PLACE-001 " + target + " is not in majority mode (level-2/3"
                        + " with failover: majority): its placement changes only through the node configs"
                        + " (docs/protocols/placement.md)");
                return;
            }
            message = Json.mapper().treeToValue(tree, replica.messageType(method));
        } catch (IOException | RuntimeException e) {
            answer.error(Status.INVALID_REQUEST, "bad replication message " + method + " for " + target + ": "
                    + e.getMessage());
            return;
        }
        refused = PeerAccess.refusal(message, caller);
        if (refused != null) {
            refuse(refused, answer);
            return;
        }
        if (PeerAccess.isOperatorAction(message)) {
            Audit.operatorAction(self, caller, method, target);
        }
        Consumer<Object> answering = answer::ok;
        if (message instanceof PeerMessages.Replicate replicate) {   // a span per traced record, if any
            answering = tracing.received(replicate.service(), partition, metadata, answering);
        }
        replica.onPeerMessage(method, message, answering);
    }

    /**
     * Handles a {@link PeerMessages.Batch}: checked whole before any item is handed out (a malformed
     * one changes nothing), then each item as if it came alone; the answers go back together
     * ({@link BatchAnswers}).
     */
    private void batch(RequestMessage request, Caller caller, Consumer<ResponseMessage> reply) {
        long id = request.requestId();
        String refused = PeerAccess.refusal(BATCH, caller);
        if (refused != null) {
            logger.warn("{}: {}", self, refused);
            reply.accept(ResponseMessage.error(id, Status.PERMISSION_DENIED, refused));
            return;
        }
        List<JsonNode> items;
        try {
            items = batchItems(Json.mapper().readTree(request.payload()));
        } catch (IOException | RuntimeException e) {
            reply.accept(ResponseMessage.error(id, Status.INVALID_REQUEST, "bad replication batch: " + e.getMessage()));
            return;
        }
        BatchAnswers answers = new BatchAnswers(items.size(), answerWaitMillis,
                batchReply -> replyOk(id, batchReply, reply));
        for (int i = 0; i < items.size(); i++) {
            JsonNode item = items.get(i);
            dispatch(item.get("method").asText(), item.get("partition").asInt(), item.get("message"), Metadata.NONE,
                    caller, answers.item(i));
        }
        answers.start(timer);
    }

    /** The items of a batch's JSON {@code tree}, each checked for its fields, or an {@link IllegalArgumentException}. */
    private static List<JsonNode> batchItems(JsonNode tree) {
        JsonNode items = tree.path("items");
        if (!items.isArray() || items.isEmpty() || items.size() > MAX_BATCH_ITEMS) {
            throw new IllegalArgumentException("items: " + (items.isArray() ? items.size() + " of them" : items)
                    + " (expected: an array of 1.." + MAX_BATCH_ITEMS + ")");
        }
        List<JsonNode> checked = new ArrayList<>(items.size());
        for (JsonNode item : items) {
            JsonNode partition = item.path("partition");
            if (!partition.canConvertToInt() || !partition.isIntegralNumber() || partition.asInt() < 0
                    || !item.path("method").isTextual() || !item.path("message").isObject()) {
                throw new IllegalArgumentException("item " + checked.size() + ": " + item + " (expected: partition >= 0,"
                        + " method and message)");
            }
            checked.add(item);
        }
        return checked;
    }

    /** Answers request {@code id} with {@code answer} as JSON ({@code METHOD_FAILED} if it cannot be written). */
    private static void replyOk(long id, Object answer, Consumer<ResponseMessage> reply) {
        try {
            reply.accept(ResponseMessage.ok(id, 0, Json.mapper().writeValueAsBytes(answer)));
        } catch (IOException e) {
            reply.accept(ResponseMessage.error(id, Status.METHOD_FAILED, requireNonNullElse(e.getMessage(), e.toString())));
        }
    }

    private void refuse(String reason, BatchAnswers.Answer answer) {
        logger.warn("{}: {}", self, reason);
        answer.error(Status.PERMISSION_DENIED, reason);
    }
}
