package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link NeptuneNode#drain}: the node hands its primary role away, clients stop choosing it for
 * level-1 and read calls, and it stops without failing a call. The client here has no retries, so
 * any call that reached the node after it started refusing, or was cut off by its stop, would fail.
 */
class DrainIT {
    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aDrainingNodeHandsItsPrimaryAwayIsChosenForNoNewCallAndStopsWithoutFailingOne() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            for (int i = 0; i < 3; i++) {
                int priority = 3 - i;
                cluster.add("node-" + i, ClientConfig.defaults(), b -> b
                        .host(new JournalTestService(), HostingConfig.builder().replicas(3).priority(priority).build())
                        .host(new SetTestService(), HostingConfig.builder().replicas(3).build()));
            }
            NeptuneNode client = cluster.add("client", ClientConfig.builder().retries(0).build(), b -> b);
            await().atMost(Duration.ofSeconds(60)).until(() -> client.replicaRoles("journal", 1)
                    .getOrDefault(NodeId.of("node-0"), ReplicaRole.RECOVERING) == ReplicaRole.PRIMARY
                    && client.replicaRoles("journal", 1).values().stream().filter(r -> r == ReplicaRole.SECONDARY)
                            .count() == 2
                    && client.replicaRoles("set", 0).values().stream().filter(r -> r != ReplicaRole.RECOVERING)
                            .count() == 3);

            AtomicLong succeeded = new AtomicLong();
            Map<String, Long> failures = new ConcurrentHashMap<>();
            AtomicBoolean running = new AtomicBoolean(true);
            Thread load = new Thread(() -> {
                NeptuneHandle handle = NeptuneHandle.create();
                CallOptions options = CallOptions.timeout(Duration.ofSeconds(20));
                for (int i = 0; running.get(); i++) {
                    int partition = ThreadLocalRandom.current().nextInt(4);
                    try {
                        switch (i % 3) {
                            case 0 -> client.client().callAsync(handle, "set", partition, "members", AccessMode.READ,
                                    new SetTestService.ReadMembers(), SetTestService.Members.class, options).join();
                            case 1 -> client.client().callAsync(handle, "set", partition, "add", AccessMode.WRITE,
                                    new SetTestService.Add("e" + i), SetTestService.Added.class, options).join();
                            default -> client.client().callAsync(handle, "journal", 1, "append", AccessMode.WRITE,
                                    new JournalTestService.Append("j" + i), JournalTestService.Appended.class,
                                    options).join();
                        }
                        succeeded.incrementAndGet();
                    } catch (RuntimeException e) {
                        Throwable cause = e.getCause() == null ? e : e.getCause();
                        failures.merge(cause.getClass().getSimpleName() + ": " + cause.getMessage(), 1L, Long::sum);
                    }
                }
            }, "drain-load");
            load.start();
            try {
                await().atMost(Duration.ofSeconds(30)).until(() -> succeeded.get() >= 100);
                NeptuneNode draining = cluster.node(0);
                assertThat(draining.drain(Duration.ofSeconds(30))).as("drained within the timeout").isTrue();
                assertThat(draining.isRunning()).isFalse();
                await().atMost(Duration.ofSeconds(10)).until(() -> List.of(ReplicaRole.PRIMARY).equals(
                        client.replicaRoles("journal", 1).values().stream().filter(r -> r == ReplicaRole.PRIMARY)
                                .toList()) && !client.replicaRoles("journal", 1).containsKey(NodeId.of("node-0")));
                long atStop = succeeded.get();
                await().atMost(Duration.ofSeconds(30)).until(() -> succeeded.get() >= atStop + 100);
            } finally {
                running.set(false);
                load.join(TimeUnit.SECONDS.toMillis(60));
            }
            assertThat(failures).as("failed calls").isEmpty();
        }
    }
}
