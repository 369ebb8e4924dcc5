package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.ReplicaRole;
import io.neptune.core.SecurityConfig;
import io.neptune.core.SecurityConfig.TlsMode;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Reply;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A rolling move of membership security (issue 23, docs/SECURITY.md "Turning it on"): in-process
 * nodes on the loopback stack (JGroups over TCP on 127.0.0.1), restarted one at a time on their data
 * with the next {@code security.tls} setting. After every step each node's JGroups view holds every
 * node and the client, and each yellow page lists every replica: membership never splits. Under
 * writes and reads through the move from {@code permissive} to {@code required}, no call fails and
 * every acknowledged write is on every replica at the end.
 */
class MembershipMigrationIT {
    private static final String KV = KvWriteLoad.SERVICE;
    private static final int PARTITIONS = 8;
    private static final List<String> NODES = List.of("node-0", "node-1", "node-2");
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration STEP = Duration.ofSeconds(120);
    private static final Pattern VIEW_MEMBERS = Pattern.compile("neptune_membership_view_members\\{[^}]*} ([0-9.]+)");

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aRollingMoveFromDisabledToPermissiveKeepsOneView() throws Exception {
        Function<NeptuneNode.Builder, NeptuneNode.Builder> echo = b -> b.host(new EchoTestService(), HostingConfig.all());
        try (MiniCluster cluster = MiniCluster.startWithTls(0, b -> b)) {
            for (String node : NODES) {
                cluster.add(config(cluster, node, TlsMode.DISABLED), echo);
            }
            // stays plaintext throughout: permissive nodes must keep talking to a peer without TLS
            NeptuneNode client = cluster.add(config(cluster, "client", TlsMode.DISABLED), b -> b);
            awaitOneCluster(cluster, client, "echo", "all disabled");

            for (int i = 0; i < NODES.size(); i++) {
                cluster.node(i).close();
                cluster.restart(i, config(cluster, NODES.get(i), TlsMode.PERMISSIVE), echo);
                awaitOneCluster(cluster, client, "echo", NODES.get(i) + " permissive");
                for (int partition = 0; partition < PARTITIONS; partition++) {
                    Reply reply = client.client().call(NeptuneHandle.create(), "echo", partition, "echo",
                            AccessMode.READ, new Echo("p" + partition), Reply.class, CallOptions.timeout(CALL_TIMEOUT));
                    assertThat(reply.text()).isEqualTo("p" + partition);
                }
            }
        }
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void aRollingMoveFromPermissiveToRequiredUnderWritesLosesAndFailsNothing() throws Exception {
        Function<NeptuneNode.Builder, NeptuneNode.Builder> kv = b -> b.host(new KvTestService(),
                HostingConfig.builder().replicas(NODES.size()).build());
        try (MiniCluster cluster = MiniCluster.startWithTls(0, b -> b)) {
            for (String node : NODES) {
                cluster.add(config(cluster, node, TlsMode.PERMISSIVE), kv);
            }
            NeptuneNode client = cluster.add(config(cluster, "client", TlsMode.PERMISSIVE), b -> b);
            awaitOneCluster(cluster, client, KV, "all permissive");
            awaitServing(client);

            KvWriteLoad writes = new KvWriteLoad(client.client(), PARTITIONS, 16, CALL_TIMEOUT);
            KvReadLoad reads = new KvReadLoad(client.client(), KV, PARTITIONS, CALL_TIMEOUT);
            writes.start(100);
            reads.start(2);
            try {
                for (int i = 0; i < NODES.size(); i++) {
                    long before = writes.acknowledged();
                    ReplicatedProcesses.await(() -> writes.acknowledged() > before + 50, STEP,
                            "writes going on before " + NODES.get(i) + " restarts");
                    assertThat(cluster.node(i).drain(Duration.ofSeconds(60))).as("%s drained", NODES.get(i)).isTrue();
                    cluster.restart(i, config(cluster, NODES.get(i), TlsMode.REQUIRED), kv);
                    awaitOneCluster(cluster, client, KV, NODES.get(i) + " required");
                    awaitServing(client);
                    System.out.printf("MembershipMigrationIT: %s required; %d writes acknowledged, %d failed %s;"
                            + " %d reads, %d failed %s%n", NODES.get(i), writes.acknowledged(), writes.unknown(),
                            writes.failureKinds(), reads.succeeded.get(), reads.failed.get(), reads.failures);
                }
                long before = writes.acknowledged();
                ReplicatedProcesses.await(() -> writes.acknowledged() > before + 50, STEP,
                        "writes going on after the last restart");
            } finally {
                writes.stop();
                reads.stop();
            }

            assertThat(writes.unknown()).as("failed writes: %s", writes.failureKinds()).isZero();
            assertThat(reads.failed.get()).as("failed reads: %s", reads.failures).isZero();
            awaitEveryReplicaHolds((DefaultNeptuneClient) client.client(), writes);
        }
    }

    /** {@code node}'s config in {@code cluster} with TLS {@code mode} (and its node certificate unless disabled). */
    private static NodeConfig config(MiniCluster cluster, String node, TlsMode mode) {
        SecurityConfig security = mode == TlsMode.DISABLED ? SecurityConfig.disabled()
                : cluster.certificates().config(mode, Principal.node(NodeId.of(node)));
        return cluster.config(node, ClientConfig.defaults()).toBuilder().security(security).build();
    }

    /**
     * Waits until every node's JGroups view holds every node and the client, and every yellow page
     * (the client's too) lists each node's replica of every partition of {@code service}.
     */
    private static void awaitOneCluster(MiniCluster cluster, NeptuneNode client, String service, String step) {
        List<NeptuneNode> members = new ArrayList<>(cluster.nodes());
        ReplicatedProcesses.await(() -> members.stream().allMatch(member -> viewMembers(member) == members.size()
                && listsEveryReplica(member, service)), STEP,
                "one view of " + members.size() + " and every replica listed everywhere (" + step + ")");
        assertThat(client.knownNodes()).extracting(NodeId::value).containsExactlyInAnyOrderElementsOf(NODES);
    }

    private static boolean listsEveryReplica(NeptuneNode member, String service) {
        for (int partition = 0; partition < PARTITIONS; partition++) {
            Set<String> replicas = new HashSet<>();
            member.replicasOf(service, partition).forEach(node -> replicas.add(node.value()));
            if (!replicas.equals(Set.copyOf(NODES))) {
                return false;
            }
        }
        return true;
    }

    /** The size of {@code node}'s JGroups view, from its metrics. */
    private static int viewMembers(NeptuneNode node) {
        Matcher matcher = VIEW_MEMBERS.matcher(node.metricsText());
        return matcher.find() ? (int) Double.parseDouble(matcher.group(1)) : -1;
    }

    /** Waits until, as the client sees it, every partition has a primary and two serving secondaries. */
    private static void awaitServing(NeptuneNode client) {
        ReplicatedProcesses.await(() -> {
            for (int partition = 0; partition < PARTITIONS; partition++) {
                Map<NodeId, ReplicaRole> roles = client.replicaRoles(KV, partition);
                if (roles.size() != NODES.size() || roles.containsValue(ReplicaRole.RECOVERING)
                        || roles.values().stream().filter(r -> r == ReplicaRole.PRIMARY).count() != 1) {
                    return false;
                }
            }
            return true;
        }, STEP, "every partition with a primary and serving secondaries");
    }

    /** Waits until each node's replica of every partition holds every acknowledged write. */
    private static void awaitEveryReplicaHolds(DefaultNeptuneClient client, KvWriteLoad writes) {
        Set<Long> acknowledged = writes.acknowledgedIds();
        for (String node : NODES) {
            for (int partition = 0; partition < PARTITIONS; partition++) {
                int p = partition;
                Set<Long> expected = new HashSet<>();
                acknowledged.stream().filter(id -> writes.partition(id) == p).forEach(expected::add);
                ReplicatedProcesses.await(() -> held(client, node, p).containsAll(expected), STEP,
                        "every acknowledged write of " + KV + "#" + p + " on " + node);
            }
        }
    }

    /** The write ids {@code node}'s replica of {@code partition} holds; empty if it cannot answer now. */
    private static Set<Long> held(DefaultNeptuneClient client, String node, int partition) {
        Set<Long> ids = new HashSet<>();
        try {
            for (int k = 0; k < KvWriteLoad.KEYS; k++) {
                RequestMessage get = new RequestMessage(0, KV, partition, "get", AccessMode.READ, 10_000, 0,
                        RequestId.NONE, Json.mapper().writeValueAsBytes(new KvTestService.Get("k" + k)));
                ResponseMessage answer = client.sendTo(NodeId.of(node), get, partition).get(15, TimeUnit.SECONDS);
                if (answer.status() != Status.OK) {
                    return Set.of();
                }
                String value = Json.mapper().readValue(answer.payload(), KvTestService.Value.class).v();
                if (value != null) {
                    for (String token : value.split(",")) {
                        if (!token.isEmpty()) {
                            ids.add(Long.parseLong(token));
                        }
                    }
                }
            }
        } catch (Exception e) {
            return Set.of(); // not serving yet
        }
        return ids;
    }
}
