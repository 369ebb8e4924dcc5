package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.FailoverMode;
import io.neptune.core.ReplicaRole;
import io.neptune.server.JournalTestService.Append;
import io.neptune.server.JournalTestService.Appended;
import io.neptune.server.JournalTestService.Entries;
import io.neptune.server.JournalTestService.ReadAll;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Fail-over when the current epoch has no writes yet (DESIGN §6.3): the primary that just took
 * its role back by priority fails before any write of its epoch. The surviving secondaries then
 * have a current epoch above the epoch of their last log record; they must still elect a primary.
 */
class IdleFailOverIT {
    private static final String SERVICE = "journal";
    private static final int PARTITION = 0;

    private FailoverMode mode;

    private HostingConfig hosting(int priority) {
        return HostingConfig.builder().replicas(3).priority(priority).failover(mode).build();
    }

    @ParameterizedTest
    @EnumSource(FailoverMode.class)
    void theSecondariesElectAPrimaryWhenThePrimaryFailsBeforeAnyWriteOfItsEpoch(FailoverMode mode) {
        this.mode = mode;
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            cluster.add("node-0", ClientConfig.defaults(), b -> b.host(new JournalTestService(), hosting(3)));
            cluster.add("node-1", ClientConfig.defaults(), b -> b.host(new JournalTestService(), hosting(2)));
            cluster.add("node-2", ClientConfig.defaults(), b -> b.host(new JournalTestService(), hosting(1)));
            NeptuneNode observer = cluster.add("observer", ClientConfig.defaults(), b -> b);
            NeptuneClient client = observer.client();
            NeptuneHandle handle = NeptuneHandle.create();
            await(() -> primary(observer).equals("node-0") && secondaries(observer) == 2, "node-0 primary");
            long last = 0;
            for (int i = 0; i < 5; i++) {
                last = client.call(handle, SERVICE, PARTITION, "append", AccessMode.WRITE, new Append("a" + i),
                        Appended.class).lsn();
            }

            cluster.node(0).close();   // epoch 2: node-1, no writes
            await(() -> primary(observer).equals("node-1") && secondaries(observer) == 1, "node-1 to take over");
            NeptuneNode restarted = cluster.add("node-0", ClientConfig.defaults(),
                    b -> b.host(new JournalTestService(), hosting(3)));
            // epoch 3: node-0 again, by priority once caught up; still no write since epoch 1
            await(() -> primary(observer).equals("node-0") && secondaries(observer) == 2, "node-0 to take over again");

            restarted.close();
            await(() -> !primary(observer).isEmpty() && !primary(observer).equals("node-0"),
                    "node-1 or node-2 to take over from node-0 (roles: " + "see failure)");
            Appended next = client.call(handle, SERVICE, PARTITION, "append", AccessMode.WRITE, new Append("a5"),
                    Appended.class, CallOptions.timeout(Duration.ofSeconds(10)));
            assertThat(next.lsn()).isGreaterThan(last); // right after it in fail-stop; after no-ops in majority mode
            assertThat(client.call(handle, SERVICE, PARTITION, "all", AccessMode.READ, new ReadAll(), Entries.class)
                    .entries()).isEqualTo(List.of("a0", "a1", "a2", "a3", "a4", "a5"));
        }
    }

    private static String primary(NeptuneNode observer) {
        return observer.replicaRoles(SERVICE, PARTITION).entrySet().stream().filter(e -> e.getValue() == ReplicaRole.PRIMARY)
                .map(e -> e.getKey().value()).findFirst().orElse("");
    }

    private static long secondaries(NeptuneNode observer) {
        return observer.replicaRoles(SERVICE, PARTITION).values().stream().filter(r -> r == ReplicaRole.SECONDARY).count();
    }

    private static void await(BooleanSupplier condition, String what) {
        ReplicatedProcesses.await(condition, Duration.ofSeconds(30), what);
    }
}
