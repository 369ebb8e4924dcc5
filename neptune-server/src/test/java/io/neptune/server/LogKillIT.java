package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills during REDO log appends at random points (DESIGN §6.5): under a continuous write load, a
 * random replica (sometimes the primary) is killed with SIGKILL after a random delay, restarted on
 * its data, and waited for until it serves again; eight times. Afterwards every acknowledged
 * write is on every replica exactly once, in the same order, and nothing else is.
 *
 * <p>Eight rounds, not the twenty it had: the interleavings of kills with appends, elections and
 * catch-up are the deterministic simulation's to search ({@code SimulationTest}, {@code ./neptune
 * simulate}: thousands of kills and machine crashes a second); this test proves the real stack (REDO
 * log files, fsync, processes, SIGKILL) keeps the promise, and each round costs 15 s.
 */
class LogKillIT {
    private static final String SERVICE = KvWriteLoad.SERVICE;
    private static final int PARTITIONS = 8;
    private static final int ROUNDS = 8;
    /** Few writes per round keep the catch-up after each restart, and so the whole test, short. */
    private static final int WRITES_PER_SECOND = 50;
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)   // kept for the post-mortem when the test fails
    Path work;

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)   // ~2 min on an idle 2-core machine
    void replicasKilledAtRandomPointsOfTheLogLoseNoAcknowledgedWrite() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        System.out.printf("LogKillIT: seed %d; data and logs in %s%n", seed, work);
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work);
                KvWriteLoad load = new KvWriteLoad(cluster.observer().client(), PARTITIONS, 8,
                        Duration.ofSeconds(10))) {
            cluster.jvmOptions("-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
            cluster.define("node-1", KvTestService.class, 3, 3);
            cluster.define("node-2", KvTestService.class, 2, 3);
            cluster.define("node-3", KvTestService.class, 1, 3);
            cluster.startAll("node-1", "node-2", "node-3");
            CatchUpIT.awaitPrimary(cluster, "node-1", 2, Duration.ofSeconds(60));

            load.start(WRITES_PER_SECOND);
            ReplicatedProcesses.await(() -> load.acknowledged() >= 50, Duration.ofSeconds(30),
                    "50 acknowledged writes");
            int primariesKilled = 0;
            int tornTails = 0;
            List<Long> backMillis = new ArrayList<>();
            for (int round = 0; round < ROUNDS; round++) {
                String victim = NODES.get(random.nextInt(NODES.size()));
                long delayNanos = TimeUnit.MILLISECONDS.toNanos(50 + random.nextInt(451));
                int acksBefore = load.acknowledged();
                long killAt = System.nanoTime() + delayNanos;
                // a random point of the write stream: the delay has passed and writes are flowing
                ReplicatedProcesses.await(() -> System.nanoTime() >= killAt && load.acknowledged() > acksBefore,
                        Duration.ofSeconds(30), "writes to flow before round " + round);
                boolean wasPrimary = isPrimaryOfAny(cluster, victim);
                primariesKilled += wasPrimary ? 1 : 0;
                long killed = System.nanoTime();
                cluster.kill(victim);
                ReplicatedProcesses.await(() -> !cluster.observer().knownNodes().contains(NodeId.of(victim)),
                        Duration.ofSeconds(30), victim + " to leave the observer's yellow page");
                NodeProcess restarted = cluster.start(victim);
                tornTails += (int) restarted.transcript().stream().filter(l -> l.contains("truncated")
                        && l.contains("bytes at offset")).count();
                awaitBack(cluster, victim);
                backMillis.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killed));
                System.out.printf("LogKillIT: round %d: killed %s%s after %d ms, back after %d ms; %d acknowledged%n",
                        round, victim, wasPrimary ? " (primary)" : "", TimeUnit.NANOSECONDS.toMillis(delayNanos),
                        backMillis.get(round), load.acknowledged());
            }
            load.stop();
            CatchUpIT.awaitPrimary(cluster, "node-1", 2, Duration.ofSeconds(30)); // priority wins in the end
            long held = load.audit(cluster, NODES, Duration.ofSeconds(60));
            System.out.printf("LogKillIT: %d rounds (%d killed a primary), %d torn log tails truncated;"
                    + " %d acknowledged writes, %d failed (%s), %d held by every replica;"
                    + " kill -> back %d..%d ms (mean %d)%n", ROUNDS, primariesKilled, tornTails, load.acknowledged(),
                    load.unknown(), load.failureKinds(), held, backMillis.stream().mapToLong(x -> x).min().orElse(0),
                    backMillis.stream().mapToLong(x -> x).max().orElse(0),
                    (long) backMillis.stream().mapToLong(x -> x).average().orElse(0));
            assertThat(held).isBetween((long) load.acknowledged(), (long) load.acknowledged() + load.unknown());
        }
    }

    private static boolean isPrimaryOfAny(ReplicatedProcesses cluster, String node) {
        for (int p = 0; p < PARTITIONS; p++) {
            if (cluster.primary(SERVICE, p).orElse("").equals(node)) {
                return true;
            }
        }
        return false;
    }

    /** Waits until {@code node} serves every partition again (not RECOVERING) and each partition has a primary. */
    private static void awaitBack(ReplicatedProcesses cluster, String node) {
        NodeId id = NodeId.of(node);
        try {
            ReplicatedProcesses.await(() -> {
            for (int p = 0; p < PARTITIONS; p++) {
                Map<NodeId, ReplicaRole> roles = cluster.observer().replicaRoles(SERVICE, p);
                ReplicaRole role = roles.get(id);
                if (!(role == ReplicaRole.SECONDARY || role == ReplicaRole.PRIMARY) || !roles.containsValue(ReplicaRole.PRIMARY)) {
                    return false;
                }
            }
            return true;
            }, Duration.ofSeconds(60), node + " back in every partition");
        } catch (AssertionError e) {
            StringBuilder roles = new StringBuilder();
            for (int p = 0; p < PARTITIONS; p++) {
                roles.append(' ').append(p).append('=').append(cluster.observer().replicaRoles(SERVICE, p));
            }
            throw new AssertionError(e.getMessage() + "; roles:" + roles, e);
        }
    }
}
