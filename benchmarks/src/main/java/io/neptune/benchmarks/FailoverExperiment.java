package io.neptune.benchmarks;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.FailoverMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.examples.cache.CacheService;
import io.neptune.examples.cache.CacheService.CacheUpdate;
import io.neptune.examples.cache.CacheService.Updated;
import io.neptune.server.HostingConfig;
import io.neptune.server.NodeConfigFile;
import io.neptune.server.cli.LocalCluster;
import io.neptune.server.ClusterAdmin.ReplicaStatus;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

/**
 * Replication under failure, measured on real processes: (1) the write unavailability window of a
 * level-2 partition when its primary is killed with SIGKILL (the longest gap between two
 * acknowledged writes of a closed-loop writer from the kill until 200 more were acknowledged), and
 * of the handover when the higher-priority replica comes back; (2) the catch-up rate of a replica
 * that missed writes.
 *
 * <p>Usage: {@code ./neptune bench failover [rounds] [catch-up writes] [--failover majority|fail-stop]}: the
 * partitions run in the given fail-over mode, {@code majority} (the default of levels 2 and 3) unless
 * told otherwise. The node logs stay in the work directory printed at the start; each round prints
 * the wall-clock time of its kill, to find it there.
 */
public final class FailoverExperiment {
    private static final String SERVICE = "cache";
    private static final int PARTITIONS = 8;

    private FailoverExperiment() {}

    public static void main(String[] args) throws Exception {
        List<String> positional = new ArrayList<>(List.of(args));
        FailoverMode mode = FailoverMode.MAJORITY;
        int option = positional.indexOf("--failover");
        if (option >= 0) {
            if (option + 1 >= positional.size()) {
                throw new IllegalArgumentException("--failover: no value (expected: majority or fail-stop)");
            }
            mode = FailoverMode.fromConfigName(positional.get(option + 1));
            positional.subList(option, option + 2).clear();
        }
        int rounds = positional.size() > 0 ? Integer.parseInt(positional.get(0)) : 5;
        int catchUpWrites = positional.size() > 1 ? Integer.parseInt(positional.get(1)) : 10_000;
        Path work = Files.createTempDirectory("neptune-failover-");
        long began = System.nanoTime();
        System.out.printf("fail-over mode %s; load average %s; node logs in %s%n", mode.configName(),
                Report.loadAverage(), work.resolve("logs"));
        String cluster = "failover-" + ProcessHandle.current().pid();
        Path discovery = Files.createDirectories(work.resolve("discovery"));
        try (LocalCluster processes = new LocalCluster(work.resolve("config"), work.resolve("logs"));
                NeptuneNode client = NeptuneNode.builder(NodeConfig.builder().node("bench-client").ioThreads(2)
                        .dataDirectory(work.resolve("client")).membership(MembershipConfig.builder().cluster(cluster)
                                .discoveryDirectory(discovery).build()).build()).start()) {
            for (int i = 1; i <= 3; i++) {
                processes.start(config(work, cluster, discovery, mode, i));
            }
            awaitServing(client, 3);
            System.out.printf("3 node processes up; %d rounds of SIGKILL of the primary of %s#0%n", rounds, SERVICE);
            List<Long> failover = new ArrayList<>();
            List<Long> handover = new ArrayList<>();
            for (int round = 1; round <= rounds; round++) {
                String primary = awaitSettledPrimary(client, "node-1");
                Writer writer = new Writer(client.client());
                writer.start();
                writer.awaitAcks(200);
                long killedAt = System.nanoTime();
                String killedClock = LocalTime.now().format(DateTimeFormatter.ofPattern("HH:mm:ss.SSS"));
                processes.kill(primary);
                writer.awaitAcksAfter(killedAt, 200);
                // not just the gap that spans the kill: a write the dying primary answered a moment after
                // SIGKILL was sent closes that gap, and the outage follows it
                failover.add(writer.longestGapAround(killedAt, System.nanoTime()));
                long restartedAt = System.nanoTime();
                processes.start(config(work, cluster, discovery, mode, Integer.parseInt(primary.substring(5))));
                awaitServing(client, 3);
                awaitSettledPrimary(client, primary); // the handover is done: its gap lies in the window measured
                writer.awaitAcksAfter(System.nanoTime(), 200);
                handover.add(writer.longestGapAround(restartedAt, System.nanoTime()));
                writer.stop();
                System.out.printf(Locale.ROOT, "round %d: killed %s at %s; fail-over window %d ms; back and handover"
                        + " gap %d ms%n", round, primary, killedClock, failover.get(round - 1),
                        handover.get(round - 1));
            }
            System.out.printf(Locale.ROOT, "| write unavailability after SIGKILL of the primary | %s |%n", summary(failover));
            System.out.printf(Locale.ROOT, "| longest write gap while the old primary recovers and takes its role back | %s |%n",
                    summary(handover));

            processes.kill("node-3");
            long started = System.nanoTime();
            int written = writeMany(client.client(), catchUpWrites);
            double writeSeconds = (System.nanoTime() - started) / 1e9;
            long restart = System.nanoTime();
            processes.start(config(work, cluster, discovery, mode, 3));
            awaitCaughtUp(client, "node-3");
            double catchUpSeconds = (System.nanoTime() - restart) / 1e9;
            System.out.printf(Locale.ROOT, "| writes while node-3 was down (8 partitions, 64 in flight) | %d in %.1f s = %.0f writes/s |%n",
                    written, writeSeconds, written / writeSeconds);
            System.out.printf(Locale.ROOT, "| catch-up of the restarted node-3 (restart to every partition at the primary's version) | %.1f s = %.0f writes/s |%n",
                    catchUpSeconds, written / catchUpSeconds);
        }
        System.out.printf(Locale.ROOT, "done in %.1f min; load average %s%n", (System.nanoTime() - began) / 60e9,
                Report.loadAverage());
    }

    private static NodeConfigFile config(Path work, String cluster, Path discovery, FailoverMode mode, int i) {
        NodeConfig node = NodeConfig.builder().node(NodeId.of("node-" + i)).ioThreads(1)
                .dataDirectory(work.resolve("data").resolve("node-" + i))
                .membership(MembershipConfig.builder().cluster(cluster).discoveryDirectory(discovery).build())
                .build();
        HostingConfig hosting = HostingConfig.builder().partitions(IntStream.range(0, PARTITIONS).boxed().toList())
                .priority(4 - i).replicas(3).failover(mode).workers(4).build();
        return new NodeConfigFile(node, List.of(new NodeConfigFile.HostedService(CacheService.class.getName(), hosting)),
                List.of());
    }

    private static String summary(List<Long> millis) {
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        return String.format(Locale.ROOT, "min %d ms, median %d ms, max %d ms (%d rounds)", sorted.get(0),
                sorted.get(sorted.size() / 2), sorted.get(sorted.size() - 1), sorted.size());
    }

    /**
     * Waits until {@code node} (the highest priority, which takes the role back after each restart)
     * is partition 0's primary both as its replicas answer now and in the client's yellow page, with no
     * other replica announced as primary. Killing whatever the yellow page names right after a restart
     * can kill the old primary after its handover, a secondary by then: a round that measures nothing.
     */
    private static String awaitSettledPrimary(NeptuneNode client, String node) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        List<ReplicaStatus> live = List.of();
        while (System.nanoTime() < deadline) {
            live = client.admin().replicas(SERVICE, 0).get(10, TimeUnit.SECONDS);
            List<String> announced = client.replicaRoles(SERVICE, 0).entrySet().stream()
                    .filter(e -> e.getValue() == ReplicaRole.PRIMARY).map(e -> e.getKey().value()).toList();
            List<String> answering = live.stream().filter(r -> r.role() == ReplicaRole.PRIMARY).map(ReplicaStatus::node)
                    .toList();
            if (announced.equals(List.of(node)) && answering.equals(List.of(node))) {
                return node;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        throw new IllegalStateException(node + " did not become the settled primary of " + SERVICE + "#0: " + live
                + ", announced " + client.replicaRoles(SERVICE, 0));
    }

    private static void awaitServing(NeptuneNode client, int replicas) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            boolean ready = true;
            for (int p = 0; p < PARTITIONS && ready; p++) {
                var roles = client.replicaRoles(SERVICE, p);
                ready = roles.size() == replicas && !roles.containsValue(ReplicaRole.RECOVERING) && roles.containsValue(ReplicaRole.PRIMARY);
            }
            if (ready) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(20);
        }
        throw new IllegalStateException("replicas did not become ready: " + client.replicaRoles(SERVICE, 0));
    }

    private static void awaitCaughtUp(NeptuneNode client, String node) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
        while (System.nanoTime() < deadline) {
            boolean caughtUp = true;
            for (int p = 0; p < PARTITIONS && caughtUp; p++) {
                List<ReplicaStatus> replicas = client.admin().replicas(SERVICE, p).get(10, TimeUnit.SECONDS);
                long primary = replicas.stream().filter(r -> r.role() == ReplicaRole.PRIMARY).mapToLong(ReplicaStatus::version)
                        .findFirst().orElse(-1);
                caughtUp = replicas.stream().anyMatch(r -> r.node().equals(node) && r.version() == primary
                        && r.role() != ReplicaRole.RECOVERING);
            }
            if (caughtUp) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new IllegalStateException(node + " did not catch up");
    }

    private static int writeMany(NeptuneClient client, int count) throws InterruptedException {
        Semaphore window = new Semaphore(64);
        NeptuneHandle handle = NeptuneHandle.create();
        String value = Base64.getEncoder().encodeToString(new byte[64]);
        List<CompletableFuture<Updated>> calls = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            window.acquire();
            String key = "bulk-" + i;
            calls.add(client.callAsync(handle, SERVICE, i % PARTITIONS, "CacheUpdate", AccessMode.WRITE,
                    new CacheUpdate(key, value), Updated.class, CallOptions.timeout(Duration.ofSeconds(30)))
                    .whenComplete((r, e) -> window.release()));
        }
        int ok = 0;
        for (CompletableFuture<Updated> call : calls) {
            ok += call.handle((r, e) -> e == null ? 1 : 0).join();
        }
        return ok;
    }

    /** A closed-loop writer to partition 0 recording when each write was acknowledged. */
    private static final class Writer {
        private final NeptuneClient client;
        private final ConcurrentLinkedQueue<Long> acks = new ConcurrentLinkedQueue<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;

        Writer(NeptuneClient client) {
            this.client = client;
            this.thread = new Thread(this::loop, "failover-writer");
            this.thread.setDaemon(true);
        }

        void start() {
            thread.start();
        }

        private void loop() {
            NeptuneHandle handle = NeptuneHandle.create();
            String value = Base64.getEncoder().encodeToString(new byte[32]);
            for (long i = 0; running.get(); i++) {
                try {
                    client.call(handle, SERVICE, 0, "CacheUpdate", AccessMode.WRITE, new CacheUpdate("k" + i, value),
                            Updated.class, CallOptions.timeout(Duration.ofSeconds(20)));
                    acks.add(System.nanoTime());
                } catch (RuntimeException e) {
                    // counted as a gap: the next acknowledgement closes it
                }
            }
        }

        void awaitAcks(int count) throws InterruptedException {
            while (acks.size() < count) {
                TimeUnit.MILLISECONDS.sleep(5);
            }
        }

        void awaitAcksAfter(long nanos, int count) throws InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (acks.stream().filter(t -> t - nanos > 0).count() < count) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("writes did not resume");
                }
                TimeUnit.MILLISECONDS.sleep(5);
            }
        }

        /** The longest gap between consecutive acknowledgements that overlaps [from, to]. */
        long longestGapAround(long from, long to) {
            List<Long> times = new ArrayList<>(acks);
            long longest = 0;
            for (int i = 1; i < times.size(); i++) {
                long a = times.get(i - 1);
                long b = times.get(i);
                if (b - from >= 0 && to - a >= 0) {
                    longest = Math.max(longest, b - a);
                }
            }
            return TimeUnit.NANOSECONDS.toMillis(longest);
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.join(30_000);
        }
    }
}
