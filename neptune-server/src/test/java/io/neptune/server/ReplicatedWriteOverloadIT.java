package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NeptuneService;
import io.neptune.core.OverloadedException;
import io.neptune.core.Read;
import io.neptune.core.ReplicaRole;
import io.neptune.core.RequestContext;
import io.neptune.core.Write;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Replicated writes obey the service's {@code queue-capacity} like reads do: beyond it a node
 * answers OVERLOADED instead of piling up writes without bound, and they count in its load index.
 */
class ReplicatedWriteOverloadIT {
    /** A level-2 counter whose writes wait for the test's go-ahead. */
    @NeptuneService(name = "gate", partitions = 1, consistency = ConsistencyLevel.LEVEL_2)
    public static final class GateService {
        final CountDownLatch open = new CountDownLatch(1);
        final CountDownLatch entered = new CountDownLatch(1);
        private final ConcurrentHashMap<Integer, Long> applied = new ConcurrentHashMap<>();
        private final java.util.concurrent.atomic.AtomicLong passed = new java.util.concurrent.atomic.AtomicLong();

        /** The request and response of {@code pass}. */
        public record Pass(int n) {}

        @Write
        public Pass pass(RequestContext context, Pass request) throws InterruptedException {
            entered.countDown();
            if (!open.await(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the gate stayed shut");
            }
            applied.put(context.partition(), context.lsn());
            passed.incrementAndGet();
            return request;
        }

        /** How many writes passed the gate (not the LSN: a new primary's no-op takes one). */
        @Read
        public Long applied(RequestContext context, Pass request) {
            return passed.get();
        }

        @Check
        public boolean check(int partition, long lsn) {
            return applied.getOrDefault(partition, 0L) >= lsn;
        }
    }

    @Test
    void writesBeyondTheQueueCapacityAreRefusedAsOverloaded() throws Exception {
        GateService gate = new GateService();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode node = cluster.add("node-0", ClientConfig.defaults(),
                    b -> b.host(gate, HostingConfig.builder().replicas(1).queueCapacity(2).build()));
            NeptuneClient client = node.client();
            NeptuneHandle handle = NeptuneHandle.create();
            ReplicatedProcesses.await(() -> node.replicaRoles("gate", 0).get(node.node()) == ReplicaRole.PRIMARY,
                    Duration.ofSeconds(30), "node-0 to lead gate#0");

            CompletableFuture<GateService.Pass> first = client.callAsync(handle, "gate", 0, "pass", AccessMode.WRITE,
                    new GateService.Pass(1), GateService.Pass.class, CallOptions.timeout(Duration.ofSeconds(30)));
            assertThat(gate.entered.await(30, TimeUnit.SECONDS)).as("the first write reached the service").isTrue();
            CompletableFuture<GateService.Pass> second = client.callAsync(handle, "gate", 0, "pass", AccessMode.WRITE,
                    new GateService.Pass(2), GateService.Pass.class, CallOptions.timeout(Duration.ofSeconds(30)));
            ReplicatedProcesses.await(() -> node.load().get("gate") == 2, Duration.ofSeconds(30),
                    "both writes in the load index");

            assertThatThrownBy(() -> client.call(handle, "gate", 0, "pass", AccessMode.WRITE, new GateService.Pass(3),
                    GateService.Pass.class, CallOptions.timeout(Duration.ofMillis(500))))
                    .isInstanceOf(OverloadedException.class)
                    .hasMessageContaining("2 replicated writes in progress on node-0");

            gate.open.countDown();
            assertThat(first.get(30, TimeUnit.SECONDS).n()).isEqualTo(1);
            assertThat(second.get(30, TimeUnit.SECONDS).n()).isEqualTo(2);
            ReplicatedProcesses.await(() -> node.load().get("gate") == 0, Duration.ofSeconds(30), "the writes counted out");
            assertThat(client.call(handle, "gate", 0, "applied", AccessMode.READ, new GateService.Pass(0), Long.class))
                    .as("the refused write changed nothing").isEqualTo(2L);
        }
    }
}
