package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneService;
import io.neptune.core.NodeId;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hedged reads between real nodes: two replicas of a level-1 service, called in turn (round robin).
 * Once the caller knows the reads' 95th percentile, one replica turns slow (2 s a read): the reads it
 * gets are sent to the other after the hedging delay and answered there, long before the slow one
 * would have answered.
 */
@Tag("alone") // runs by itself (failsafe's first pass): it asserts a hedged read ends within a second
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HedgedReadIT {
    private static final String SERVICE = "lagging";
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** A read service whose reads take as long as its instance is told. */
    @NeptuneService(name = SERVICE, partitions = 1)
    public static final class Lagging {
        final AtomicLong delayMillis = new AtomicLong();

        /** The request and reply. */
        public record Echo(int n) {}

        @Read
        public Echo echo(RequestContext context, Echo echo) throws InterruptedException {
            long delay = delayMillis.get();
            if (delay > 0) {
                Thread.sleep(delay);
            }
            return echo;
        }
    }

    @Test
    void aReadTheSlowReplicaHoldsIsAnsweredByTheFastOneAfterTheHedgingDelay() throws Exception {
        Lagging slow = new Lagging();
        HostingConfig hosting = HostingConfig.builder().replicas(2).workers(4).build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            try {
                cluster.add("slow", ClientConfig.defaults(), b -> b.host(slow, hosting));
                cluster.add("fast", ClientConfig.defaults(), b -> b.host(new Lagging(), hosting));
                NeptuneNode caller = cluster.add("caller", ClientConfig.builder().policy(BalancingPolicy.ROUND_ROBIN)
                        .hedgedReads(true).build(), b -> b.meterRegistry(registry));
                ReplicatedProcesses.await(() -> caller.replicaRoles(SERVICE, 0).size() == 2, Duration.ofSeconds(60),
                        "the caller to see both replicas");
                NeptuneClient client = caller.client();
                for (int i = 0; i < 40; i++) { // the percentile needs 20 answered reads
                    client.call(NeptuneHandle.create(), SERVICE, 0, "echo", AccessMode.READ, new Lagging.Echo(i),
                            Lagging.Echo.class, CallOptions.timeout(TIMEOUT));
                }
                Map<NodeId, Long> before = client.responsesByNode();
                slow.delayMillis.set(2_000);
                long slowest = 0;
                for (int i = 0; i < 20; i++) {
                    long started = System.nanoTime();
                    assertThat(client.call(NeptuneHandle.create(), SERVICE, 0, "echo", AccessMode.READ,
                            new Lagging.Echo(i), Lagging.Echo.class, CallOptions.timeout(TIMEOUT)).n()).isEqualTo(i);
                    slowest = Math.max(slowest, System.nanoTime() - started);
                }
                Map<NodeId, Long> after = client.responsesByNode();
                double hedges = registry.get("neptune.client.hedges").tag("service", SERVICE).counter().count();
                System.out.printf("HedgedReadIT: slowest of 20 reads %d ms, %.0f hedged, answers %s -> %s%n",
                        TimeUnit.NANOSECONDS.toMillis(slowest), hedges, before, after);
                // before: every other read waited the slow replica's 2 s
                assertThat(TimeUnit.NANOSECONDS.toMillis(slowest)).isLessThan(1_000);
                assertThat(hedges).isGreaterThanOrEqualTo(5);
                assertThat(after.get(NodeId.of("fast")) - before.get(NodeId.of("fast"))).as("answered by fast")
                        .isEqualTo(20);
            } finally {
                slow.delayMillis.set(0);
            }
        }
    }
}
