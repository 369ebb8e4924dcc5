package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.FailoverMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.server.KvTestService.Put;
import io.neptune.server.KvTestService.Written;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A majority primary's heartbeats to a follower travel together: those that one tick of its
 * partitions sends the same connection go in one frame ({@code neptune_peer_batches_total}), and
 * every follower still hears its primary: no partition holds an election while the cluster idles.
 */
class HeartbeatBatchIT {
    private static final String SERVICE = "kv";
    private static final int PARTITIONS = 8;
    private static final Pattern EPOCH = Pattern.compile("^neptune_replica_epoch\\{([^}]*)} (\\S+)$", Pattern.MULTILINE);

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aPrimarysHeartbeatsOfOneTickTravelInOneFrameAndKeepEveryFollower() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            for (int i = 0; i < 3; i++) {
                int priority = 3 - i;   // node-0 leads every partition
                cluster.add("node-" + i, ClientConfig.defaults(), b -> b.host(new KvTestService(),
                        HostingConfig.builder().replicas(3).priority(priority).failover(FailoverMode.MAJORITY).build()));
            }
            NeptuneNode client = cluster.add("client", ClientConfig.defaults(), b -> b);
            NeptuneNode leader = cluster.node(0);
            await().atMost(Duration.ofSeconds(60)).until(() -> allLedBy(client, "node-0"));
            NeptuneHandle handle = NeptuneHandle.create();
            for (int p = 0; p < PARTITIONS; p++) {
                client.client().call(handle, SERVICE, p, "put", AccessMode.WRITE, new Put("k", "v" + p), Written.class,
                        CallOptions.timeout(Duration.ofSeconds(20)));
            }
            double batchesBefore = counter(leader, "neptune_peer_batches_total");
            Map<String, String> epochs = epochs(cluster);

            // idle: only heartbeats flow, 8 partitions to 2 followers, every 250-300 ms
            await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(60))
                    .until(() -> counter(leader, "neptune_peer_batches_total") >= batchesBefore + 4);

            assertThat(counter(leader, "neptune_peer_batched_messages_total"))
                    .as("heartbeats sent in batches").isGreaterThanOrEqualTo(2 * counter(leader, "neptune_peer_batches_total"));
            assertThat(epochs(cluster)).as("every replica's epoch after the idle window: no election").isEqualTo(epochs);
            assertThat(allLedBy(client, "node-0")).isTrue();
            for (int p = 0; p < PARTITIONS; p++) {
                Written written = client.client().call(handle, SERVICE, p, "put", AccessMode.WRITE, new Put("k", "w" + p),
                        Written.class, CallOptions.timeout(Duration.ofSeconds(20)));
                assertThat(written.node()).isEqualTo("node-0");
            }
        }
    }

    private static boolean allLedBy(NeptuneNode client, String node) {
        for (int p = 0; p < PARTITIONS; p++) {
            Map<NodeId, ReplicaRole> roles = client.replicaRoles(SERVICE, p);
            if (roles.size() != 3 || roles.get(NodeId.of(node)) != ReplicaRole.PRIMARY
                    || roles.values().stream().filter(r -> r == ReplicaRole.SECONDARY).count() != 2) {
                return false;
            }
        }
        return true;
    }

    /** Every hosted replica's epoch, by node and partition. */
    private static Map<String, String> epochs(MiniCluster cluster) {
        Map<String, String> epochs = new TreeMap<>();
        for (int i = 0; i < 3; i++) {
            Matcher m = EPOCH.matcher(cluster.node(i).metricsText());
            while (m.find()) {
                epochs.put("node-" + i + " " + m.group(1), m.group(2));
            }
        }
        assertThat(epochs).as("epoch gauges").hasSize(3 * PARTITIONS);
        return epochs;
    }

    private static double counter(NeptuneNode node, String name) {
        Matcher m = Pattern.compile("^" + name + "(?:\\{[^}]*})? (\\S+)$", Pattern.MULTILINE).matcher(node.metricsText());
        return m.find() ? Double.parseDouble(m.group(1)) : 0;
    }
}
