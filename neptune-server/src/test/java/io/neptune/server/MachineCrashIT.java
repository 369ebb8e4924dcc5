package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.crashfs.CrashFs;
import io.neptune.server.internal.log.FsyncPolicy;
import io.neptune.server.internal.log.RedoLog;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Machine crashes (issue 9, DESIGN §6.5): one replica runs under {@link CrashFs}, is killed with
 * SIGKILL and has its files cut back to their last fsync, as a power cut would leave them: H2
 * does not fsync its commits, so its database goes back to an older state or disappears, while
 * the REDO log (group commit) keeps every acknowledged write. The replica must rejoin with every
 * acknowledged write exactly once and the same digest as the others.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MachineCrashIT {
    private static final String KV = KvWriteLoad.SERVICE;
    private static final int PARTITIONS = 8;
    private static final int WRITES_PER_SECOND = 60;
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)   // kept for the post-mortem when a test fails
    Path work;

    @BeforeEach
    void requireShim() {
        assumeTrue(CrashFs.unavailableReason().isEmpty(), () -> "skipped: " + CrashFs.unavailableReason().get());
    }

    @Test
    void aSecondaryThatLosesItsUnsyncedDataRejoinsWithEveryAcknowledgedWrite() throws IOException {
        crashAndRejoin("node-3", false);
    }

    @Test
    void aPrimaryThatLosesItsUnsyncedDataRejoinsWithEveryAcknowledgedWrite() throws IOException {
        crashAndRejoin("node-1", false);
    }

    /** A crash that leaves the H2 file unopenable: the database restarts empty and is refilled from the log. */
    @Test
    void aReplicaWhoseDatabaseNoLongerOpensRebuildsItFromItsLog() throws IOException {
        crashAndRejoin("node-3", true);
    }

    private void crashAndRejoin(String victim, boolean damageDatabase) throws IOException {
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work);
                KvWriteLoad load = new KvWriteLoad(cluster.observer().client(), PARTITIONS, 8,
                        Duration.ofSeconds(10))) {
            defineKv(cluster, victim, "");
            cluster.startAll(NODES.toArray(String[]::new));
            CatchUpIT.awaitPrimary(cluster, "node-1", 2, Duration.ofSeconds(60));
            load.start(WRITES_PER_SECOND);
            ReplicatedProcesses.await(() -> load.acknowledged() >= 100, Duration.ofSeconds(60), "100 acknowledged");
            load.stop();
            load.awaitConverged(cluster, NODES, Duration.ofSeconds(60));
            long[][] logged = logged(cluster, victim);   // applied everywhere, so durable in every log
            load.start(WRITES_PER_SECOND);
            ReplicatedProcesses.await(() -> load.acknowledged() >= 200, Duration.ofSeconds(60), "200 acknowledged");

            cluster.kill(victim);
            ReplicatedProcesses.await(() -> !cluster.observer().knownNodes().contains(NodeId.of(victim)),
                    Duration.ofSeconds(30), victim + " to leave the yellow page");
            Path root = cluster.dataDirectory(victim);
            if (damageDatabase) {
                CrashFs.writeBack(root);   // the H2 file reached the disk, but torn: it no longer opens
                damage(root.resolve(KV).resolve("data").resolve(KvTestService.DATABASE_NAME + ".mv.db"));
            } else {
                CrashFs.Cut cut = CrashFs.cut(root);
                System.out.printf("MachineCrashIT: %s crashed after %d acknowledged writes: %s%n", victim,
                        load.acknowledged(), cut);
                assertThat(cut.files() + cut.entries()).as("the crash took something back").isPositive();
                assertLogsKept(root, logged);
            }
            int atCrash = load.acknowledged();
            cluster.start(victim);
            awaitBack(cluster, victim);
            ReplicatedProcesses.await(() -> load.acknowledged() >= atCrash + 100, Duration.ofSeconds(60),
                    "100 more acknowledged writes");
            load.stop();
            CatchUpIT.awaitPrimary(cluster, "node-1", 2, Duration.ofSeconds(60));

            long held = load.audit(cluster, NODES, Duration.ofSeconds(90));

            assertThat(held).isBetween((long) load.acknowledged(), (long) load.acknowledged() + load.unknown());
            assertThat(cluster.output(victim)).contains(damageDatabase ? "the database file is corrupted"
                    : "executing them again from the log");
        }
    }

    /**
     * A secondary written with {@code log-sync: none} whose database kept writes its log lost (the
     * database was closed, and so synced, at a clean stop; the log was not): it fetches the lost
     * records from the primary, applies none of them twice, and serves again.
     */
    @Test
    void aSecondaryWhoseLogLostATailItsServiceAppliedFetchesItFromThePrimary() throws IOException {
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work);
                KvWriteLoad load = new KvWriteLoad(cluster.observer().client(), PARTITIONS, 8,
                        Duration.ofSeconds(10))) {
            defineKv(cluster, "node-3", "log-sync: none\n");
            cluster.startAll(NODES.toArray(String[]::new));
            CatchUpIT.awaitPrimary(cluster, "node-1", 2, Duration.ofSeconds(60));
            Path root = cluster.dataDirectory("node-3");
            load.write(80);
            cluster.stop("node-3");
            CrashFs.writeBack(root);   // a durable starting point: the log and the database as they are
            cluster.start("node-3");
            CatchUpIT.awaitPrimary(cluster, "node-1", 2, Duration.ofSeconds(60));
            load.write(160);           // node-3 applies these; its log holds them in the page cache only
            cluster.stop("node-3");    // H2 closes (and syncs); the log closes unforced
            CrashFs.cut(root);

            load.start(WRITES_PER_SECOND);
            cluster.start("node-3");
            awaitBack(cluster, "node-3");
            int back = load.acknowledged();
            ReplicatedProcesses.await(() -> load.acknowledged() >= back + 100, Duration.ofSeconds(60),
                    "100 more acknowledged writes");
            load.stop();

            long held = load.audit(cluster, NODES, Duration.ofSeconds(90));

            assertThat(held).isBetween((long) load.acknowledged(), (long) load.acknowledged() + load.unknown());
            assertThat(cluster.output("node-3")).contains("the log lost its tail");
        }
    }

    /**
     * The same loss on a partition's only replica: its service applied writes its log no longer has,
     * and no peer has them. It must never give one of those LSNs to a new write: that write would be
     * skipped as "already applied", an acknowledged write that never ran.
     */
    @Test
    void aLoneReplicaWhoseLogLostATailItsServiceAppliedAcknowledgesNoWriteItDidNotRun() throws Exception {
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work);
                KvWriteLoad load = new KvWriteLoad(cluster.observer().client(), PARTITIONS, 4,
                        Duration.ofSeconds(3))) {
            cluster.define("solo", KvTestService.class, 1, 1, "log-sync: none\n");
            Path root = cluster.dataDirectory("solo");
            cluster.environment("solo", CrashFs.environment(root));
            cluster.start("solo");
            CatchUpIT.awaitPrimary(cluster, "solo", 0, Duration.ofSeconds(60));
            load.write(40);
            cluster.stop("solo");
            CrashFs.writeBack(root);
            cluster.start("solo");
            CatchUpIT.awaitPrimary(cluster, "solo", 0, Duration.ofSeconds(60));
            load.write(80);
            cluster.stop("solo");
            CrashFs.cut(root);         // the log loses the last 80 writes; the database (synced at close) keeps them
            cluster.start("solo");
            // it knows its log lost records its service applied: it does not lead (in either fail-over mode), so new
            // writes find no primary and fail; none is acknowledged without running
            ReplicatedProcesses.await(() -> cluster.output("solo").contains("the log lost its tail"),
                    Duration.ofSeconds(60), "solo to find its lost tail");

            load.write(24);

            // It leads no epoch and serves nothing until an operator rebuilds it (OPERATIONS.md, Machine crashes):
            // none of the 24 writes was acknowledged, so none was acknowledged without running.
            assertThat(load.acknowledged()).as("acknowledged writes: the first 120 only").isEqualTo(120);
            for (int p = 0; p < PARTITIONS; p++) {
                assertThat(cluster.observer().replicaRoles(KV, p).get(NodeId.of("solo"))).as("solo's role in kv#%d", p)
                        .isNotEqualTo(ReplicaRole.PRIMARY);
            }
            assertThat(cluster.output("solo")).contains("the log lost its tail");
        }
    }

    /**
     * A level-1 service without {@code @Check} keeps its data in H2, which loses unsynced commits
     * in the crash while the log's (forced) committed mark still counts them: recovery must run the
     * log again rather than trust the mark.
     */
    @Test
    void aLevelOneServiceWithoutCheckRunsItsLogAgainAfterAMachineCrash() throws Exception {
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work)) {
            cluster.define("node-1", UncheckedSetTestService.class, 2, 2);
            cluster.define("node-2", UncheckedSetTestService.class, 1, 2);
            Path root = cluster.dataDirectory("node-2");
            cluster.environment("node-2", CrashFs.environment(root));
            cluster.startAll("node-1", "node-2");
            awaitServing(cluster, "node-2");
            Set<String> added = new HashSet<>();
            for (int i = 0; i < 120; i++) {
                ResponseMessage response = cluster.writeTo("node-2", UncheckedSetTestService.SERVICE, 0, "add",
                        new UncheckedSetTestService.Add("e" + i));
                assertThat(response.status()).as("add e%d: %s", i, response.errorMessage()).isEqualTo(Status.OK);
                added.add("e" + i);
            }

            cluster.kill("node-2");
            ReplicatedProcesses.await(() -> !cluster.observer().knownNodes().contains(NodeId.of("node-2")),
                    Duration.ofSeconds(30), "node-2 to leave the yellow page");
            System.out.printf("MachineCrashIT: level 1: %s%n", CrashFs.cut(root));
            cluster.start("node-2");
            // node-1 may not have finished its first anti-entropy round before node-2 went down (a slow start on
            // a loaded machine): it stays RECOVERING, and answers reads STALE, until node-2 is back and answers it
            awaitServing(cluster, "node-2");
            awaitServing(cluster, "node-1");

            for (String node : List.of("node-1", "node-2")) {
                ReplicatedProcesses.await(() -> members(cluster, node).containsAll(added), Duration.ofSeconds(30),
                        "every acknowledged add on " + node);
            }
            assertThat(members(cluster, "node-2")).isEqualTo(members(cluster, "node-1"));
            assertThat(cluster.status("node-2", UncheckedSetTestService.SERVICE, 0).get("digest"))
                    .isEqualTo(cluster.status("node-1", UncheckedSetTestService.SERVICE, 0).get("digest"));
        }
    }

    /** Per partition of the kv service, {@code node}'s log end and persisted epoch. */
    private static long[][] logged(ReplicatedProcesses cluster, String node) {
        long[][] logged = new long[PARTITIONS][];
        for (int p = 0; p < PARTITIONS; p++) {
            Map<String, Object> status = cluster.status(node, KV, p);
            logged[p] = new long[] {((Number) status.get("logEnd")).longValue(),
                ((Number) status.get("epoch")).longValue()};
        }
        return logged;
    }

    /** Every partition's log under {@code root} still holds {@code logged}'s records and epoch. */
    private static void assertLogsKept(Path root, long[][] logged) {
        for (int p = 0; p < PARTITIONS; p++) {
            try (RedoLog log = RedoLog.open(root.resolve(KV).resolve("log-" + p), FsyncPolicy.GROUP)) {
                assertThat(log.lastLsn()).as("log end of %s#%d after the crash", KV, p).isGreaterThanOrEqualTo(
                        logged[p][0]);
                assertThat(log.epoch()).as("persisted epoch of %s#%d after the crash", KV, p).isGreaterThanOrEqualTo(
                        logged[p][1]);
            }
        }
    }

    private static Set<String> members(ReplicatedProcesses cluster, String node) {
        return new HashSet<>(cluster.readFrom(node, UncheckedSetTestService.SERVICE, 0, "members",
                new UncheckedSetTestService.ReadMembers(), UncheckedSetTestService.Members.class).elements());
    }

    private static void awaitServing(ReplicatedProcesses cluster, String node) {
        ReplicatedProcesses.await(() -> cluster.observer()
                .replicaRoles(UncheckedSetTestService.SERVICE, 0).get(NodeId.of(node)) == ReplicaRole.SECONDARY, Duration.ofSeconds(60),
                node + " serving " + UncheckedSetTestService.SERVICE + "#0");
    }

    /** Three nodes of the kv service, priorities 3, 2, 1; {@code crashing} runs under CrashFs with {@code settings}. */
    private static void defineKv(ReplicatedProcesses cluster, String crashing, String settings) {
        for (int n = 0; n < NODES.size(); n++) {
            String node = NODES.get(n);
            cluster.define(node, KvTestService.class, NODES.size() - n, NODES.size(),
                    node.equals(crashing) ? settings : "");
        }
        cluster.environment(crashing, CrashFs.environment(cluster.dataDirectory(crashing)));
    }

    /** Overwrites {@code file} with noise, headers included: H2 can no longer open it. */
    private static void damage(Path file) {
        try (RandomAccessFile out = new RandomAccessFile(file.toFile(), "rw")) {
            long size = out.length();
            assertThat(size).as("%s exists", file).isPositive();
            byte[] noise = new byte[(int) size];
            new java.util.Random(size).nextBytes(noise);
            out.write(noise);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** Waits until {@code node} serves every partition again (not RECOVERING) and each partition has a primary. */
    private static void awaitBack(ReplicatedProcesses cluster, String node) {
        NodeId id = NodeId.of(node);
        ReplicatedProcesses.await(() -> {
            for (int p = 0; p < PARTITIONS; p++) {
                Map<NodeId, ReplicaRole> roles = cluster.observer().replicaRoles(KV, p);
                ReplicaRole role = roles.get(id);
                if (!(role == ReplicaRole.SECONDARY || role == ReplicaRole.PRIMARY) || !roles.containsValue(ReplicaRole.PRIMARY)) {
                    return false;
                }
            }
            return true;
        }, Duration.ofSeconds(90), node + " back in every partition");
    }
}
