package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.ReplicaRole;
import io.neptune.server.ClusterAdmin.ReplicaStatus;
import io.neptune.server.JournalTestService.Append;
import io.neptune.server.JournalTestService.Appended;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The operator's view: every replica's state and digest, and a refused promotion while a primary lives. */
class ClusterAdminIT {
    @Test
    void replicasReportVersionsAndDigestsAndPromotionNeedsNoLivePrimary() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            for (int i = 0; i < 3; i++) {
                int priority = 3 - i;
                cluster.add("node-" + i, ClientConfig.defaults(), b -> b.host(new JournalTestService(),
                        HostingConfig.builder().replicas(3).priority(priority).build()));
            }
            NeptuneNode admin = cluster.add("admin", ClientConfig.defaults(), b -> b);
            ReplicatedProcesses.await(() -> admin.replicaRoles("journal", 1).values().stream()
                    .filter(r -> r != ReplicaRole.RECOVERING).count() == 3, java.time.Duration.ofSeconds(30),
                    "three serving replicas of journal#1");
            NeptuneHandle handle = NeptuneHandle.create();
            for (int i = 0; i < 20; i++) {
                admin.client().call(handle, "journal", 1, "append", AccessMode.WRITE, new Append("e" + i),
                        Appended.class);
            }
            assertThat(admin.admin().nodes()).extracting(ClusterAdmin.NodeStatus::node)
                    .containsExactly("node-0", "node-1", "node-2");
            assertThat(admin.admin().announcedReplicas()).filteredOn(r -> r.service().equals("journal") && r.partition() == 1)
                    .extracting(ClusterAdmin.AnnouncedReplica::node).containsExactly("node-0", "node-1", "node-2");
            ReplicatedProcesses.await(() -> {
                try {
                    List<ReplicaStatus> replicas = admin.admin().replicas("journal", 1).get(10, TimeUnit.SECONDS);
                    // 20 writes, and a no-op per epoch (each primary opens its epoch with one)
                    // node-1 or node-2 may win the first election (node-0's announcement not seen yet);
                    // the highest-priority replica then takes the role over once it has caught up
                    return replicas.size() == 3 && replicas.stream().map(ReplicaStatus::role).toList()
                            .equals(List.of(ReplicaRole.PRIMARY, ReplicaRole.SECONDARY, ReplicaRole.SECONDARY))
                            && replicas.stream().allMatch(r -> r.version() >= 20 && r.error().isEmpty())
                            && replicas.stream().map(ReplicaStatus::version).distinct().count() == 1
                            && replicas.stream().map(ReplicaStatus::digest).distinct().count() == 1;
                } catch (Exception e) {
                    return false;
                }
            }, java.time.Duration.ofSeconds(30), "node-0 primary, all replicas at one version (at least 20) with one digest");
            List<ReplicaStatus> replicas = admin.admin().replicas("journal", 1).get(10, TimeUnit.SECONDS);
            assertThat(replicas).extracting(ReplicaStatus::role).containsExactly(ReplicaRole.PRIMARY, ReplicaRole.SECONDARY, ReplicaRole.SECONDARY);
            assertThat(replicas.get(0).digest()).isNotEmpty();

            assertThatThrownBy(() -> admin.admin().promote("journal", 1, "node-2").get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasMessageContaining("a live primary exists: node-0");
        }
    }
}
