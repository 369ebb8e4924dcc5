package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.server.JournalTestService.Append;
import io.neptune.server.JournalTestService.Appended;
import io.neptune.server.JournalTestService.Entries;
import io.neptune.server.JournalTestService.ReadAll;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** Level-2 replication on three in-JVM nodes: election, writes, fail-over, recovery and handover by priority. */
class ReplicationIT {
    private static HostingConfig hosting(int priority) {
        return HostingConfig.builder().replicas(3).priority(priority).build();
    }

    @Test
    void writesReplicateFailOverAndTheHigherPriorityReplicaTakesBackItsRole() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode n0 = cluster.add("node-0", io.neptune.client.ClientConfig.defaults(),
                    b -> b.host(new JournalTestService(), hosting(3)));
            cluster.add("node-1", io.neptune.client.ClientConfig.defaults(), b -> b.host(new JournalTestService(), hosting(2)));
            cluster.add("node-2", io.neptune.client.ClientConfig.defaults(), b -> b.host(new JournalTestService(), hosting(1)));
            NeptuneNode client = cluster.add("client", io.neptune.client.ClientConfig.defaults(), b -> b);
            await(() -> primaryOf(client, 0).equals("node-0"), "node-0 primary of journal#0");

            NeptuneClient calls = client.client();
            NeptuneHandle handle = NeptuneHandle.create();
            List<String> written = new ArrayList<>();
            long previous = 0;
            for (int i = 0; i < 50; i++) {
                Appended appended = calls.call(handle, "journal", 0, "append", AccessMode.WRITE, new Append("a" + i),
                        Appended.class);
                // increasing; a number may be skipped (each primary opens its epoch with a no-op)
                assertThat(appended.lsn()).isGreaterThan(previous);
                previous = appended.lsn();
                written.add("a" + i);
            }
            assertThat(read(calls, handle)).isEqualTo(written);

            n0.close();
            await(() -> primaryOf(client, 0).equals("node-1"), "node-1 taking over journal#0");
            for (int i = 50; i < 80; i++) {
                calls.call(handle, "journal", 0, "append", AccessMode.WRITE, new Append("a" + i), Appended.class,
                        CallOptions.timeout(Duration.ofSeconds(10)));
                written.add("a" + i);
            }
            assertThat(read(calls, handle)).isEqualTo(written);

            NeptuneNode restarted = cluster.add("node-0", io.neptune.client.ClientConfig.defaults(),
                    b -> b.host(new JournalTestService(), hosting(3)));
            await(() -> primaryOf(client, 0).equals("node-0"), "node-0 taking its role back after catching up");
            for (int i = 80; i < 100; i++) {
                calls.call(handle, "journal", 0, "append", AccessMode.WRITE, new Append("a" + i), Appended.class,
                        CallOptions.timeout(Duration.ofSeconds(10)));
                written.add("a" + i);
            }
            assertThat(read(calls, handle)).isEqualTo(written);
            assertThat(restarted.isRunning()).isTrue();
        }
    }

    /** Partitions that never saw a write (empty logs) must fail over too, not only busy ones. */
    @Test
    void idlePartitionsWithEmptyLogsFailOver() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode n0 = cluster.add("node-0", io.neptune.client.ClientConfig.defaults(),
                    b -> b.host(new JournalTestService(), hosting(3)));
            cluster.add("node-1", io.neptune.client.ClientConfig.defaults(), b -> b.host(new JournalTestService(), hosting(2)));
            cluster.add("node-2", io.neptune.client.ClientConfig.defaults(), b -> b.host(new JournalTestService(), hosting(1)));
            NeptuneNode client = cluster.add("client", io.neptune.client.ClientConfig.defaults(), b -> b);
            for (int p = 0; p < 4; p++) {
                int partition = p;
                await(() -> primaryOf(client, partition).equals("node-0"), "node-0 primary of journal#" + partition);
            }
            client.client().call(NeptuneHandle.create(), "journal", 0, "append", AccessMode.WRITE, new Append("only 0"),
                    Appended.class);
            n0.close();
            for (int p = 0; p < 4; p++) {
                int partition = p;
                await(() -> primaryOf(client, partition).equals("node-1"), "node-1 taking over journal#" + partition);
            }
        }
    }

    private static List<String> read(NeptuneClient calls, NeptuneHandle handle) {
        return calls.call(handle, "journal", 0, "all", AccessMode.READ, new ReadAll(), Entries.class).entries();
    }

    private static String primaryOf(NeptuneNode observer, int partition) {
        return observer.replicaRoles("journal", partition).entrySet().stream()
                .filter(e -> e.getValue() == ReplicaRole.PRIMARY).map(Map.Entry::getKey).map(NodeId::value)
                .findFirst().orElse("");
    }

    private static void await(BooleanSupplier condition, String what) {
        ReplicatedProcesses.await(condition, Duration.ofSeconds(30), what);
    }
}
