package io.neptune.examples.gateway.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.json.Json;
import io.neptune.examples.gateway.DemoControl;
import io.neptune.examples.gateway.internal.NodeHistory.NodeView;
import io.neptune.server.ClusterAdmin.AnnouncedReplica;
import io.neptune.server.ClusterAdmin.NodeStatus;
import io.neptune.server.ClusterAdmin.ReplicaStatus;
import io.neptune.server.NeptuneNode;
import io.neptune.server.internal.security.Audit;
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
 * The operator's routes: the cluster as this node's yellow page shows it (with each node's request
 * rate, and the nodes that left as {@code DOWN}, see {@link NodeHistory}), every replica of one
 * partition asked directly (with digests, or the error of one that did not answer), the gateway's
 * request rate, and in demo mode killing and restarting nodes through {@link DemoControl}.
 *
 * <p>Thread-safety: thread-safe; demo kills run on {@code killExecutor} and starts on
 * {@code startExecutor}, so a start waiting for its node to serve never holds up a kill.
 */
public final class AdminRoutes {
    private final NeptuneNode node;
    private final GatewayMetrics metrics;
    private final Sessions sessions;
    private final @Nullable DemoControl demo;
    private final Executor killExecutor;
    private final Executor startExecutor;
    private final NodeHistory history = new NodeHistory(System::nanoTime);
    private final ClassHistory classHistory = new ClassHistory(System::nanoTime);

    /** Creates the routes over {@code node}'s admin view; {@code demo} may be null (no demo mode). */
    public AdminRoutes(NeptuneNode node, GatewayMetrics metrics, Sessions sessions, @Nullable DemoControl demo,
            Executor killExecutor, Executor startExecutor) {
        this.node = node;
        this.metrics = metrics;
        this.sessions = sessions;
        this.demo = demo;
        this.killExecutor = killExecutor;
        this.startExecutor = startExecutor;
    }

    /** Adds the routes to {@code router}. */
    public void register(Router router) {
        router.add("GET", "/admin/cluster", (request, parameters) -> CompletableFuture.completedFuture(cluster()))
                .add("GET", "/admin/replicas/{service}/{partition}", this::replicas)
                .add("GET", "/admin/metrics", (request, parameters) -> CompletableFuture.completedFuture(metrics()))
                .add("POST", "/admin/nodes/{id}/kill", (request, parameters) -> demo(parameters.get(0), "kill",
                        DemoControl::kill, killExecutor))
                .add("POST", "/admin/nodes/{id}/start", (request, parameters) -> demo(parameters.get(0), "start",
                        DemoControl::start, startExecutor));
    }

    private GatewayResponse cluster() {
        List<AnnouncedReplica> replicas = node.admin().announcedReplicas();
        Set<String> recovering = new HashSet<>();
        replicas.stream().filter(r -> r.role() == ReplicaRole.RECOVERING).forEach(r -> recovering.add(r.node()));
        Map<String, ObjectNode> byId = new TreeMap<>();
        List<NodeStatus> live = node.admin().nodes();
        for (NodeView n : history.observe(live)) {
            String state = n.down() ? "DOWN" : recovering.contains(n.node()) ? "RECOVERING" : "RUNNING";
            byId.put(n.node(), nodeJson(n.node(), n.down() ? -1 : n.pid(), state, n.address(), n.requestsPerSecond(),
                    n.adminUrl()));
        }
        DemoControl control = demo;
        if (control != null) {
            for (String managed : control.nodes()) {
                ObjectNode known = byId.get(managed);
                if (known == null || known.get("state").asText().equals("DOWN")) {
                    byId.put(managed, nodeJson(managed, control.pid(managed), "DOWN",
                            known == null ? "" : known.get("address").asText(), 0,
                            known == null ? "" : known.get("adminUrl").asText()));
                }
            }
        }
        ObjectNode json = Json.mapper().createObjectNode();
        json.putArray("nodes").addAll(byId.values());
        ArrayNode partitions = json.putArray("partitions");
        ArrayNode current = null;
        AnnouncedReplica previous = null;
        for (AnnouncedReplica r : replicas) {
            if (current == null || previous == null || !r.service().equals(previous.service())
                    || r.partition() != previous.partition()) {
                current = partitions.addObject().put("service", r.service()).put("partition", r.partition())
                        .putArray("replicas");
            }
            current.addObject().put("node", r.node()).put("role", r.role().name().toLowerCase(Locale.ROOT))
                    .put("priority", r.priority()).put("version", r.version());
            previous = r;
        }
        ArrayNode classes = json.putArray("classes");
        for (ClassHistory.ClassView c : classHistory.observe(live)) {
            classes.addObject().put("service", c.service()).put("class", c.serviceClass())
                    .put("guaranteedShare", c.guaranteedShare()).put("arrivals", c.arrivals())
                    .put("dropped", c.dropped()).put("offeredYield", round(c.offeredYield()))
                    .put("realizedYield", round(c.realizedYield())).put("lossPercent", round(c.lossPercent()))
                    .put("share", round(c.share()));
        }
        return GatewayResponse.json(200, json);
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }

    private static ObjectNode nodeJson(String id, long pid, String state, String address, double requestsPerSecond,
            String adminUrl) {
        return Json.mapper().createObjectNode().put("id", id).put("pid", pid).put("state", state).put("address", address)
                .put("requestsPerSecond", requestsPerSecond).put("adminUrl", adminUrl);
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
                ObjectNode replica = list.addObject().put("node", r.node()).put("role", r.role().name().toLowerCase(Locale.ROOT));
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
        json.putObject("sessions").put("confirmed", sessions.size()).put("pending", sessions.pending());
        ArrayNode nodes = json.putArray("nodes");
        List<NodeStatus> live = node.admin().nodes();
        Map<String, Double> rates = new TreeMap<>();
        history.observe(live).forEach(n -> rates.put(n.node(), n.requestsPerSecond()));
        for (NodeStatus n : live) {
            nodes.addObject().put("id", n.node()).put("load", n.load())
                    .put("requestsPerSecond", rates.getOrDefault(n.node(), 0.0));
        }
        return GatewayResponse.json(200, json);
    }

    private CompletableFuture<GatewayResponse> demo(String id, String action, DemoAction run, Executor executor) {
        DemoControl control = demo;
        if (control == null) {
            throw HttpStatusException.notFound("demo mode is off: nodes cannot be killed or started from here");
        }
        if (!control.nodes().contains(id)) {
            throw HttpStatusException.notFound("node: '" + id + "' (expected: one of " + control.nodes() + ")");
        }
        // only the admin principal reaches a POST of /admin (AccessPolicy)
        Audit.operatorAction(node.node(), "the gateway's admin token", action, "node " + id);
        return CompletableFuture.runAsync(() -> run.apply(control, id), executor).thenApply(v -> GatewayResponse.json(200,
                Json.mapper().createObjectNode().put("node", id).put("action", action)));
    }

    @FunctionalInterface
    private interface DemoAction {
        void apply(DemoControl control, String node);
    }
}
