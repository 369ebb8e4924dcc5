package io.neptune.benchmarks;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.ReplicaRole;
import io.neptune.examples.cache.CacheService;
import io.neptune.examples.cache.CacheService.CacheUpdate;
import io.neptune.examples.cache.CacheService.Updated;
import io.neptune.server.ClusterAdmin.AnnouncedReplica;
import io.neptune.server.ClusterAdmin.ReplicaStatus;
import io.neptune.server.HostingConfig;
import io.neptune.server.LogRetentionConfig;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import java.util.stream.Stream;

/**
 * Bounded REDO logs and snapshots (issue 13 §1), in one JVM: three in-process nodes on the loopback
 * JGroups stack host the persistent cache (level 2, H2, {@code @Check}, {@code Snapshottable},
 * 3 replicas, one partition).
 *
 * <ol>
 *   <li>Log size and restart time: {@code writes} updates of 64-byte values, once with checkpoints
 *       ({@code log-checkpoint-interval} 10,000) and once keeping the whole log (an interval larger
 *       than the run); then node-1's REDO log size, and the time node-1 takes to start again on its
 *       data (recovery phase 1, which scans the log) and to serve its replica again.</li>
 *   <li>A new replica of a large partition: node-3 starts with an empty data directory after
 *       {@code mb} MB of 16 KiB values were written with checkpoints on; the time until it serves
 *       at the primary's version (snapshot export, transfer, restore, then the log tail), and the
 *       snapshot's size over that time.</li>
 * </ol>
 *
 * <p>Usage: {@code ./neptune bench logs [writes] [mb]} (defaults 200,000 writes, 256 MB; 0 writes runs only
 * the new replica, 0 MB only the restart runs, which follow a throwaway warm-up run); {@code --level 1} runs
 * the restart runs with the cache at level 1 ({@link WriteAnywhereCache}, write-anywhere: checkpoints by the
 * peers' pulls, an {@code origins} file).
 */
public final class LogsExperiment {
    private static final String SERVICE = "cache";
    /** {@code --level 1}: the cache at level 1 ({@link WriteAnywhereCache}), restart runs only. */
    private static boolean writeAnywhere;

    private LogsExperiment() {}

    public static void main(String[] arguments) throws Exception {
        List<String> args = new ArrayList<>(List.of(arguments));
        int option = args.indexOf("--level");
        if (option >= 0) {
            String level = option + 1 < args.size() ? args.remove(option + 1) : "(none)";
            args.remove(option);
            if (!level.equals("1") && !level.equals("2")) {
                throw new IllegalArgumentException("--level: " + level + " (expected: 1 or 2)");
            }
            writeAnywhere = level.equals("1");
        }
        int writes = args.size() > 0 ? Integer.parseInt(args.get(0)) : 200_000;
        int mb = writeAnywhere ? 0 : args.size() > 1 ? Integer.parseInt(args.get(1)) : 256;
        Path work = Files.createTempDirectory(Path.of(System.getProperty("user.dir")), "neptune-logs-");
        System.out.printf(Locale.ROOT, "logs: level %d, %d writes, a %d MB partition; load average %s; data in %s%n",
                writeAnywhere ? 1 : 2, writes, mb, Report.loadAverage(), work);
        System.out.println("| run | node-1 redo.log after the writes | write rate | node-1 start (phase 1) | start to serving |");
        System.out.println("| --- | --- | --- | --- | --- |");
        try {
            if (writes > 0) {   // 0: only the new replica
                // the first cluster of a JVM runs cold (JIT, class loading): a throwaway run keeps that out of both rows
                restartRun(work.resolve("warm-up"), Math.min(writes, 20_000), new LogRetentionConfig(1_000_000, 10_000),
                        "warm-up, not measured");
                restartRun(work.resolve("truncating"), writes, new LogRetentionConfig(1_000_000, 10_000),
                        "checkpoints every 10,000");
                restartRun(work.resolve("keep-all"), writes, new LogRetentionConfig(1_000_000, Integer.MAX_VALUE),
                        "whole log kept");
            }
            if (mb > 0) {       // 0: only the restart runs
                newReplicaRun(work.resolve("new-replica"), mb);
            }
        } finally {
            RedoLogAppendBenchmark.deleteTree(work);   // hundreds of MB after a long run
        }
        System.out.printf(Locale.ROOT, "load average %s%n", Report.loadAverage());
    }

    private static void restartRun(Path work, int writes, LogRetentionConfig retention, String what) throws Exception {
        MembershipConfig membership = membership(work, "logs-" + what.hashCode());
        List<NeptuneNode> nodes = new ArrayList<>();
        try (NeptuneNode client = client(work, membership)) {
            for (int i = 1; i <= 3; i++) {
                nodes.add(start(work, membership, retention, i));
            }
            awaitServing(client, "node-1", 0);
            long writing = System.nanoTime();
            Path redo = log(work, 1).resolve("redo.log");
            int written = writeMany(client.client(), writes, 64, 10_000, sent -> System.out.printf(Locale.ROOT,
                    "  (%s: %,d writes sent in %.0f s; node-1 redo.log %.1f MB)%n", what, sent,
                    (System.nanoTime() - writing) / 1e9, sizeOf(redo) / 1e6));
            double seconds = (System.nanoTime() - writing) / 1e9;
            long target = writeAnywhere ? 0 : primaryVersion(client);   // level 1: each replica numbers its own LSNs
            if (writeAnywhere) {
                awaitConverged(client);
            }
            awaitServing(client, "node-1", target);
            Thread.sleep(500);   // a last checkpoint tick
            long size = Files.size(redo);
            nodes.get(0).close();
            long starting = System.nanoTime();
            NeptuneNode restarted = start(work, membership, retention, 1);
            nodes.set(0, restarted);
            long up = System.nanoTime();
            awaitServing(client, "node-1", target);
            long serving = System.nanoTime();
            System.out.printf(Locale.ROOT, "| %d writes, %s | %.1f MB | %.0f writes/s | %.2f s | %.2f s |%n", written,
                    what, size / 1e6, written / seconds, (up - starting) / 1e9, (serving - starting) / 1e9);
        } finally {
            closeAll(nodes);
        }
    }

    private static void newReplicaRun(Path work, int mb) throws Exception {
        MembershipConfig membership = membership(work, "logs-new");
        LogRetentionConfig retention = new LogRetentionConfig(10_000, 1_000);
        List<NeptuneNode> nodes = new ArrayList<>();
        try (NeptuneNode client = client(work, membership)) {
            nodes.add(start(work, membership, retention, 1));
            nodes.add(start(work, membership, retention, 2));
            awaitServing(client, "node-1", 0);
            int valueBytes = 16 * 1024;
            long writing = System.nanoTime();
            int values = (int) ((long) mb * 1024 * 1024 / valueBytes);
            int written = writeMany(client.client(), values, valueBytes, values,   // each to its own key: mb MB of rows
                    sent -> System.out.printf(Locale.ROOT, "  (new replica: %,d of %,d values written)%n", sent, values));
            double seconds = (System.nanoTime() - writing) / 1e9;
            long target = primaryVersion(client);
            Thread.sleep(500);
            long logBytes = Files.size(log(work, 1).resolve("redo.log"));
            long starting = System.nanoTime();
            nodes.add(start(work, membership, retention, 3));
            awaitServing(client, "node-3", target);
            double catchUp = (System.nanoTime() - starting) / 1e9;
            long snapshotBytes = snapshotBytes(log(work, 1).resolve("snapshots"));
            System.out.printf(Locale.ROOT, "| new replica of a partition of %d x %d B values (%.0f writes/s while"
                    + " writing; node-1 redo.log %.1f MB) | snapshot %.1f MB | start to serving %.1f s | %.1f MB/s"
                    + " (snapshot size / whole catch-up: export, transfer, restore, log tail) |%n", written, valueBytes,
                    written / seconds, logBytes / 1e6, snapshotBytes / 1e6, catchUp, snapshotBytes / 1e6 / catchUp);
        } finally {
            closeAll(nodes);
        }
    }

    private static long snapshotBytes(Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".snap")).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0;
                }
            }).max().orElse(0);
        }
    }

    private static Path log(Path work, int node) {
        return work.resolve("data").resolve("node-" + node).resolve(SERVICE).resolve("log-0");
    }

    private static MembershipConfig membership(Path work, String cluster) throws IOException {
        return MembershipConfig.builder().cluster(cluster + "-" + ProcessHandle.current().pid())
                .discoveryDirectory(Files.createDirectories(work.resolve("discovery")))
                .announceInterval(Duration.ofMillis(200)).expiry(Duration.ofSeconds(2)).build();
    }

    private static NeptuneNode client(Path work, MembershipConfig membership) {
        return NeptuneNode.builder(NodeConfig.builder().node("bench-client").ioThreads(1)
                .dataDirectory(work.resolve("client")).membership(membership).build()).start();
    }

    private static NeptuneNode start(Path work, MembershipConfig membership, LogRetentionConfig retention, int i) {
        return NeptuneNode.builder(NodeConfig.builder().node("node-" + i).ioThreads(1).membership(membership)
                        .logRetention(retention).dataDirectory(work.resolve("data").resolve("node-" + i)).build())
                .host(writeAnywhere ? new WriteAnywhereCache() : new CacheService(), HostingConfig.builder().partitions(List.of(0)).priority(4 - i).replicas(3)
                        .workers(4).build())
                .start();
    }

    private static void closeAll(List<NeptuneNode> nodes) {
        for (NeptuneNode node : nodes) {
            node.close();
        }
    }

    /** Level 1: waits until the three replicas of partition 0 hold the same entries (equal digests). */
    private static void awaitConverged(NeptuneNode client) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1200);
        while (System.nanoTime() < deadline) {
            List<ReplicaStatus> replicas = client.admin().replicas(SERVICE, 0).get(30, TimeUnit.SECONDS);
            if (replicas.size() == 3 && replicas.stream().map(ReplicaStatus::digest).distinct().count() == 1
                    && replicas.stream().noneMatch(r -> r.digest().isEmpty() || r.role() == ReplicaRole.RECOVERING)) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
        throw new IllegalStateException("the replicas of " + SERVICE + "#0 did not converge");
    }

    /** Waits until {@code node} announces its replica of partition 0 at {@code version} or more, not RECOVERING. */
    private static void awaitServing(NeptuneNode client, String node, long version) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(1200);
        while (System.nanoTime() < deadline) {
            for (AnnouncedReplica r : client.admin().announcedReplicas()) {
                if (r.service().equals(SERVICE) && r.node().equals(node) && r.partition() == 0
                        && r.role() != ReplicaRole.RECOVERING && r.version() >= version) {
                    return;
                }
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        throw new IllegalStateException(node + " did not serve at version " + version);
    }

    private static long primaryVersion(NeptuneNode client) {
        return client.admin().announcedReplicas().stream().filter(r -> r.service().equals(SERVICE)
                && r.role() == ReplicaRole.PRIMARY).mapToLong(AnnouncedReplica::version).max().orElse(0);
    }

    private static long sizeOf(Path file) {
        try {
            return Files.size(file);
        } catch (IOException e) {
            return -1;
        }
    }

    /**
     * Writes {@code count} values of {@code valueBytes} bytes to keys {@code key-0 .. key-(keys - 1)}, in turn;
     * every tenth of them (at least 10,000) tells {@code progress} how many were sent.
     */
    private static int writeMany(NeptuneClient client, int count, int valueBytes, int keys, IntConsumer progress)
            throws InterruptedException {
        int every = Math.max(10_000, count / 10);
        Semaphore window = new Semaphore(64);
        NeptuneHandle handle = NeptuneHandle.create();
        String value = "v".repeat(valueBytes);
        AtomicInteger ok = new AtomicInteger();
        List<CompletableFuture<Updated>> last = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            window.acquire();
            CompletableFuture<Updated> call = client.callAsync(handle, SERVICE, 0, "CacheUpdate", AccessMode.WRITE,
                    new CacheUpdate("key-" + i % keys, value), Updated.class, CallOptions.timeout(Duration.ofSeconds(30)))
                    .whenComplete((r, e) -> {
                        window.release();
                        if (e == null) {
                            ok.incrementAndGet();
                        }
                    });
            if (count - i <= 64) {
                last.add(call);
            }
            if ((i + 1) % every == 0 && i + 1 < count) {
                progress.accept(i + 1);
            }
        }
        for (CompletableFuture<Updated> call : last) {
            call.handle((r, e) -> null).join();
        }
        window.acquire(64);
        return ok.get();
    }
}
