package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Level 2 catch-up (DESIGN §6.3, §6.5 phase 2): the highest-priority replica is killed with
 * SIGKILL, misses 10,000 writes, restarts on its data, fetches what it missed from the new
 * primary, and only then takes the primary role back. No write is lost or applied twice.
 */
class CatchUpIT {
    private static final String SERVICE = KvWriteLoad.SERVICE;
    private static final int PARTITIONS = 8;
    private static final int WRITES = 10_000;
    private static final Pattern JOINED =
            Pattern.compile(SERVICE + "#(\\d+)@node-1: RECOVERING -> (SECONDARY|PRIMARY)");
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)   // kept for the post-mortem when the test fails
    Path work;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)   // ~2 min on an idle 2-core machine
    void aRestartedPrimaryCatchesUpBeforeItTakesItsRoleBack() throws Exception {
        System.out.printf("CatchUpIT: data and logs in %s%n", work);
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work)) {
            cluster.define("node-1", KvTestService.class, 3, 3);
            cluster.define("node-2", KvTestService.class, 2, 3);
            cluster.define("node-3", KvTestService.class, 1, 3);
            cluster.startAll("node-1", "node-2", "node-3");
            awaitPrimary(cluster, "node-1", 2, Duration.ofSeconds(60));

            KvWriteLoad load = new KvWriteLoad(cluster.observer().client(), PARTITIONS, 64, Duration.ofSeconds(15));
            load.write(200);
            long before = appliedSum(cluster, "node-1");

            long killed = System.nanoTime();
            cluster.kill("node-1");
            awaitPrimary(cluster, "node-2", 1, Duration.ofSeconds(30));
            long failOver = System.nanoTime() - killed;

            long writing = System.nanoTime();
            load.write(WRITES);
            long written = System.nanoTime() - writing;
            assertThat(load.unknown()).as("failed writes while the cluster was stable: %s", load.failureKinds())
                    .isZero();
            long[] target = new long[PARTITIONS];
            long[] targetEpoch = new long[PARTITIONS];
            for (int p = 0; p < PARTITIONS; p++) {
                Map<String, Object> status = cluster.status("node-2", SERVICE, p);
                target[p] = ((Number) status.get("logEnd")).longValue();
                targetEpoch[p] = ((Number) status.get("epoch")).longValue();
            }
            long missed = sum(target) - before;

            long launched = System.nanoTime();
            NodeProcess restarted = cluster.start("node-1");
            long ready = System.nanoTime();
            Set<Integer> joined = new HashSet<>();
            while (joined.size() < PARTITIONS) {   // the replica logs each role change at once
                Matcher change = JOINED.matcher(restarted.awaitLine(line -> JOINED.matcher(line).find(),
                        Duration.ofSeconds(60), "node-1 to catch up (joined: " + joined + ")"));
                if (change.find()) {
                    joined.add(Integer.parseInt(change.group(1)));
                }
            }
            long caughtUp = System.nanoTime() - ready;
            for (int p = 0; p < PARTITIONS; p++) {
                Map<String, Object> status = cluster.status("node-1", SERVICE, p);
                assertThat(((Number) status.get("applied")).longValue())
                        .as("node-1 applied on %s#%d once caught up", SERVICE, p)
                        .isBetween(target[p], target[p] + noOpsSince(targetEpoch[p], status));
            }
            boolean[] primary = new boolean[PARTITIONS];
            ReplicatedProcesses.await(() -> {
                boolean done = true;
                for (int p = 0; p < PARTITIONS; p++) {
                    if (!primary[p] && cluster.primary(SERVICE, p).orElse("").equals("node-1")) {
                        primary[p] = true;
                        assertCaughtUpPrimary(cluster, p, target[p], targetEpoch[p]);
                    }
                    done &= primary[p];
                }
                return done;
            }, Duration.ofSeconds(60), "node-1 to take the primary role back");
            long regained = System.nanoTime() - ready;

            System.out.printf("CatchUpIT: fail-over window %d ms (kill -> node-2 primary of all %d partitions);"
                    + " %d writes in %d ms (%.0f writes/s, window 64)%n", millis(failOver), PARTITIONS, WRITES,
                    millis(written), WRITES * 1e9 / written);
            System.out.printf("CatchUpIT: node-1 restart to READY %d ms; READY -> caught up %d ms for %d missed"
                    + " writes (%.0f writes/s); READY -> primary again %d ms%n", millis(ready - launched),
                    millis(caughtUp), missed, missed * 1e9 / Math.max(1, caughtUp), millis(regained));

            long held = load.audit(cluster, NODES, Duration.ofSeconds(30));
            assertThat(held).as("writes held = acknowledged writes").isEqualTo(load.acknowledged());
            for (String node : NODES) {
                long counted = 0;
                for (int p = 0; p < PARTITIONS; p++) {
                    counted += cluster.readFrom(node, SERVICE, p, "count", new KvTestService.Count(), Long.class);
                }
                assertThat(counted).as("sum of count on %s", node).isEqualTo(load.acknowledged());
            }
            assertThat(load.acknowledged()).isEqualTo(200 + WRITES);
        }
    }

    /**
     * When node-1 turns primary of partition {@code p}, every replica has the writes node-1 missed and
     * beyond them only no-ops: the one with which node-1 opened its epoch, and those of elections
     * in between (a loaded machine makes a primary miss its lease now and then).
     */
    private static void assertCaughtUpPrimary(ReplicatedProcesses cluster, int p, long target, long targetEpoch) {
        for (String node : NODES) {
            Map<String, Object> status = cluster.status(node, SERVICE, p);
            long noOps = noOpsSince(targetEpoch, status);
            assertThat(((Number) status.get("logEnd")).longValue()).as("log end of %s#%d on %s when node-1 took"
                    + " over", SERVICE, p, node).isBetween(target, target + noOps);
            assertThat(((Number) status.get("applied")).longValue()).as("applied of %s#%d on %s when node-1 took"
                    + " over", SERVICE, p, node).isBetween(target, target + noOps);
        }
    }

    /**
     * How many records a replica may hold past {@code target} without a write having been lost or
     * added: nothing but the no-op a primary logs when it opens its epoch, one per epoch from
     * {@code targetEpoch} (whose primary may not have logged its no-op yet when {@code target} was
     * read) to the replica's current one. Elections happen on a loaded machine, when a primary misses
     * its 1 s lease; each adds one.
     */
    private static long noOpsSince(long targetEpoch, Map<String, Object> status) {
        return ((Number) status.get("epoch")).longValue() - targetEpoch + 1;
    }

    /** Waits until {@code primary} is the primary of every partition with {@code secondaries} secondaries. */
    static void awaitPrimary(ReplicatedProcesses cluster, String primary, int secondaries, Duration timeout) {
        for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            try {
                ReplicatedProcesses.await(() -> {
                    Map<NodeId, ReplicaRole> roles = cluster.observer().replicaRoles(SERVICE, partition);
                    return primary.equals(cluster.primary(SERVICE, partition).orElse(""))
                            && roles.values().stream().filter(r -> r == ReplicaRole.SECONDARY).count() == secondaries;
                }, timeout, primary + " primary of " + SERVICE + "#" + partition + " with " + secondaries
                        + " secondaries");
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + " (roles: " + cluster.observer().replicaRoles(SERVICE,
                        partition) + ")", e);
            }
        }
    }

    private static long appliedSum(ReplicatedProcesses cluster, String node) {
        long sum = 0;
        for (int p = 0; p < PARTITIONS; p++) {
            sum += ((Number) cluster.status(node, SERVICE, p).get("applied")).longValue();
        }
        return sum;
    }

    private static long sum(long[] values) {
        long sum = 0;
        for (long v : values) {
            sum += v;
        }
        return sum;
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000;
    }
}
