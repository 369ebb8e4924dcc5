package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.core.NodeId;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.ReplicationEngine;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * Node-level operator commands over the request protocol, as requests to the reserved service
 * {@value #SERVICE} (no user service can take a name starting with {@code $}): {@code drain} with
 * {@code {"timeoutMillis": n}} starts draining the node ({@link NodeDrain}) and answers at once with
 * the primaries it is about to hand over; the operator watches the rest in the yellow page.
 * {@code host} and {@code unhost} with {@code {"service": s, "partition": p}} start or stop hosting a
 * partition (an operator's add-replica or remove-replica, {@code docs/protocols/placement.md}); they
 * run on the node's placement thread, one at a time, never on the event loop that received them,
 * since they block (files, the service's {@code partitionAdded}/{@code partitionRemoved}).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class NodeControl {
    /** The reserved service name of node commands. */
    public static final String SERVICE = "$node";
    /** The command that drains the node. */
    public static final String DRAIN = "drain";
    /** The command that makes the node host a partition as a learner ({@code {"service", "partition"}}). */
    public static final String HOST = "host";
    /** The command that makes the node stop hosting a partition ({@code {"service", "partition"}}). */
    public static final String UNHOST = "unhost";

    private final NodeId node;
    private final ReplicationEngine replication;
    private final Consumer<Duration> drain;
    private final Executor placement;

    /**
     * Creates the endpoint of a node.
     *
     * @param drain starts draining the node with the given timeout, then stops it; must not block
     * @param placement the node's placement thread, which runs {@value #HOST} and {@value #UNHOST}
     */
    public NodeControl(NodeId node, ReplicationEngine replication, Consumer<Duration> drain, Executor placement) {
        this.node = requireNonNull(node, "node");
        this.replication = requireNonNull(replication, "replication");
        this.drain = requireNonNull(drain, "drain");
        this.placement = requireNonNull(placement, "placement");
    }

    /** Handles a request to {@value #SERVICE}; {@code reply} receives exactly one response. */
    public void handle(RequestMessage request, Consumer<ResponseMessage> reply) {
        long id = request.requestId();
        if (request.method().equals(HOST) || request.method().equals(UNHOST)) {
            try {
                placement.execute(() -> place(request, reply));
            } catch (RejectedExecutionException e) {
                reply.accept(ResponseMessage.error(id, Status.UNAVAILABLE, node + " is shutting down"));
            }
            return;
        }
        if (!request.method().equals(DRAIN)) {
            reply.accept(ResponseMessage.error(id, Status.UNKNOWN_METHOD, "node command '" + request.method()
                    + "' (expected: " + DRAIN + ", " + HOST + " or " + UNHOST + ")"));
            return;
        }
        long timeoutMillis;
        try {
            timeoutMillis = integer(Json.mapper().readTree(request.payload()), "timeoutMillis", 1, Long.MAX_VALUE);
        } catch (IOException | IllegalArgumentException e) {
            reply.accept(ResponseMessage.error(id, Status.INVALID_REQUEST, "bad drain request: " + e.getMessage()));
            return;
        }
        boolean already = replication.isDraining();
        List<String> primaries = replication.primaries();
        if (!already) {
            drain.accept(Duration.ofMillis(timeoutMillis));
        }
        try {
            reply.accept(ResponseMessage.ok(id, 0, Json.mapper().writeValueAsBytes(Map.of("node", node.value(),
                    "accepted", !already, "primaries", primaries, "reason", already ? "already draining" : ""))));
        } catch (IOException e) {
            reply.accept(ResponseMessage.error(id, Status.METHOD_FAILED, String.valueOf(e.getMessage())));
        }
    }

    /**
     * The integer {@code field} of {@code body}, from {@code min} to {@code max}: a boolean, a
     * fraction, a string or a number out of range is refused, not coerced (Jackson's {@code asLong}
     * made {@code true} a 1 ms drain and 4294967296 partition 0).
     */
    private static long integer(JsonNode body, String field, long min, long max) {
        JsonNode value = body.path(field);
        if (!value.isIntegralNumber() || !value.canConvertToLong() || value.asLong() < min || value.asLong() > max) {
            throw new IllegalArgumentException(field + ": " + (value.isMissingNode() ? "missing" : value.toString())
                    + " (expected: an integer from " + min + " to " + max + ")");
        }
        return value.asLong();
    }

    /** {@value #HOST} or {@value #UNHOST}: answers {@code {"accepted", "reason"}}. */
    private void place(RequestMessage request, Consumer<ResponseMessage> reply) {
        long id = request.requestId();
        String reason;
        boolean accepted;
        String service;
        int partition;
        try {
            JsonNode body = Json.mapper().readTree(request.payload());
            JsonNode name = body.path("service");
            if (!name.isTextual()) {
                throw new IllegalArgumentException("service: " + name + " (expected: a service name)");
            }
            service = name.asText();
            partition = (int) integer(body, "partition", 0, Integer.MAX_VALUE);
        } catch (IOException | IllegalArgumentException e) {
            reply.accept(ResponseMessage.error(id, Status.INVALID_REQUEST, "bad " + request.method() + " request: "
                    + e.getMessage()));
            return;
        }
        try {
            reason = request.method().equals(HOST) ? replication.host(service, partition)
                    : replication.unhost(service, partition);
            accepted = true;
        } catch (RuntimeException e) {
            reason = String.valueOf(e.getMessage());
            accepted = false;
        }
        try {
            reply.accept(ResponseMessage.ok(id, 0, Json.mapper().writeValueAsBytes(Map.of("node", node.value(),
                    "accepted", accepted, "reason", reason))));
        } catch (IOException e) {
            reply.accept(ResponseMessage.error(id, Status.METHOD_FAILED, String.valueOf(e.getMessage())));
        }
    }
}
