package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NeptuneService;
import io.neptune.core.ReplicaRole;
import io.neptune.core.RequestContext;
import io.neptune.core.Write;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A node's thread count does not grow with the partitions it hosts (issue 12, footprint): one node
 * hosting a replicated service of 128 partitions runs no more threads than one hosting 64. Both are
 * past the REDO log writer pool's size ({@code log-writer-threads}, 32 by default; below it the pool
 * runs at most one thread per log). Both take the same {@value #WRITES} writes, round-robin over
 * their partitions, so every log has been written and both nodes did the same work.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class NodeFootprintIT {
    /** Slack for threads that come and go whatever the partitions (JGroups' pool, for one). */
    private static final int SLACK = 6;
    private static final int WRITES = 256;

    /** What {@link Wide} and {@link Wider} write. */
    public record Put(String value) {}

    /** A replicated level-2 service of 64 partitions that remembers the last LSN it applied. */
    @NeptuneService(name = "wide", partitions = 64, consistency = ConsistencyLevel.LEVEL_2)
    public static final class Wide {
        final Map<Integer, Long> applied = new ConcurrentHashMap<>();

        @Write
        public Put put(RequestContext context, Put request) {
            applied.merge(context.partition(), context.lsn(), Math::max);
            return request;
        }

        @Check
        public boolean check(int partition, long lsn) {
            return applied.getOrDefault(partition, 0L) >= lsn;
        }
    }

    /** {@link Wide} with 128 partitions. */
    @NeptuneService(name = "wider", partitions = 128, consistency = ConsistencyLevel.LEVEL_2)
    public static final class Wider {
        final Map<Integer, Long> applied = new ConcurrentHashMap<>();

        @Write
        public Put put(RequestContext context, Put request) {
            applied.merge(context.partition(), context.lsn(), Math::max);
            return request;
        }

        @Check
        public boolean check(int partition, long lsn) {
            return applied.getOrDefault(partition, 0L) >= lsn;
        }
    }

    @Test
    void aNodeWith128PartitionsRunsNoMoreThreadsThanOneWith64() {
        int wide = threadsOfANodeHosting("wide", 64, b -> b.host(new Wide(), hosting()));
        int wider = threadsOfANodeHosting("wider", 128, b -> b.host(new Wider(), hosting()));

        assertThat(wider).as("threads of a node with 128 partitions (64 partitions: %d)", wide)
                .isLessThanOrEqualTo(wide + SLACK);
    }

    private static HostingConfig hosting() {
        return HostingConfig.builder().replicas(1).build();
    }

    /** The threads a node started, once it is primary of every partition and took {@link #WRITES} writes. */
    private static int threadsOfANodeHosting(String service, int partitions,
            Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting) {
        Set<Thread> before = Thread.getAllStackTraces().keySet();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode node = cluster.add("node-0", ClientConfig.defaults(), hosting);
            for (int p = 0; p < partitions; p++) {
                int partition = p;
                ReplicatedProcesses.await(() -> node.replicaRoles(service, partition).containsValue(ReplicaRole.PRIMARY),
                        Duration.ofSeconds(60), service + "#" + p + " has a primary");
            }
            NeptuneClient client = node.client();
            NeptuneHandle handle = NeptuneHandle.create();
            for (int i = 0; i < WRITES; i++) {
                client.call(handle, service, i % partitions, "put", AccessMode.WRITE, new Put("v" + i), Put.class);
            }
            List<String> started = Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.isAlive() && !before.contains(t)).map(Thread::getName).sorted().toList();
            System.out.printf("%s (%d partitions): %d threads started: %s%n", service, partitions, started.size(),
                    started.stream().collect(Collectors.groupingBy(name -> name.replaceAll("\\d+", "N"),
                            java.util.TreeMap::new, Collectors.counting())));
            return started.size();
        }
    }
}
