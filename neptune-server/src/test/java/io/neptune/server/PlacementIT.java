package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.FailoverMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.JournalTestService.Append;
import io.neptune.server.JournalTestService.Appended;
import io.neptune.server.JournalTestService.Entries;
import io.neptune.server.JournalTestService.ReadAll;
import io.neptune.server.internal.PlacementStore;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link ClusterAdmin#addReplica} and {@link ClusterAdmin#removeReplica} ({@code docs/protocols/placement.md})
 * on real nodes under a steady write load: a 4th replica joins a partition, an old one leaves it,
 * both keep the new placement across a restart (their configs say otherwise), and every
 * acknowledged write is on every replica at the end. And what the service on the node is told
 * ({@link io.neptune.core.ServiceLifecycle#partitionAdded}, {@code partitionRemoved},
 * {@link io.neptune.core.ServiceEnvironment#partitions()}) for a {@code PartitionDatabase} service.
 */
class PlacementIT {
    private static final String SERVICE = "journal";
    private static final int PARTITION = 1;

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void addsAReplicaUnderWritesRemovesAnotherAndBothPlacementsSurviveARestart() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            for (int i = 0; i < 3; i++) {
                int priority = 3 - i;
                cluster.add("node-" + i, ClientConfig.defaults(), b -> b.host(new JournalTestService(),
                        HostingConfig.builder().replicas(3).priority(priority).build()));
            }
            cluster.add("node-3", ClientConfig.defaults(), PlacementIT::node3);
            NeptuneNode admin = cluster.add("admin", ClientConfig.defaults(), b -> b);
            // the admin must know node-3, as the CLI's add-replica waits for it
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.knownNodes().contains(NodeId.of("node-3")));
            await().atMost(Duration.ofSeconds(60)).until(() -> role(admin, "node-0") == ReplicaRole.PRIMARY
                    && admin.replicaRoles(SERVICE, PARTITION).values().stream()
                            .filter(r -> r == ReplicaRole.SECONDARY).count() == 2);

            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            List<Throwable> failures = new ArrayList<>();
            AtomicBoolean writing = new AtomicBoolean(true);
            Thread writer = new Thread(() -> {
                NeptuneHandle handle = NeptuneHandle.create();
                for (int i = 0; writing.get(); i++) {
                    String text = "w" + i;
                    try {
                        admin.client().callAsync(handle, SERVICE, PARTITION, "append", AccessMode.WRITE,
                                new Append(text), Appended.class, CallOptions.timeout(Duration.ofSeconds(20))).join();
                        acknowledged.add(text);
                    } catch (RuntimeException e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                }
            }, "journal-writer");
            writer.start();
            ClusterAdmin operator = admin.admin();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= 100);
                String added = operator.addReplica(SERVICE, PARTITION, "node-3", Duration.ofSeconds(60))
                        .get(90, TimeUnit.SECONDS);
                assertThat(added).contains("[node-0, node-1, node-2, node-3]");
                await().atMost(Duration.ofSeconds(20)).until(() -> role(admin, "node-3") == ReplicaRole.SECONDARY);
                int atAdd = acknowledged.size();
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= atAdd + 100);

                String removed = operator.removeReplica(SERVICE, PARTITION, "node-2").get(60, TimeUnit.SECONDS);
                assertThat(removed).contains("[node-0, node-1, node-3]");
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> !admin.replicaRoles(SERVICE, PARTITION).containsKey(NodeId.of("node-2")));
                int atRemove = acknowledged.size();
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= atRemove + 100);

                // restart both: their configs say node-3 does not host journal#1 and node-2 does
                cluster.node(3).close();
                cluster.node(2).close();
                cluster.add("node-3", ClientConfig.defaults(), PlacementIT::node3);
                cluster.add("node-2", ClientConfig.defaults(), b -> b.host(new JournalTestService(),
                        HostingConfig.builder().replicas(3).priority(1).build()));
                await().atMost(Duration.ofSeconds(60)).until(() -> role(admin, "node-3") == ReplicaRole.SECONDARY
                        && admin.replicaRoles(SERVICE, 2).containsKey(NodeId.of("node-2")));
                assertThat(admin.replicaRoles(SERVICE, PARTITION)).doesNotContainKey(NodeId.of("node-2"));
                int atRestart = acknowledged.size();
                await().atMost(Duration.ofSeconds(30)).until(() -> acknowledged.size() >= atRestart + 100);
            } finally {
                writing.set(false);
                writer.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertThat(failures).as("failed writes").isEmpty();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                List<String> first = entries(admin, "node-0");
                assertThat(first).containsAll(acknowledged).doesNotHaveDuplicates();
                assertThat(entries(admin, "node-1")).isEqualTo(first);
                assertThat(entries(admin, "node-3")).isEqualTo(first);
            });
            assertThat(operator.addReplica(SERVICE, PARTITION, "node-3", Duration.ofSeconds(10)).get(30,
                    TimeUnit.SECONDS)).contains("voters now [node-0, node-1, node-3]");
            assertThatThrownBy(() -> operator.addReplica(SERVICE, PARTITION, "node-9", Duration.ofSeconds(5))
                    .get(30, TimeUnit.SECONDS)).hasMessageContaining("NEP-PLACE-005 node: 'node-9'");
            // a mistyped node was answered "removed node-9 from the voters" (the primary's "is no voter"), exit 0
            assertThatThrownBy(() -> operator.removeReplica(SERVICE, PARTITION, "node-9").get(30, TimeUnit.SECONDS))
                    .hasMessageContaining("NEP-PLACE-005 node-9 is neither a voter of journal#1");
        }
    }

    /**
     * add-replica records the partition in the node's {@code placement.json} before the new replica's log
     * directory says it is a learner: a node killed between the two restarts hosting the partition with no
     * membership at all. It must come back as the learner it was made, not as a voter of an implicit set:
     * alone, with {@code replicas: 1}, such a voter elected itself primary of a partition it held nothing of,
     * while the partition's real primary could be serving elsewhere.
     */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aNodeKilledHalfWayThroughAddReplicaRestartsAsALearner() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NodeConfig config = cluster.config("node-1", ClientConfig.defaults());
            Files.createDirectories(config.dataDirectory());
            Files.writeString(config.dataDirectory().resolve(PlacementStore.FILE), "{\"" + SERVICE + "\":[" + PARTITION
                    + "]}");
            NeptuneNode restarted = cluster.add(config, b -> b.host(new JournalTestService(),
                    HostingConfig.builder().replicas(1).partitions().build()));
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> restarted.replicaRoles(SERVICE, PARTITION).containsKey(NodeId.of("node-1")));
            // the election timeout is well under a second: a replica that could stand would have won by now
            await().during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10))
                    .until(() -> role(restarted, "node-1") != ReplicaRole.PRIMARY);

            cluster.add("node-0", ClientConfig.defaults(), b -> b.host(new JournalTestService(),
                    HostingConfig.builder().replicas(1).build()));
            await().atMost(Duration.ofSeconds(60)).until(() -> role(restarted, "node-0") == ReplicaRole.PRIMARY);
            NeptuneHandle handle = NeptuneHandle.create();
            for (int i = 0; i < 20; i++) {
                restarted.client().callAsync(handle, SERVICE, PARTITION, "append", AccessMode.WRITE, new Append("w" + i),
                        Appended.class, CallOptions.timeout(Duration.ofSeconds(20))).join();
            }
            String added = restarted.admin().addReplica(SERVICE, PARTITION, "node-1", Duration.ofSeconds(60))
                    .get(90, TimeUnit.SECONDS);
            assertThat(added).contains("[node-0, node-1]");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                assertThat(role(restarted, "node-1")).isEqualTo(ReplicaRole.SECONDARY);
                assertThat(entries(restarted, "node-1")).isEqualTo(entries(restarted, "node-0")).hasSize(20);
            });
        }
    }

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void aFailStopPartitionRefusesPlacementChanges() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            for (int i = 0; i < 3; i++) {
                int priority = 3 - i;
                cluster.add("node-" + i, ClientConfig.defaults(), b -> b.host(new JournalTestService(),
                        HostingConfig.builder().replicas(3).priority(priority).failover(FailoverMode.FAIL_STOP).build()));
            }
            NeptuneNode admin = cluster.add("admin", ClientConfig.defaults(), b -> b);
            // all three announced: the check below that node-2 still hosts the partition needs the admin to have
            // heard it (under load 11 it once had not yet)
            await().atMost(Duration.ofSeconds(60)).until(() -> role(admin, "node-0") == ReplicaRole.PRIMARY
                    && admin.replicaRoles(SERVICE, PARTITION).size() == 3);
            assertThatThrownBy(() -> admin.admin().removeReplica(SERVICE, PARTITION, "node-2").get(30, TimeUnit.SECONDS))
                    .hasMessageContaining("NEP-PLACE-001");
            assertThat(admin.replicaRoles(SERVICE, PARTITION)).containsKey(NodeId.of("node-2"));
        }
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aPartitionDatabaseServiceIsToldOfAPartitionAddedAndRemovedLiveAndServesIt() throws Exception {
        String kv = "kv";
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            for (int i = 0; i < 3; i++) {
                int priority = 3 - i;
                // every applied record may go: node-3 will need a snapshot, restored into the rows of its database
                NodeConfig config = cluster.config("node-" + i, ClientConfig.defaults()).toBuilder()
                        .logRetention(new LogRetentionConfig(0, 20)).build();
                cluster.add(config, b -> b.host(new KvTestService(),
                        HostingConfig.builder().partitions(PARTITION).replicas(3).priority(priority).build()));
            }
            KvTestService service = new KvTestService();
            cluster.add("node-3", ClientConfig.defaults(), b -> b.host(service,
                    HostingConfig.builder().partitions().replicas(3).build()));   // none yet
            NeptuneNode admin = cluster.add("admin", ClientConfig.defaults(), b -> b);
            await().atMost(Duration.ofSeconds(30)).until(() -> admin.knownNodes().contains(NodeId.of("node-3")));
            await().atMost(Duration.ofSeconds(60)).until(() -> admin.replicaRoles(kv, PARTITION).values().stream()
                    .filter(r -> r == ReplicaRole.PRIMARY || r == ReplicaRole.SECONDARY).count() == 3);
            assertThat(service.environment().partitions()).isEmpty();

            NeptuneHandle handle = NeptuneHandle.create();
            for (int i = 0; i < 200; i++) {
                put(admin, handle, "k" + i, "v" + i);
            }
            ClusterAdmin operator = admin.admin();
            await().atMost(Duration.ofSeconds(60)).until(() -> operator.replicas(kv, PARTITION).get(30, TimeUnit.SECONDS)
                    .stream().filter(r -> r.node().equals("node-0")).mapToLong(ClusterAdmin.ReplicaStatus::logStart)
                    .max().orElse(0) > 1);

            // node-0 has the highest priority: until it leads, a priority handover can cut a placement change short
            // (NEP-PLACE-002, retryable; CI saw it here)
            await().atMost(Duration.ofSeconds(60)).until(() -> admin.replicaRoles(kv, PARTITION)
                    .get(NodeId.of("node-0")) == ReplicaRole.PRIMARY);

            // the service refuses: the node does not host the partition, and says why
            service.refusePartitions(true);
            assertThatThrownBy(() -> operator.addReplica(kv, PARTITION, "node-3", Duration.ofSeconds(30))
                    .get(60, TimeUnit.SECONDS)).hasMessageContaining("NEP-PLACE-008")
                    .hasMessageContaining("refusing partition " + PARTITION + " on purpose");
            assertThat(service.environment().partitions()).isEmpty();
            assertThat(call(admin, "node-3", kv, "count", new KvTestService.Count()).status())
                    .isEqualTo(Status.NOT_HOSTED);

            service.refusePartitions(false);
            assertThat(operator.addReplica(kv, PARTITION, "node-3", Duration.ofSeconds(60)).get(90, TimeUnit.SECONDS))
                    .contains("[node-0, node-1, node-2, node-3]");
            assertThat(service.environment().partitions()).containsExactly(PARTITION);
            for (int i = 200; i < 250; i++) {
                put(admin, handle, "k" + i, "v" + i);
            }
            // node-3 serves the partition from its own database: every write, the old ones from the snapshot
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                ResponseMessage count = call(admin, "node-3", kv, "count", new KvTestService.Count());
                assertThat(count.status()).as(count.errorMessage()).isEqualTo(Status.OK);
                assertThat(Json.mapper().readValue(count.payload(), Long.class)).isEqualTo(250);
            });
            ResponseMessage value = call(admin, "node-3", kv, "get", new KvTestService.Get("k7"));
            assertThat(Json.mapper().readValue(value.payload(), KvTestService.Value.class).v()).isEqualTo("v7");
            assertThat(service.placementEvents()).as("told first, with the partition not yet in partitions(),"
                    + " then the snapshot restored").startsWith("refused 1 []", "added 1 []", "restored 1");

            assertThat(operator.removeReplica(kv, PARTITION, "node-3").get(60, TimeUnit.SECONDS))
                    .contains("[node-0, node-1, node-2]");
            assertThat(service.placementEvents()).last().isEqualTo("removed 1 []");
            assertThat(service.environment().partitions()).isEmpty();
            assertThat(call(admin, "node-3", kv, "count", new KvTestService.Count()).status())
                    .isEqualTo(Status.NOT_HOSTED);
            assertThat(service.unpreparedCalls()).as("calls of a partition the service was not prepared for").isEmpty();
        }
    }

    private static void put(NeptuneNode admin, NeptuneHandle handle, String k, String v) {
        admin.client().callAsync(handle, "kv", PARTITION, "put", AccessMode.WRITE, new KvTestService.Put(k, v),
                KvTestService.Written.class, CallOptions.timeout(Duration.ofSeconds(20))).join();
    }

    /** A read of {@code service#1} answered by {@code node} itself. */
    private static ResponseMessage call(NeptuneNode observer, String node, String service, String method, Object request)
            throws Exception {
        RequestMessage message = new RequestMessage(0, service, PARTITION, method, AccessMode.READ, 10_000, 0,
                RequestId.NONE, Json.mapper().writeValueAsBytes(request));
        return ((DefaultNeptuneClient) observer.client()).sendTo(NodeId.of(node), message, PARTITION)
                .get(15, TimeUnit.SECONDS);
    }

    /** node-3 hosts only journal#0 by its config. */
    private static NeptuneNode.Builder node3(NeptuneNode.Builder b) {
        return b.host(new JournalTestService(), HostingConfig.builder().replicas(3).partitions(0).build());
    }

    private static ReplicaRole role(NeptuneNode observer, String node) {
        return observer.replicaRoles(SERVICE, PARTITION).getOrDefault(NodeId.of(node), ReplicaRole.RECOVERING);
    }

    /** The journal of the partition as node {@code node} itself holds it. */
    private static List<String> entries(NeptuneNode observer, String node) throws Exception {
        RequestMessage message = new RequestMessage(0, SERVICE, PARTITION, "all", AccessMode.READ, 10_000, 0,
                RequestId.NONE, Json.mapper().writeValueAsBytes(new ReadAll()));
        CompletableFuture<ResponseMessage> response = ((DefaultNeptuneClient) observer.client())
                .sendTo(NodeId.of(node), message, PARTITION);
        ResponseMessage answer = response.get(15, TimeUnit.SECONDS);
        assertThat(answer.status()).as("%s: %s", node, answer.errorMessage()).isEqualTo(Status.OK);
        return Json.mapper().readValue(answer.payload(), Entries.class).entries();
    }
}
