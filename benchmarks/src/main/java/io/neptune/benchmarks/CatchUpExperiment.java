package io.neptune.benchmarks;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.FailoverMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.ReplicaRole;
import io.neptune.examples.cache.CacheService;
import io.neptune.examples.cache.CacheService.CacheUpdate;
import io.neptune.examples.cache.CacheService.Updated;
import io.neptune.server.ClusterAdmin.AnnouncedReplica;
import io.neptune.server.ClusterAdmin.ReplicaStatus;
import io.neptune.server.HostingConfig;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * How fast a recovering replica applies the writes it missed (issue 12, "catch-up"), in one JVM: three
 * in-process nodes on the loopback JGroups stack host the persistent cache (level 2, H2 with
 * {@code @Check}, {@code log-sync: group}, 3 replicas); {@code node-3} is stopped, the others take
 * {@code writes} updates of 64-byte values (64 in flight), then {@code node-3} starts again on its data
 * and the experiment times, from the moment its node is up until it announces the primary's version on
 * every partition (not RECOVERING): writes missed / that time. The node's start is timed apart, so the
 * figure is the catch-up itself, not a JVM start. Unlike {@code bench failover}, it does not poll the
 * replicas' status while it waits: each status answer computes a digest of the partition on its
 * executor, which slowed the catch-up it measured (docs/PERFORMANCE.md, "Catch-up").
 *
 * <p>Usage: {@code ./neptune bench catchup [writes] [partitions] [--failover majority|fail-stop]}
 * (defaults 50,000 writes, 1 partition, majority).
 */
public final class CatchUpExperiment {
    private static final String SERVICE = "cache";

    private CatchUpExperiment() {}

    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>(List.of(args));
        FailoverMode mode = FailoverMode.MAJORITY;
        int option = positional.indexOf("--failover");
        if (option >= 0) {
            mode = FailoverMode.fromConfigName(positional.get(option + 1));
            positional.subList(option, option + 2).clear();
        }
        int writes = positional.size() > 0 ? Integer.parseInt(positional.get(0)) : 50_000;
        int partitions = positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 1;
        Path work = Files.createTempDirectory(Path.of(System.getProperty("user.dir")), "neptune-catchup-");
        MembershipConfig membership = MembershipConfig.builder().cluster("catchup-" + ProcessHandle.current().pid())
                .discoveryDirectory(Files.createDirectories(work.resolve("discovery")))
                .announceInterval(Duration.ofMillis(200)).expiry(Duration.ofSeconds(2)).build();
        System.out.printf(Locale.ROOT, "catch-up: %d writes over %d partition(s), %s; load average %s; data in %s%n",
                writes, partitions, mode.configName(), Report.loadAverage(), work);
        List<NeptuneNode> nodes = new ArrayList<>();
        try (NeptuneNode client = NeptuneNode.builder(NodeConfig.builder().node("bench-client").ioThreads(1)
                .dataDirectory(work.resolve("client")).membership(membership).build()).start()) {
            for (int i = 1; i <= 3; i++) {
                nodes.add(start(work, membership, mode, partitions, i));
            }
            awaitServing(client, partitions, 3);
            writeMany(client.client(), 2_000, partitions); // warm-up: every node's paths compiled
            awaitAnnounced(client, partitions, "node-3", primaryVersions(client, partitions));
            long had = versions(client, partitions, "node-3");
            nodes.get(2).close();
            long writing = System.nanoTime();
            int written = writeMany(client.client(), writes, partitions);
            double writeSeconds = (System.nanoTime() - writing) / 1e9;
            long target = primaryVersions(client, partitions);
            long behind = target - had;
            System.out.printf(Locale.ROOT, "| writes while node-3 was down | %d in %.1f s = %.0f writes/s |%n",
                    written, writeSeconds, written / writeSeconds);
            long starting = System.nanoTime();
            NeptuneNode restarted = start(work, membership, mode, partitions, 3);
            nodes.set(2, restarted);
            long up = System.nanoTime();
            Instant upAt = Instant.now();
            awaitAnnounced(client, partitions, "node-3", target);
            long done = System.nanoTime();
            System.out.printf(Locale.ROOT, "catch-up window (wall clock, for a profile): %s .. %s%n", upAt, Instant.now());
            double catchUpSeconds = (done - up) / 1e9;
            System.out.printf(Locale.ROOT, "| node-3 start (recovery phase 1) | %.2f s |%n", (up - starting) / 1e9);
            System.out.printf(Locale.ROOT, "| catch-up of node-3 (node up until it announces the primary's version on every partition)"
                    + " | %d writes in %.2f s = %.0f writes/s |%n", behind, catchUpSeconds, behind / catchUpSeconds);
        } finally {
            for (NeptuneNode node : nodes) {
                node.close();
            }
            System.out.printf(Locale.ROOT, "load average %s%n", Report.loadAverage());
        }
        RedoLogAppendBenchmark.deleteTree(work); // ~35 MB a run; a failed run keeps it for the post-mortem
    }

    private static NeptuneNode start(Path work, MembershipConfig membership, FailoverMode mode, int partitions, int i) {
        List<Integer> hosted = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            hosted.add(p);
        }
        return NeptuneNode.builder(NodeConfig.builder().node("node-" + i).ioThreads(1).membership(membership)
                        .dataDirectory(work.resolve("data").resolve("node-" + i)).build())
                .host(new CacheService(), HostingConfig.builder().partitions(hosted).priority(4 - i).replicas(3)
                        .failover(mode).workers(4).build())
                .start();
    }

    private static void awaitServing(NeptuneNode client, int partitions, int replicas) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            boolean ready = true;
            for (int p = 0; p < partitions && ready; p++) {
                var roles = client.replicaRoles(SERVICE, p);
                ready = roles.size() == replicas && !roles.containsValue(ReplicaRole.RECOVERING)
                        && roles.containsValue(ReplicaRole.PRIMARY);
            }
            if (ready) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        throw new IllegalStateException("replicas did not become ready: " + client.replicaRoles(SERVICE, 0));
    }

    private static long primaryVersions(NeptuneNode client, int partitions) throws Exception {
        long sum = 0;
        for (int p = 0; p < partitions; p++) {
            sum += client.admin().replicas(SERVICE, p).get(10, TimeUnit.SECONDS).stream()
                    .filter(r -> r.role() == ReplicaRole.PRIMARY).mapToLong(ReplicaStatus::version).max().orElse(0);
        }
        return sum;
    }

    private static long versions(NeptuneNode client, int partitions, String node) throws Exception {
        long sum = 0;
        for (int p = 0; p < partitions; p++) {
            sum += client.admin().replicas(SERVICE, p).get(10, TimeUnit.SECONDS).stream()
                    .filter(r -> r.node().equals(node)).mapToLong(ReplicaStatus::version).max().orElse(0);
        }
        return sum;
    }

    /**
     * Waits until {@code node} announced at least {@code target} applied writes over the partitions, not
     * RECOVERING. It reads the client's yellow page (no round trip): asking the replicas for their status
     * would make each compute its digest, a scan of the whole partition on the partition's executor, and
     * that slows the very catch-up being measured. An announcement lags by up to an announce interval (200 ms).
     */
    private static void awaitAnnounced(NeptuneNode client, int partitions, String node, long target)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(600);
        while (System.nanoTime() < deadline) {
            long sum = 0;
            int serving = 0;
            for (AnnouncedReplica r : client.admin().announcedReplicas()) {
                if (r.service().equals(SERVICE) && r.node().equals(node) && r.partition() < partitions) {
                    sum += r.version();
                    serving += r.role() == ReplicaRole.RECOVERING ? 0 : 1;
                }
            }
            if (sum >= target && serving == partitions) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
        throw new IllegalStateException(node + " did not catch up");
    }

    private static int writeMany(NeptuneClient client, int count, int partitions) throws InterruptedException {
        Semaphore window = new Semaphore(64);
        NeptuneHandle handle = NeptuneHandle.create();
        String value = Base64.getEncoder().encodeToString(new byte[64]);
        List<CompletableFuture<Updated>> calls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            window.acquire();
            calls.add(client.callAsync(handle, SERVICE, i % partitions, "CacheUpdate", AccessMode.WRITE,
                    new CacheUpdate("bulk-" + i, value), Updated.class, CallOptions.timeout(Duration.ofSeconds(30)))
                    .whenComplete((r, e) -> window.release()));
        }
        int ok = 0;
        for (CompletableFuture<Updated> call : calls) {
            ok += call.handle((r, e) -> e == null ? 1 : 0).join();
        }
        return ok;
    }
}
