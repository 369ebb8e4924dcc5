package io.neptune.examples.gateway.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.neptune.core.internal.json.Json;
import io.neptune.examples.gateway.DemoControl;
import io.neptune.server.ClusterAdmin.AnnouncedReplica;
import io.neptune.server.ClusterAdmin.NodeStatus;
import io.neptune.server.ClusterAdmin.ReplicaStatus;
import io.neptune.server.NeptuneNode;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.jspecify.annotations.Nullable;

/**
 * The operator's routes: the cluster as this node's yellow page shows it, every replica of one
 * partition asked directly (with digests), the gateway's request rate, and in demo mode killing
 * and restarting nodes through {@link DemoControl}.
 *
 * <p>Thread-safety: thread-safe; demo actions run on {@code demoExecutor}.
 */
public final class AdminRoutes {
    private final NeptuneNode node;
    private final GatewayMetrics metrics;
    private final @Nullable DemoControl demo;
    private final Executor demoExecutor;

    /** Creates the routes over {@code node}'s admin view; {@code demo} may be null (no demo mode). */
    public AdminRoutes(NeptuneNode node, GatewayMetrics metrics, @Nullable DemoControl demo, Executor demoExecutor) {
        this.node = node;
        this.metrics = metrics;
        this.demo = demo;
        this.demoExecutor = demoExecutor;
    }

    /** Adds the routes to {@code router}. */
    public void register(Router router) {
        router.add("GET", "/admin/cluster", (request, parameters) -> CompletableFuture.completedFuture(cluster()))
                .add("GET", "/admin/replicas/{service}/{partition}", this::replicas)
                .add("GET", "/admin/metrics", (request, parameters) -> CompletableFuture.completedFuture(metrics()))
                .add("POST", "/admin/nodes/{id}/kill", (request, parameters) -> demo(parameters.get(0), "kill",
                        DemoControl::kill))
                .add("POST", "/admin/nodes/{id}/start", (request, parameters) -> demo(parameters.get(0), "start",
                        DemoControl::start));
    }

    private GatewayResponse cluster() {
        List<NodeStatus> nodes = node.admin().nodes();
        List<AnnouncedReplica> replicas = node.admin().announcedReplicas();
        Set<String> recovering = new HashSet<>();
        replicas.stream().filter(r -> r.role().equals("RECOVERING")).forEach(r -> recovering.add(r.node()));
        Map<String, ObjectNode> byId = new TreeMap<>();
        for (NodeStatus n : nodes) {
            byId.put(n.node(), Json.mapper().createObjectNode().put("id", n.node()).put("pid", n.pid())
                    .put("state", recovering.contains(n.node()) ? "RECOVERING" : "RUNNING").put("address", n.address()));
        }
        DemoControl control = demo;
        if (control != null) {
            for (String down : control.nodes()) {
                if (!byId.containsKey(down)) {
                    byId.put(down, Json.mapper().createObjectNode().put("id", down).put("pid", control.pid(down))
                            .put("state", "DOWN").put("address", ""));
                }
            }
        }
        ObjectNode json = Json.mapper().createObjectNode();
        json.putArray("nodes").addAll(byId.values());
        ArrayNode partitions = json.putArray("partitions");
        ArrayNode current = null;
        AnnouncedReplica previous = null;
        for (AnnouncedReplica r : replicas) {
            if (current == null || !r.service().equals(previous.service()) || r.partition() != previous.partition()) {
                current = partitions.addObject().put("service", r.service()).put("partition", r.partition())
                        .putArray("replicas");
            }
            current.addObject().put("node", r.node()).put("role", r.role().toLowerCase(Locale.ROOT))
                    .put("priority", r.priority()).put("version", r.version());
            previous = r;
        }
        return GatewayResponse.json(200, json);
    }

    private CompletableFuture<GatewayResponse> replicas(GatewayRequest request, List<String> parameters) {
        String service = parameters.get(0);
        int partition;
        try {
            partition = Integer.parseInt(parameters.get(1));
        } catch (NumberFormatException e) {
            throw HttpStatusException.badRequest("partition: '" + parameters.get(1) + "' (expected: an integer)");
        }
        return node.admin().replicas(service, partition).thenApply(replicas -> {
            if (replicas.isEmpty()) {
                throw HttpStatusException.notFound("no replica of " + service + "#" + partition + " in the yellow page");
            }
            ObjectNode json = Json.mapper().createObjectNode();
            ArrayNode list = json.putArray("replicas");
            for (ReplicaStatus r : replicas) {
                ObjectNode replica = list.addObject().put("node", r.node()).put("role", r.role().toLowerCase(Locale.ROOT));
                if (r.error().isEmpty()) {
                    replica.put("version", r.version()).put("digest", r.digest());
                } else {
                    // No answer: the version is only the last announced one and there is no digest.
                    replica.put("announcedVersion", r.version()).put("error", r.error());
                }
            }
            return GatewayResponse.json(200, json);
        });
    }

    private GatewayResponse metrics() {
        ObjectNode json = Json.mapper().createObjectNode().put("demo", demo != null)
                .put("gatewayNode", node.node().value()).put("requestsPerSecond", metrics.perSecond());
        ObjectNode services = json.putObject("services");
        metrics.perSecondByService().forEach(services::put);
        ArrayNode nodes = json.putArray("nodes");
        for (NodeStatus n : node.admin().nodes()) {
            nodes.addObject().put("id", n.node()).put("load", n.load());
        }
        return GatewayResponse.json(200, json);
    }

    private CompletableFuture<GatewayResponse> demo(String id, String action, DemoAction run) {
        DemoControl control = demo;
        if (control == null) {
            throw HttpStatusException.notFound("demo mode is off: nodes cannot be killed or started from here");
        }
        if (!control.nodes().contains(id)) {
            throw HttpStatusException.notFound("node: '" + id + "' (expected: one of " + control.nodes() + ")");
        }
        return CompletableFuture.runAsync(() -> run.apply(control, id), demoExecutor).thenApply(v -> GatewayResponse.json(200,
                Json.mapper().createObjectNode().put("node", id).put("action", action)));
    }

    @FunctionalInterface
    private interface DemoAction {
        void apply(DemoControl control, String node);
    }
}
