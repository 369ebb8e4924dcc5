package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.InvalidRequestException;
import io.neptune.core.ReplicaRole;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A replica that missed more log than fits in one frame still catches up: catch-up batches are
 * bounded by bytes, not only by record count. (A batch of 500 records, the count bound, of a few
 * KiB each is over a small max-frame-size; the receiver refused every such frame as too long and
 * the replica never caught up.)
 */
class LargeRecordCatchUpIT {
    private static final int FRAME = 256 * 1024;
    private static final int WRITES = 60;
    private static final String VALUE = "v".repeat(20_000); // 60 x ~27 KB of base64: 6 frames' worth

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aSecondaryThatMissedMoreThanAFrameOfLogCatchesUp() throws Exception {
        ClientConfig client = ClientConfig.builder().maxFrameBytes(FRAME).build();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode[] nodes = new NeptuneNode[3];
            for (int i = 0; i < 3; i++) {
                nodes[i] = start(cluster, i, client);
            }
            ReplicatedProcesses.await(() -> role(nodes[0], "node-0") == ReplicaRole.PRIMARY
                    && role(nodes[0], "node-2") == ReplicaRole.SECONDARY, Duration.ofSeconds(60),
                    "node-0 to lead kv#0 and node-2 to follow");
            nodes[2].close();

            NeptuneClient caller = nodes[1].client();
            NeptuneHandle handle = NeptuneHandle.create();
            for (int i = 0; i < WRITES; i++) {
                caller.call(handle, "kv", 0, "put", AccessMode.WRITE, new KvTestService.Put("k" + i, VALUE),
                        KvTestService.Written.class, CallOptions.timeout(Duration.ofSeconds(30)));
            }
            long primaryVersion = version(nodes[0], "node-0");
            // a write whose record could never reach the other replicas is refused up front, changing nothing
            assertThatThrownBy(() -> caller.call(handle, "kv", 0, "put", AccessMode.WRITE,
                    new KvTestService.Put("huge", "h".repeat(150_000)), KvTestService.Written.class,
                    CallOptions.timeout(Duration.ofSeconds(30))))
                    .isInstanceOf(InvalidRequestException.class).hasMessageContaining("so that its log record fits");
            assertThat(version(nodes[0], "node-0")).isEqualTo(primaryVersion);

            NeptuneNode restarted = start(cluster, 2, client);
            ReplicatedProcesses.await(() -> version(restarted, "node-2") >= primaryVersion, Duration.ofSeconds(90),
                    "node-2 to catch up to version " + primaryVersion + " of kv#0");
            assertThat(restarted.admin().replicas("kv", 0).get(30, TimeUnit.SECONDS))
                    .extracting(ClusterAdmin.ReplicaStatus::digest).as("every replica holds the same data")
                    .containsOnly(nodes[0].admin().replicas("kv", 0).get(30, TimeUnit.SECONDS).get(0).digest());
        }
    }

    private static NeptuneNode start(MiniCluster cluster, int i, ClientConfig client) {
        HostingConfig hosting = HostingConfig.builder().partitions(List.of(0)).replicas(3)
                .priorities(Map.of(0, 3 - i)).build();
        return cluster.add(cluster.config("node-" + i, client).toBuilder().maxFrameBytes(FRAME).build(),
                b -> b.host(new KvTestService(), hosting));
    }

    private static ReplicaRole role(NeptuneNode node, String of) {
        return node.replicaRoles("kv", 0).get(io.neptune.core.NodeId.of(of));
    }

    private static long version(NeptuneNode node, String of) {
        try {
            return node.admin().replicas("kv", 0).get(30, TimeUnit.SECONDS).stream()
                    .filter(r -> r.node().equals(of) && r.error().isEmpty()).mapToLong(ClusterAdmin.ReplicaStatus::version)
                    .max().orElse(-1);
        } catch (Exception e) {
            return -1;
        }
    }
}
