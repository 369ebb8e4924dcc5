package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneService;
import io.neptune.core.NodeId;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@code load-aware} policy between real nodes: three replicas of one partition, one of them
 * slow (each call holds its worker 20 ms, the others 1 ms). A caller with 6 calls always in flight
 * sends most calls to the fast replicas, learning their load from the responses, and polls far
 * less often than it calls.
 */
@Tag("alone") // runs by itself (failsafe's first pass): it asserts how few calls the slow replica serves
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class LoadAwareIT {
    private static final int CALLS = 1_200;
    private static final int CONCURRENCY = 6;

    /** A service whose calls take as long as its instance was told. */
    @NeptuneService(name = "paced", partitions = 1)
    public static final class Paced {
        private final long millis;

        public Paced(long millis) {
            this.millis = millis;
        }

        /** The request and reply. */
        public record Work(int n) {}

        @Read
        public Work work(RequestContext context, Work work) throws InterruptedException {
            Thread.sleep(millis);
            return work;
        }
    }

    @Test
    void callsGoToTheFastReplicasAndPollsAreRare() throws Exception {
        HostingConfig hosting = HostingConfig.builder().replicas(3).workers(2).build();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            cluster.add("slow", ClientConfig.defaults(), b -> b.host(new Paced(20), hosting));
            cluster.add("fast-1", ClientConfig.defaults(), b -> b.host(new Paced(1), hosting));
            cluster.add("fast-2", ClientConfig.defaults(), b -> b.host(new Paced(1), hosting));
            NeptuneNode caller = cluster.add("caller", ClientConfig.builder().policy(BalancingPolicy.LOAD_AWARE).build(),
                    b -> b);
            NeptuneClient client = caller.client();
            ReplicatedProcesses.await(() -> caller.replicaRoles("paced", 0).size() == 3, Duration.ofSeconds(60),
                    "the caller to see three replicas");

            long pollsBefore = ((DefaultNeptuneClient) client).pollsSent();
            List<CompletableFuture<Void>> lanes = new ArrayList<>();
            for (int lane = 0; lane < CONCURRENCY; lane++) {
                lanes.add(lane(client, CALLS / CONCURRENCY));
            }
            CompletableFuture.allOf(lanes.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
            long polls = ((DefaultNeptuneClient) client).pollsSent() - pollsBefore;

            Map<NodeId, Long> served = client.responsesByNode();
            long slow = served.getOrDefault(NodeId.of("slow"), 0L);
            long total = served.values().stream().mapToLong(Long::longValue).sum();
            System.out.printf("LoadAwareIT: served %s, %d polls for %d calls%n", served, polls, CALLS);
            assertThat(total).isGreaterThanOrEqualTo(CALLS);
            // random would send a third (400) to the slow replica; it serves 1/20 of the fast ones' rate
            assertThat(slow).as("calls served by the slow replica, of %d: %s", total, served).isLessThan(CALLS / 6);
            assertThat(polls).as("polls for %d calls", CALLS).isLessThan(CALLS);
        }
    }

    /** {@code calls} calls one after another. */
    private static CompletableFuture<Void> lane(NeptuneClient client, int calls) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        next(client, calls, NeptuneHandle.create(), done);
        return done;
    }

    private static void next(NeptuneClient client, int left, NeptuneHandle handle, CompletableFuture<Void> done) {
        if (left == 0) {
            done.complete(null);
            return;
        }
        client.callAsync(handle, "paced", 0, "work", AccessMode.READ, new Paced.Work(left), Paced.Work.class,
                CallOptions.timeout(Duration.ofSeconds(10))).whenComplete((reply, error) -> {
                    if (error != null) {
                        done.completeExceptionally(error);
                    } else {
                        next(client, left - 1, handle, done);
                    }
                });
    }
}
