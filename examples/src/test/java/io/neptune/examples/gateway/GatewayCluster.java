package io.neptune.examples.gateway;

import static org.awaitility.Awaitility.await;

import io.neptune.client.ClientConfig;
import io.neptune.core.ReplicaRole;
import io.neptune.examples.auction.AuctionService;
import io.neptune.examples.cache.CacheService;
import io.neptune.examples.discussion.DiscussionService;
import io.neptune.examples.front.FrontService;
import io.neptune.server.ClusterAdmin.AnnouncedReplica;
import io.neptune.server.HostingConfig;
import io.neptune.server.MiniCluster;
import io.neptune.server.NeptuneNode;
import io.neptune.server.SchedulingConfig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * An in-JVM cluster for gateway tests: {@code nodes} nodes hosting the discussion, auction and
 * cache services (every partition on every node, primaries spread evenly by priority) and the
 * unreplicated front service calling the first two (every partition on every node), a node
 * {@code gateway} hosting nothing, and an {@link HttpGateway} on a free loopback port whose admin
 * token is {@link #ADMIN_TOKEN}.
 */
final class GatewayCluster implements AutoCloseable {
    static final List<String> SERVICES = List.of("auction", "cache", "discussion");
    static final int PARTITIONS = 64;
    /** The partitions the nodes announce: those of {@link #SERVICES} and the front service's. */
    static final int ANNOUNCED_PARTITIONS = SERVICES.size() * PARTITIONS + FrontService.PARTITIONS;
    /** The admin token of the gateway {@link #start} starts (unless its settings replace it). */
    static final String ADMIN_TOKEN = "test-admin-token-" + java.util.UUID.randomUUID();

    private final MiniCluster cluster;
    private final NeptuneNode gatewayNode;
    private final HttpGateway gateway;

    private GatewayCluster(MiniCluster cluster, NeptuneNode gatewayNode, HttpGateway gateway) {
        this.cluster = cluster;
        this.gatewayNode = gatewayNode;
        this.gateway = gateway;
    }

    /**
     * Starts the cluster and waits until every partition of every service has all its replicas, a
     * primary (but the front's) and no replica recovering.
     */
    static GatewayCluster start(int nodes, Consumer<HttpGateway.Builder> gatewaySettings) {
        return start(nodes, gatewaySettings, SchedulingConfig.defaults());
    }

    /** As {@link #start(int, Consumer)}, the hosting nodes scheduling their services by {@code scheduling}. */
    static GatewayCluster start(int nodes, Consumer<HttpGateway.Builder> gatewaySettings, SchedulingConfig scheduling) {
        MiniCluster cluster = MiniCluster.start(0, b -> b);
        try {
            for (int i = 0; i < nodes; i++) {
                // Spread the primaries: node i has the highest priority on partitions p with p % nodes == i.
                Map<Integer, Integer> priorities = new java.util.HashMap<>();
                for (int p = 0; p < PARTITIONS; p++) {
                    priorities.put(p, nodes - Math.floorMod(p - i, nodes));
                }
                HostingConfig hosting = HostingConfig.builder().replicas(nodes).priorities(priorities).workers(2).build();
                HostingConfig front = HostingConfig.builder().replicas(nodes).workers(2).build();
                cluster.add(cluster.config("node-" + i, ClientConfig.defaults()).toBuilder().scheduling(scheduling).build(),
                        b -> b.host(new DiscussionService(), hosting)
                        .host(new AuctionService(), hosting).host(new CacheService(), hosting)
                        .host(new FrontService(), front));
            }
            NeptuneNode gatewayNode = cluster.add("gateway", ClientConfig.defaults(), b -> b);
            await().atMost(Duration.ofMinutes(4)).pollInterval(Duration.ofMillis(250))
                    .until(() -> serving(gatewayNode, nodes));
            HttpGateway.Builder builder = HttpGateway.builder(gatewayNode).port(0).adminToken(ADMIN_TOKEN);
            gatewaySettings.accept(builder);
            return new GatewayCluster(cluster, gatewayNode, builder.start());
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    private static boolean serving(NeptuneNode node, int replicas) {
        Map<String, List<AnnouncedReplica>> byPartition = node.admin().announcedReplicas().stream()
                .collect(Collectors.groupingBy(r -> r.service() + "#" + r.partition()));
        if (byPartition.size() != ANNOUNCED_PARTITIONS) {
            return false;
        }
        return byPartition.values().stream().allMatch(list -> list.size() == replicas
                && list.stream().filter(r -> r.role() == ReplicaRole.PRIMARY).count()
                        == (list.get(0).service().equals(FrontService.NAME) ? 0 : 1) // level 1: no primary
                && list.stream().noneMatch(r -> r.role() == ReplicaRole.RECOVERING));
    }

    /** {@code prefix} plus a random suffix: a topic, category or key no other test uses. */
    static String unique(String prefix) {
        return prefix + "-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    }

    HttpGateway gateway() {
        return gateway;
    }

    NeptuneNode gatewayNode() {
        return gatewayNode;
    }

    MiniCluster cluster() {
        return cluster;
    }

    /** The ids of the hosting nodes (a node hosting nothing, like the gateway's, announces nothing). */
    Set<String> nodeIds() {
        return cluster.nodes().stream().filter(n -> n != gatewayNode).map(n -> n.node().value())
                .collect(Collectors.toSet());
    }

    String baseUrl() {
        return "http://127.0.0.1:" + gateway.port();
    }

    @Override
    public void close() {
        try {
            gateway.close();
        } finally {
            cluster.close();
        }
    }
}
