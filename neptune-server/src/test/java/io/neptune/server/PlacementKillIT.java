package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.core.FailoverMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.PlacementStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.concurrent.locks.LockSupport;
import org.awaitility.core.ConditionTimeoutException;
import org.awaitility.core.TerminalFailureException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ClusterAdmin#addReplica} and {@link ClusterAdmin#removeReplica} ({@code docs/protocols/placement.md},
 * "A primary crash in the middle of a change") with node processes killed by SIGKILL in the middle, under a
 * continuous writer: a 4th replica killed while, a learner, it fetches its snapshot, the primary killed as
 * it logs the configuration of a remove-replica, and again of an add-replica. After each kill the change
 * completes, by itself or when run again; at the end every acknowledged write is on every replica of the
 * final configuration, the replicas are identical, each replica's {@code members} names the voters the
 * admin asked for, and no epoch ever had two primaries. (It found snapshots taken under writes holding
 * writes above their LSN: {@code PartitionDatabaseSnapshotTest}.)
 */
class PlacementKillIT {
    private static final Logger logger = LoggerFactory.getLogger(PlacementKillIT.class);
    private static final String SERVICE = KvWriteLoad.SERVICE;
    private static final int PARTITION = 0;   // the load's only partition, and the one whose placement changes
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3", "node-4");
    /**
     * Checkpoints drop the log under the writes, so a replica added later needs a snapshot; the retention
     * keeps the records a live learner still needs while it fetches that snapshot (with 100, writes at this
     * rate outran the transfer: each installed snapshot was already too old for the log's start).
     */
    private static final String SETTINGS = "log-retention: 20000\nlog-checkpoint-interval: 50\n";
    private static final Duration CHANGE_TIMEOUT = Duration.ofSeconds(90);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)   // kept for the post-mortem when the test fails
    Path work;

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void placementChangesSurviveSigkillOfTheNewReplicaAndOfThePrimary() throws Exception {
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work);
                PrimaryWatch watch = new PrimaryWatch(cluster)) {
            // one priority for all: no handover by priority moves the primary role between the test's steps
            for (String node : NODES) {
                cluster.define(node, KvTestService.class, 1, 3, FailoverMode.MAJORITY, SETTINGS);
            }
            // node-4 runs the service and hosts none of it (its placement file says so) until add-replica
            Files.createDirectories(cluster.dataDirectory("node-4"));
            Files.writeString(cluster.dataDirectory("node-4").resolve(PlacementStore.FILE), "{\"" + SERVICE + "\":[]}");
            cluster.startAll(NODES.toArray(String[]::new));
            NeptuneNode observer = cluster.observer();
            ReplicatedProcesses.await(() -> observer.knownNodes().contains(NodeId.of("node-4")), Duration.ofSeconds(30),
                    "the observer to hear node-4");
            awaitServing(cluster, Set.of("node-1", "node-2", "node-3"), Duration.ofSeconds(60));
            watch.start();

            KvWriteLoad load = new KvWriteLoad(observer.client(), 1, 16, Duration.ofSeconds(15));
            load.write(100);
            // ~8 MB in the partition: node-4's snapshot takes several chunks (1 MB), so it can be killed in the middle
            String value = "x".repeat(60_000);
            String primary = cluster.primary(SERVICE, PARTITION).orElseThrow();
            for (int i = 0; i < 130; i++) {
                ResponseMessage reply = cluster.writeTo(primary, SERVICE, PARTITION, "put",
                        new KvTestService.Put("big" + i, value + i));
                assertThat(reply.status()).as("big write %d: %s", i, reply.errorMessage()).isEqualTo(Status.OK);
            }
            load.start(80);
            try {
                // 1. node-4 killed while, a learner, it fetches the snapshot; restarted, it installs one and is added
                CompletableFuture<String> adding = observer.admin().addReplica(SERVICE, PARTITION, "node-4",
                        CHANGE_TIMEOUT);
                Path part = cluster.dataDirectory("node-4").resolve(SERVICE).resolve("log-" + PARTITION)
                        .resolve("snapshots").resolve("incoming.part");
                ReplicatedProcesses.await(() -> size(part) > 0, Duration.ofSeconds(60),
                        "node-4 to fetch part of the snapshot of " + SERVICE + "#" + PARTITION);
                cluster.kill("node-4");
                String installed = SERVICE + "#" + PARTITION + "@node-4: installed snapshot";
                assertThat(cluster.output("node-4")).doesNotContain(installed);
                assertThat(adding).as("add-replica while its replica is down").isNotDone();
                cluster.start("node-4").awaitLine(line -> line.contains(installed), Duration.ofSeconds(90),
                        "node-4 to install the snapshot");
                Set<String> all = Set.copyOf(NODES);
                logger.info("add-replica node-4 with node-4 killed: {}", outcome(adding));
                change(cluster, adding, () -> observer.admin().addReplica(SERVICE, PARTITION, "node-4", CHANGE_TIMEOUT),
                        all, "node-4");
                awaitServing(cluster, all, Duration.ofSeconds(90));
                awaitWrites(load, 100);

                // 2. the primary killed as it logs the configuration of a remove-replica
                primary = awaitServing(cluster, all, Duration.ofSeconds(90));
                String removed = primary.equals("node-2") ? "node-3" : "node-2";   // a secondary
                Set<String> without = new TreeSet<>(all);
                without.remove(removed);
                Killed removing = killWhenLogging(cluster, "remove-replica " + removed,
                        () -> observer.admin().removeReplica(SERVICE, PARTITION, removed));
                primary = removing.node();
                logger.info("remove-replica {} with primary {} killed: {}", removed, primary, outcome(removing.run()));
                change(cluster, removing.run(), () -> observer.admin().removeReplica(SERVICE, PARTITION, removed),
                        without, primary);
                restartIfDown(cluster, primary);
                awaitServing(cluster, without, Duration.ofSeconds(90));
                awaitVoters(cluster, without, without);
                assertThat(lastVoters(cluster, removed)).as("the voters %s last logged", removed)
                        .isIn(all, without);   // it may have left before it heard of the change
                awaitWrites(load, 100);

                // 3. the primary killed as it logs the configuration of an add-replica (the removed node back)
                awaitServing(cluster, without, Duration.ofSeconds(90));
                Killed readding = killWhenLogging(cluster, "add-replica " + removed,
                        () -> observer.admin().addReplica(SERVICE, PARTITION, removed, CHANGE_TIMEOUT));
                primary = readding.node();
                logger.info("add-replica {} with primary {} killed: {}", removed, primary, outcome(readding.run()));
                change(cluster, readding.run(),
                        () -> observer.admin().addReplica(SERVICE, PARTITION, removed, CHANGE_TIMEOUT), all, primary);
                restartIfDown(cluster, primary);
                awaitServing(cluster, all, Duration.ofSeconds(90));
                awaitWrites(load, 100);
            } finally {
                load.stop();
            }
            watch.stop();

            logger.info("writes: {} acknowledged, {} unknown {}", load.acknowledged(), load.unknown(),
                    load.failureKinds());
            load.awaitConverged(cluster, NODES, Duration.ofSeconds(60));   // equal applied LSNs and digests
            assertEveryNodeHoldsTheAcknowledgedWritesOnceInOneOrder(cluster, load.acknowledgedIds());
            awaitVoters(cluster, Set.copyOf(NODES), Set.copyOf(NODES));
            logger.info("primaries seen by epoch: {}", new java.util.TreeMap<>(watch.primaries()));
            assertThat(watch.violations()).as("epochs with two primaries").isEmpty();
            assertThat(watch.primaries()).as("epochs whose primary the watch saw").hasSizeGreaterThanOrEqualTo(3);
        }
    }

    /** Every node holds every acknowledged write, none twice, and all of them the same writes in one order. */
    private static void assertEveryNodeHoldsTheAcknowledgedWritesOnceInOneOrder(ReplicatedProcesses cluster,
            Set<Long> acknowledged) {
        List<Long> first = null;
        for (String node : NODES) {
            List<Long> held = held(cluster, node);
            assertThat(held).as("no write applied twice on %s", node).doesNotHaveDuplicates();
            assertThat(held).as("every acknowledged write on %s", node).containsAll(acknowledged);
            if (first == null) {
                first = held;
            } else {
                assertThat(held).as("the same writes in the same order on %s as on %s", node, NODES.get(0))
                        .isEqualTo(first);
            }
        }
        assertThat(first).hasSizeGreaterThanOrEqualTo(acknowledged.size());
    }

    /**
     * Waits until {@code expected} host the partition, one of them primary and the others secondaries, as
     * the observer's yellow page and the primary itself say; returns the primary.
     */
    private static String awaitServing(ReplicatedProcesses cluster, Set<String> expected, Duration timeout) {
        String[] primary = {""};
        ReplicatedProcesses.await(() -> {
            Map<NodeId, ReplicaRole> roles = cluster.observer().replicaRoles(SERVICE, PARTITION);
            Set<String> hosts = new TreeSet<>();
            roles.keySet().forEach(n -> hosts.add(n.value()));
            if (!hosts.equals(expected) || roles.values().stream().filter(r -> r == ReplicaRole.PRIMARY).count() != 1
                    || roles.values().stream().filter(r -> r == ReplicaRole.SECONDARY).count() != expected.size() - 1) {
                return false;
            }
            primary[0] = cluster.primary(SERVICE, PARTITION).orElseThrow();
            try {
                return "PRIMARY".equals(cluster.status(primary[0], SERVICE, PARTITION).get("role"));
            } catch (AssertionError e) {
                return false;   // the yellow page is behind: that primary is gone
            }
        }, timeout, SERVICE + "#" + PARTITION + " served by " + expected);
        return primary[0];
    }

    /**
     * Runs the operator's {@code change} ({@code run}, which keeps the run it started) and SIGKILLs whichever
     * node logs a configuration for it first: the primary, as it logs it. A run answered before any node
     * logged one (the primary moved between the test's look and the change, and refused it) is run again.
     * Returns the node killed and the run under way when it was.
     */
    private static Killed killWhenLogging(ReplicatedProcesses cluster, String change,
            Supplier<CompletableFuture<String>> run) {
        AtomicReference<CompletableFuture<String>> attempt = new AtomicReference<>(run.get());
        String[] logged = {null};
        ReplicatedProcesses.await(() -> {
            for (String node : NODES) {
                if (cluster.running(node) && loggedConfiguration(cluster.process(node), change)) {
                    logged[0] = node;
                    return true;
                }
            }
            if (attempt.get().isDone()) {
                logger.info("{} answered before a primary logged it: {}; running it again", change,
                        outcome(attempt.get()));
                attempt.set(run.get());
            }
            return false;
        }, Duration.ofSeconds(90), "a primary to log a configuration for " + change);
        cluster.kill(logged[0]);
        return new Killed(logged[0], attempt.get());
    }

    /** The primary {@link #killWhenLogging} killed, and the run of the change it was logging. */
    private record Killed(String node, CompletableFuture<String> run) {}

    /** Whether {@code node} printed, since last asked, that it logs a configuration for the operator's change. */
    private static boolean loggedConfiguration(NodeProcess node, String change) {
        for (String line = node.nextLine(); line != null; line = node.nextLine()) {
            if (line.contains("logging configuration") && line.contains("for an operator's " + change)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Lets {@code first} (a change issued before a kill) finish, then, if it failed, runs the change again
     * ({@code retry}) every half second, as an operator would (docs: "running it again is safe"), until a run
     * succeeds; the successful answer must name {@code voters}. A run refused with NEP-PLACE-009 (the change
     * would leave too few voters that take records while {@code killed} is down) restarts {@code killed}
     * first, as that refusal tells the operator to do.
     */
    private static void change(ReplicatedProcesses cluster, CompletableFuture<String> first,
            Supplier<CompletableFuture<String>> retry, Set<String> voters, String killed) {
        String expected = "voters now " + new TreeSet<>(voters);
        List<String> failures = new ArrayList<>();
        AtomicReference<CompletableFuture<String>> attempt = new AtomicReference<>(first);
        String[] result = {null};
        try {
            await("a run of the change to " + expected + " to succeed").atMost(CHANGE_TIMEOUT.multipliedBy(2))
                    .pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(500))
                    .failFast("more than 100 failed runs", () -> failures.size() > 100)
                    .until(() -> {
                        try {
                            result[0] = attempt.get().get(CHANGE_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS);
                            return true;
                        } catch (ExecutionException e) {
                            String failure = String.valueOf(e.getCause().getMessage());
                            failures.add(failure);
                            if (failure.contains("NEP-PLACE-009")) {
                                restartIfDown(cluster, killed);
                            }
                            attempt.set(retry.get());   // polled after the pause
                            return false;
                        }
                    });
        } catch (ConditionTimeoutException | TerminalFailureException e) {
            throw new AssertionError(e.getMessage() + "; the replicas now: " + roles(cluster) + "; the failed runs: "
                    + failures, e);
        }
        logger.info("placement change: {} (failed runs before: {})", result[0], failures);
        assertThat(result[0]).as("the change's answer (failed runs before: %s)", failures).contains(expected);
    }

    /** Starts {@code node} again (on its data) unless it runs. */
    private static void restartIfDown(ReplicatedProcesses cluster, String node) {
        if (!cluster.running(node)) {
            logger.info("restarting {}", node);
            cluster.start(node);
        }
    }

    /** What each node says of its replica of the partition, for a failure's message. */
    private static Map<String, String> roles(ReplicatedProcesses cluster) {
        Map<String, String> roles = new java.util.TreeMap<>();
        for (String node : NODES) {
            try {
                Map<String, Object> status = cluster.status(node, SERVICE, PARTITION);
                roles.put(node, String.valueOf(status));
            } catch (AssertionError | RuntimeException e) {
                roles.put(node, "no answer: " + e.getMessage());
            }
        }
        return roles;
    }

    private static String outcome(CompletableFuture<String> change) {
        if (!change.isDone()) {
            return "still under way";
        }
        return change.handle((r, e) -> e == null ? r : "failed: " + e.getMessage()).join();
    }

    private static void awaitWrites(KvWriteLoad load, int more) {
        int from = load.acknowledged();
        ReplicatedProcesses.await(() -> load.acknowledged() >= from + more, Duration.ofSeconds(60),
                more + " more acknowledged writes");
    }

    /** The writes node {@code node}'s replica holds, in the order it applied them, key by key. */
    private static List<Long> held(ReplicatedProcesses cluster, String node) {
        List<Long> held = new ArrayList<>();
        for (int k = 0; k < KvWriteLoad.KEYS; k++) {
            String v = cluster.readFrom(node, SERVICE, PARTITION, "get", new KvTestService.Get("k" + k),
                    KvTestService.Value.class).v();
            if (v != null) {
                for (String token : v.split(",")) {
                    if (!token.isEmpty()) {
                        held.add(Long.parseLong(token));
                    }
                }
            }
        }
        return held;
    }

    /** Waits until the latest configuration in the {@code members} file of each of {@code nodes} names {@code voters}. */
    private static void awaitVoters(ReplicatedProcesses cluster, Set<String> nodes, Set<String> voters) {
        for (String node : nodes) {
            await(node + "'s members file to name " + voters).atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(100)).until(() -> lastVoters(cluster, node), voters::equals);
        }
    }

    /** The voters of the latest configuration in node {@code node}'s {@code members} file of the partition. */
    private static Set<String> lastVoters(ReplicatedProcesses cluster, String node) throws IOException {
        Path members = cluster.dataDirectory(node).resolve(SERVICE).resolve("log-" + PARTITION).resolve("members");
        List<String> lines = Files.readAllLines(members).stream().filter(l -> !l.isBlank()).toList();
        if (lines.isEmpty()) {
            return Set.of();   // a learner not named yet
        }
        String[] parts = lines.get(lines.size() - 1).trim().split(" ", 3);
        return parts.length < 3 ? Set.of() : Set.of(parts[2].split(","));
    }

    private static long size(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;   // renamed or deleted meanwhile
        }
    }

    /**
     * Asks every node for its role in the partition, over and over, and records which node claimed the
     * primary role at which epoch: two nodes at one epoch is the violation. A node that is down or not
     * hosting simply does not answer.
     */
    private static final class PrimaryWatch implements AutoCloseable {
        private final ReplicatedProcesses cluster;
        private final Map<Long, Set<String>> primaries = new ConcurrentHashMap<>();
        private final List<Thread> threads = new ArrayList<>();
        private volatile boolean running;

        PrimaryWatch(ReplicatedProcesses cluster) {
            this.cluster = cluster;
        }

        void start() {
            running = true;
            for (String node : NODES) {
                Thread thread = new Thread(() -> {
                    while (running) {
                        try {
                            Map<String, Object> status = cluster.status(node, SERVICE, PARTITION);
                            if ("PRIMARY".equals(status.get("role"))) {
                                long epoch = ((Number) status.get("epoch")).longValue();
                                primaries.computeIfAbsent(epoch, e -> ConcurrentHashMap.newKeySet()).add(node);
                            }
                        } catch (AssertionError | RuntimeException e) {
                            // down, restarting or not hosting the partition
                        }
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));   // pacing the sampling
                    }
                }, "primary-watch-" + node);
                thread.setDaemon(true);
                threads.add(thread);
                thread.start();
            }
        }

        Map<Long, Set<String>> primaries() {
            return Map.copyOf(primaries);
        }

        Map<Long, Set<String>> violations() {
            Map<Long, Set<String>> twice = new java.util.TreeMap<>();
            primaries.forEach((epoch, nodes) -> {
                if (nodes.size() > 1) {
                    twice.put(epoch, Set.copyOf(nodes));
                }
            });
            return twice;
        }

        void stop() throws InterruptedException {
            running = false;
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }
}
