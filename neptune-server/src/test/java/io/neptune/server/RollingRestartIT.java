package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rolling restart by stop signals only, as a process manager does it (issue 25 §1,
 * docs/OPERATIONS.md "Rolling restart"): three {@code neptune node} processes host every partition
 * of a level-2 majority-mode service; under a steady load of writes and reads from another node, each
 * node in turn gets one SIGTERM, drains (hands its primaries over, finishes its calls, leaves), exits
 * with status 0, and is restarted on its data before the next one goes. No call fails, every replica
 * ends with exactly the acknowledged writes, and writes never stall: in no second do they fall under
 * a quarter of their median rate (a node closed without a drain fails its primaries over by election,
 * which stalls their writes for about two seconds).
 */
@Tag("alone") // runs by itself (failsafe's first pass): it asserts writes never stall for longer than its window
class RollingRestartIT {
    private static final String SERVICE = KvWriteLoad.SERVICE;
    private static final int PARTITIONS = 8; // KvTestService's
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");
    /**
     * Generous: on a starved machine (other builds, load 40 on 2 cores) node processes freeze for up to
     * 10 s, and with one node out a partition of three replicas needs both others for a majority.
     */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    private static final int WRITES_PER_SECOND = 50;
    /**
     * How long after each SIGTERM writes are watched for a stall: the drain and the restart's first
     * seconds. The machine's own hiccups elsewhere in a run of minutes (load 30 on 2 cores) are not the
     * stop's doing.
     */
    private static final int STALL_WINDOW_SECONDS = 10;

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)   // kept for the post-mortem when the test fails
    Path work;

    @Test
    @Timeout(value = 15, unit = TimeUnit.MINUTES)   // ~3 min on a quiet machine
    void everyNodeStoppedBySigtermAndRestartedUnderLoadWithoutAFailedCallALostWriteOrAStall() throws Exception {
        System.out.printf("RollingRestartIT: data and logs in %s%n", work);
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work)) {
            cluster.useNodeCommand();
            // The JVM's default compilers, as a node runs in production: this test measures how long writes stall
            // at each stop, and C1-only nodes (the test default, for CPU) stalled up to 1.8 s in CI where these
            // stall about 0.1 s.
            cluster.jvmOptions("-Xmx160m", "-XX:+UseSerialGC");
            for (int i = 0; i < NODES.size(); i++) {
                cluster.define(NODES.get(i), KvTestService.class, priorities(i), NODES.size());
            }
            cluster.startAll(NODES.toArray(String[]::new));
            awaitServing(cluster, NODES);
            ReplicatedProcesses.await(() -> {
                for (int p = 0; p < PARTITIONS; p++) {
                    if (!cluster.primary(SERVICE, p).equals(Optional.of(NODES.get(p % NODES.size())))) {
                        return false;
                    }
                }
                return true;
            }, Duration.ofSeconds(120), "each node the primary of the partitions it has the highest priority for");

            KvWriteLoad writes = new KvWriteLoad(cluster.observer().client(), PARTITIONS, 16, CALL_TIMEOUT);
            KvReadLoad reads = new KvReadLoad(cluster.observer().client(), SERVICE, PARTITIONS, CALL_TIMEOUT);
            // Paced well below what the cluster takes (100-200 writes/s on 2 cores), so the rate is the pace's
            // unless writes stall, and the window of 16 absorbs the machine's own hiccups.
            writes.start(WRITES_PER_SECOND);
            reads.start(2);
            ReplicatedProcesses.await(() -> writes.acknowledged() > 10 * WRITES_PER_SECOND, Duration.ofSeconds(120),
                    "the load warmed up (JIT, TLS sessions)");
            Map<String, Integer> signalledAt = new LinkedHashMap<>(); // the second of each SIGTERM in the load's run
            Map<String, Duration> stalls = new LinkedHashMap<>();
            for (String node : NODES) {
                long before = writes.acknowledged();
                ReplicatedProcesses.await(() -> writes.acknowledged() > before + 50, Duration.ofSeconds(60),
                        "writes going on before " + node + " stops");
                NodeProcess stopping = cluster.process(node);
                long signalled = System.nanoTime();
                signalledAt.put(node, writes.secondsSinceStart());
                stopping.signalTerm();
                boolean exited = stopping.awaitExit(Duration.ofSeconds(90));
                assertThat(exited).as("%s exits after a SIGTERM%s%s", node, stopping.details(),
                        exited ? "" : stopping.threadDump()).isTrue();
                assertThat(stopping.exitValue()).as("%s's exit status (0: drained)%s", node, stopping.details())
                        .isEqualTo(StopOutcome.DRAINED.exitCode());
                cluster.stop(node);
                cluster.start(node);
                awaitCaughtUp(cluster, node);
                stalls.put(node, writes.longestGap(signalled, Duration.ofSeconds(STALL_WINDOW_SECONDS)));
                System.out.printf("RollingRestartIT: %s stopped by SIGTERM and back; %d writes acknowledged, %d failed"
                        + " %s; %d reads, %d failed%n", node, writes.acknowledged(), writes.unknown(),
                        writes.failureKinds(), reads.succeeded.get(), reads.failed.get());
            }
            long before = writes.acknowledged();
            ReplicatedProcesses.await(() -> writes.acknowledged() > before + 50, Duration.ofSeconds(60),
                    "writes going on after the last restart");
            writes.stop();
            reads.stop();

            List<Long> rates = writes.acknowledgedPerSecond();
            long median = median(rates.subList(Math.min(signalledAt.get(NODES.get(0)), rates.size()), rates.size()));
            Map<String, List<Long>> afterSignal = new LinkedHashMap<>();   // the rates of the 10 s after each SIGTERM
            signalledAt.forEach((node, second) -> afterSignal.put(node,
                    rates.subList(Math.min(second, rates.size()), Math.min(second + STALL_WINDOW_SECONDS, rates.size()))));
            System.out.printf("RollingRestartIT: %d writes acknowledged, %d failed %s; %d reads, %d failed %s;"
                    + " writes per second from the first SIGTERM on: median %d; in the %d s after each SIGTERM: %s;"
                    + " longest time without an acknowledged write then: %s; every second of the run: %s%n",
                    writes.acknowledged(), writes.unknown(), writes.failureKinds(), reads.succeeded.get(),
                    reads.failed.get(), reads.failures, median, STALL_WINDOW_SECONDS, afterSignal, stalls, rates);
            assertThat(writes.unknown()).as("failed writes: %s", writes.failureKinds()).isZero();
            assertThat(reads.failed.get()).as("failed reads: %s", reads.failures).isZero();
            assertThat(writes.audit(cluster, NODES, Duration.ofSeconds(90))).as("writes every replica holds")
                    .isGreaterThanOrEqualTo(writes.acknowledged());
            assertThat(stalls).as("longest time without an acknowledged write after each SIGTERM").allSatisfy((node, gap) -> assertThat(gap)
                    .isLessThan(Duration.ofMillis(1500)));
            assertThat(afterSignal).as("writes per second after each SIGTERM, against a quarter of the median (%d/s)",
                    median).allSatisfy((node, seconds) -> assertThat(seconds).allMatch(rate -> rate >= median / 4.0));
        }
    }

    private static long median(List<Long> values) {
        return values.stream().sorted().toList().get(values.size() / 2);
    }

    /** Node {@code i}'s priorities: it leads the partitions {@code p} with {@code p % 3 == i}, and comes next for those of node {@code i + 1}. */
    private static String priorities(int i) {
        List<String> entries = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            entries.add(p + ": " + (NODES.size() - Math.floorMod(i - p, NODES.size())));
        }
        return "{" + String.join(", ", entries) + "}";
    }

    /** Waits until every node's replica of every partition serves (none recovering) at once. */
    private static void awaitServing(ReplicatedProcesses cluster, List<String> nodes) {
        ReplicatedProcesses.await(() -> {
            try {
                for (String node : nodes) {
                    for (int p = 0; p < PARTITIONS; p++) {
                        if ("RECOVERING".equals(cluster.status(node, SERVICE, p).get("role"))) {
                            return false;
                        }
                    }
                }
            } catch (AssertionError e) {
                return false; // not heard of yet, or too starved to answer within 10 s
            }
            return true;
        }, Duration.ofSeconds(120), "every replica of " + SERVICE + " serving");
    }

    /**
     * Waits until each replica of the restarted {@code node} caught up with its primary once (served
     * as secondary or primary): what an operator waits for before draining the next node. On a
     * starved machine a replica may drop back to RECOVERING for a moment after each election (the new
     * primary probes its log), so all eight rarely serve at one instant there.
     */
    private static void awaitCaughtUp(ReplicatedProcesses cluster, String node) {
        Set<Integer> caughtUp = new HashSet<>();
        ReplicatedProcesses.await(() -> {
            for (int p = 0; p < PARTITIONS; p++) {
                try {
                    if (!"RECOVERING".equals(cluster.status(node, SERVICE, p).get("role"))) {
                        caughtUp.add(p);
                    }
                } catch (AssertionError e) {
                    return false; // a node just started on a starved machine may not answer within 10 s yet
                }
            }
            return caughtUp.size() == PARTITIONS;
        }, Duration.ofSeconds(180), node + "'s replicas of " + SERVICE + " caught up");
    }
}
