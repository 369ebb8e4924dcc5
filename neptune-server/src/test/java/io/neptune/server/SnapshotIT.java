package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.FailoverMode;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Bounded logs and snapshots with real node processes ({@code docs/protocols/replication.md},
 * "Checkpoints and log truncation", "Snapshots"): while one replica is down the others drop their
 * old log records; a replica restarted on a truncated log recovers; the replica that was down
 * rejoins by installing a snapshot and the log tail, and ends with the same digest as the others,
 * also when it is killed with SIGKILL in the middle of the transfer.
 */
class SnapshotIT {
    private static final String SERVICE = KvWriteLoad.SERVICE;
    private static final int PARTITIONS = 8;
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");
    private static final String SETTINGS = "log-retention: 100\nlog-checkpoint-interval: 50\n";
    private static final Pattern DROPPED = Pattern.compile(SERVICE + "/log-(\\d+): dropped \\d+ records below LSN");

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path work;

    @ParameterizedTest
    @EnumSource(FailoverMode.class)
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aReplicaThatWasDownWhileTheOthersTruncatedRejoinsThroughASnapshot(FailoverMode mode) throws Exception {
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work)) {
            defineNodes(cluster, mode);
            cluster.startAll("node-1", "node-2", "node-3");
            awaitPrimary(cluster, 2, Duration.ofSeconds(60));
            KvWriteLoad load = new KvWriteLoad(cluster.observer().client(), PARTITIONS, 64, Duration.ofSeconds(15));
            load.write(200);

            cluster.stop("node-3");
            awaitPrimary(cluster, 1, Duration.ofSeconds(30));
            // 200 writes a partition: several checkpoints of 50 records, and each log's start far above the 25
            // records node-3 has (4,000 writes here took 10 to 20 s and tested nothing more)
            load.write(1600);
            for (String node : List.of("node-1", "node-2")) {
                assertThat(truncatedPartitions(cluster.output(node))).as("partitions %s dropped records on", node)
                        .isGreaterThanOrEqualTo(PARTITIONS / 2);
            }
            long highestStart = 0;   // and operators see it: `admin replicas` reports where each log now starts
            for (int p = 0; p < PARTITIONS; p++) {
                highestStart = Math.max(highestStart, cluster.observer().admin().replicas(SERVICE, p)
                        .get(30, TimeUnit.SECONDS).stream().filter(r -> r.node().equals("node-1"))
                        .mapToLong(ClusterAdmin.ReplicaStatus::logStart).max().orElse(0));
            }
            assertThat(highestStart).as("the highest log start node-1 reports").isGreaterThan(1);

            cluster.stop("node-2");   // a restart on a truncated log
            cluster.start("node-2");
            awaitPrimary(cluster, 1, Duration.ofSeconds(60));

            cluster.start("node-3");
            awaitPrimary(cluster, 2, Duration.ofSeconds(120));
            assertThat(cluster.output("node-3")).contains("installed snapshot");
            load.write(200);
            long held = load.audit(cluster, NODES, Duration.ofSeconds(60));   // equal digests, every write once
            assertThat(held).isEqualTo(load.acknowledged()).isEqualTo(2000);
        }
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void aReplicaKilledWhileInstallingASnapshotResumesItAndConverges() throws Exception {
        int big = PARTITIONS - 1;   // the load writes the others; its audit counts every write of a partition
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work)) {
            defineNodes(cluster, FailoverMode.FAIL_STOP);
            cluster.startAll("node-1", "node-2", "node-3");
            awaitPrimary(cluster, 2, Duration.ofSeconds(60));
            KvWriteLoad load = new KvWriteLoad(cluster.observer().client(), big, 64, Duration.ofSeconds(15));
            load.write(100);
            cluster.stop("node-3");
            awaitPrimary(cluster, 1, Duration.ofSeconds(30));
            String value = "x".repeat(60_000);
            String primary = cluster.primary(SERVICE, big).orElseThrow();
            for (int i = 0; i < 400; i++) {   // ~24 MB in one partition: a snapshot of many chunks
                ResponseMessage reply = cluster.writeTo(primary, SERVICE, big, "put", new KvTestService.Put("big" + i,
                        value + i));
                assertThat(reply.status()).as("big write %d: %s", i, reply.errorMessage()).isEqualTo(Status.OK);
            }
            load.write(1000);

            Path part = cluster.dataDirectory("node-3").resolve(SERVICE).resolve("log-" + big).resolve("snapshots")
                    .resolve("incoming.part");
            cluster.start("node-3");
            ReplicatedProcesses.await(() -> size(part) >= 3 * 1024 * 1024, Duration.ofSeconds(120),
                    "node-3 to fetch part of the snapshot of partition " + big);
            cluster.kill("node-3");
            String installed = SERVICE + "#" + big + "@node-3: installed snapshot";
            assertThat(cluster.output("node-3")).doesNotContain(installed);

            NodeProcess restarted = cluster.start("node-3");
            restarted.awaitLine(line -> line.contains(installed), Duration.ofSeconds(120),
                    "node-3 to install the snapshot of partition " + big);
            Matcher resumed = Pattern.compile(SERVICE + "#" + big + "@node-3: resuming snapshot \\S+ at byte (\\d+)")
                    .matcher(cluster.output("node-3"));
            assertThat(resumed.find()).as("node-3 resumed the transfer of partition %d's snapshot", big).isTrue();
            assertThat(Long.parseLong(resumed.group(1))).isGreaterThanOrEqualTo(1024 * 1024);
            awaitPrimary(cluster, 2, Duration.ofSeconds(120));
            long held = load.audit(cluster, NODES, Duration.ofSeconds(60));
            assertThat(held).isEqualTo(load.acknowledged()).isEqualTo(1100);
            ReplicatedProcesses.await(() -> NODES.stream().map(n -> cluster.status(n, SERVICE, big).get("digest"))
                    .distinct().count() == 1, Duration.ofSeconds(60), "one digest of " + SERVICE + "#" + big);
            String digest = (String) cluster.status("node-3", SERVICE, big).get("digest");
            assertThat(Long.parseLong(digest.substring(0, digest.indexOf(':')))).as("applied LSN in %s", digest)
                    .isGreaterThanOrEqualTo(400);
            assertThat(Files.exists(part)).as("the part file is gone once installed").isFalse();
        }
    }

    private static void defineNodes(ReplicatedProcesses cluster, FailoverMode mode) {
        for (int i = 1; i <= 3; i++) {
            cluster.define("node-" + i, KvTestService.class, 4 - i, 3, mode, SETTINGS);
        }
    }

    /** Waits until every partition has a primary and {@code secondaries} secondaries. */
    private static void awaitPrimary(ReplicatedProcesses cluster, int secondaries, Duration timeout) {
        for (int p = 0; p < PARTITIONS; p++) {
            int partition = p;
            ReplicatedProcesses.await(() -> cluster.primary(SERVICE, partition).isPresent()
                    && cluster.observer().replicaRoles(SERVICE, partition).values().stream()
                            .filter(r -> r == ReplicaRole.SECONDARY).count() == secondaries, timeout,
                    "a primary of " + SERVICE + "#" + partition + " with " + secondaries + " secondaries");
        }
    }

    private static long truncatedPartitions(String output) {
        Matcher matcher = DROPPED.matcher(output);
        java.util.Set<String> partitions = new java.util.HashSet<>();
        while (matcher.find()) {
            partitions.add(matcher.group(1));
        }
        return partitions.size();
    }

    private static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;   // renamed or deleted meanwhile
        }
    }
}
