package io.neptune.server.internal.replication;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.LogRetentionConfig;
import io.neptune.server.internal.log.OriginBase;
import io.neptune.server.internal.replication.FaultInjectingCluster.Node;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Level 1 (write-anywhere) with bounded logs: a replica drops the records every peer has durably
 * seen, remembers per origin how far it dropped ({@link OriginBase}), and a replica that needs
 * writes no peer keeps any more installs a snapshot. Every replica must end with each write run
 * exactly once.
 */
class WriteAnywhereCheckpointTest {
    /** Checkpoints drop as few as 5 records; a lagging replica holds back at most 40. */
    private static final LogRetentionConfig RETENTION = new LogRetentionConfig(40, 5);

    @TempDir
    Path dir;

    @Test
    void everyReplicaDropsWhatAllHaveSeenAndARestartedOneCountsOnFromTheCut() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 3)) {
            List<Node> abc = startThree(cluster);
            Node a = abc.get(0);
            Node b = abc.get(1);
            Node c = abc.get(2);
            List<String> written = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                Node at = List.of(a, b, c).get(i % 3);
                written.add(write(cluster, at, "w" + i));
            }
            cluster.runUntil(() -> List.of(a, b, c).stream().allMatch(n -> n.applied().size() == 30
                    && n.core.log.startLsn() > 20), "every replica applied all 30 writes and dropped most records");
            assertThat(OriginBase.read(dir.resolve("c"))).as("c's record of what it dropped").containsKeys("a", "b", "c");

            FaultInjectingCluster.RecordingService store = c.app;
            cluster.kill(c);
            Node back = cluster.start("c", 1, store);
            cluster.runUntil(() -> back.role() == ReplicaRole.SECONDARY, "c serving again");
            // Had c counted its own writes from its log's start, it would reuse a sequence a and b hold another write
            // under, and they would never take this one.
            written.add(write(cluster, back, "after-restart"));
            written.add(write(cluster, a, "after-restart-a"));
            cluster.runUntil(() -> List.of(a, b, back).stream().allMatch(n -> n.applied().size() == 32),
                    "every replica applied the writes made after the restart");
            settle(cluster);
            for (Node n : List.of(a, b, back)) {
                assertThat(n.applied()).as(n + " ran each write once").containsExactlyInAnyOrderElementsOf(written);
            }
        }
    }

    /** A replica whose disk was replaced asks for writes every peer dropped: it installs a snapshot, then takes the rest. */
    @Test
    void aReplicaWithAnEmptyDiskInstallsASnapshotAndThenTakesTheRest() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 3)) {
            List<Node> abc = startThree(cluster);
            Node a = abc.get(0);
            Node b = abc.get(1);
            Node c = abc.get(2);
            List<String> written = new ArrayList<>();
            for (int i = 0; i < 24; i++) {
                written.add(write(cluster, List.of(a, b, c).get(i % 3), "w" + i));
            }
            cluster.runUntil(() -> List.of(a, b, c).stream().allMatch(n -> n.core.log.startLsn() > 15),
                    "every replica dropped most of its log");
            cluster.kill(c);
            delete(dir.resolve("c"));

            Node fresh = cluster.start("c", 1);
            written.add(write(cluster, a, "during-install"));
            cluster.runUntil(() -> fresh.role() == ReplicaRole.SECONDARY, "the new c serving");
            assertThat(fresh.core.log.startLsn()).as("c's log starts after the snapshot's writes").isGreaterThan(1);
            written.add(write(cluster, fresh, "new-c"));
            cluster.runUntil(() -> List.of(a, b, fresh).stream().allMatch(n -> n.applied().contains("new-c")
                    && n.applied().contains("during-install")), "every replica has the latest writes");
            settle(cluster);
            for (Node n : List.of(a, b, fresh)) {
                assertThat(n.applied()).as(n + " has each write once").containsExactlyInAnyOrderElementsOf(written);
            }
        }
    }

    /**
     * c is cut off and takes a write of its own; a and b go on well past what they keep for a
     * lagging replica. Back, c finds their logs start after writes it lacks and installs a
     * snapshot, but only once its source has pulled c's own write: the snapshot replaces c's state,
     * and the write was acknowledged.
     */
    @Test
    void aReplicaBeyondTheRetentionInstallsASnapshotWithoutLosingItsOwnWrite() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 3)) {
            List<Node> abc = startThree(cluster);
            Node a = abc.get(0);
            Node b = abc.get(1);
            Node c = abc.get(2);
            List<String> written = new ArrayList<>();
            written.add(write(cluster, a, "before"));
            cluster.runUntil(() -> c.applied().contains("before"), "c has the first write");

            cluster.partition(List.of(a, b), List.of(c));
            written.add(write(cluster, c, "c-alone"));
            for (int i = 0; i < 60; i++) {
                written.add(write(cluster, List.of(a, b).get(i % 2), "w" + i));
            }
            cluster.runUntil(() -> a.core.log.startLsn() > 20 && b.core.log.startLsn() > 20,
                    "a and b dropped records c lacks (past the retention)");
            assertThat(c.applied()).doesNotContain("w0");

            cluster.drop((from, call) -> call.equals("c:pull")); // a and b do not get c-alone from c yet
            cluster.heal();
            for (int i = 0; i < 10; i++) {
                cluster.advance(Duration.ofMillis(500));
            }
            assertThat(c.role()).as("c lacks writes no peer keeps: it does not serve").isEqualTo(ReplicaRole.RECOVERING);
            assertThat(c.applied()).as("c waits to install a snapshot until its source has c's own write")
                    .contains("c-alone").doesNotContain("w0");
            cluster.drop((from, call) -> false);
            cluster.runUntil(() -> List.of(a, b, c).stream().allMatch(n -> n.role() == ReplicaRole.SECONDARY
                    && n.applied().size() == written.size()), "c installed a snapshot and every replica has every write");
            settle(cluster);
            for (Node n : List.of(a, b, c)) {
                assertThat(n.applied()).as(n + " has each write once, c's own among them")
                        .containsExactlyInAnyOrderElementsOf(written);
            }
        }
    }

    /**
     * c installs a snapshot a wrote before a had b's write w-b, which c had already run. w-b then
     * comes back from a's log, and c must run it again: the snapshot replaced c's state. Found by the
     * nemesis bench (seed 9201, log-retention 40): c took such writes for repeats because its
     * response cache still remembered them from before the install, and lost them.
     */
    @Test
    void aWriteThatRanBeforeASnapshotWithoutItWasInstalledRunsAgainAfterIt() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 3)) {
            List<Node> abc = startThree(cluster);
            Node a = abc.get(0);
            Node b = abc.get(1);
            Node c = abc.get(2);
            List<String> written = new ArrayList<>();
            cluster.partition(List.of(a), List.of(b, c));
            for (int i = 0; i < 60; i++) {
                written.add(write(cluster, a, "a" + i));   // a alone, past the retention: it drops what b and c lack
            }
            CompletableFuture<Object> offer = new CompletableFuture<>();
            a.replica.onPeerMessage("snapshot", new PeerMessages.SnapshotRequest(FaultInjectingCluster.SERVICE, 0),
                    offer::complete);   // a writes a snapshot now, without what b and c do next
            cluster.runUntil(offer::isDone, "a answered the snapshot request");
            CompletableFuture<Object> ready = new CompletableFuture<>();
            cluster.runUntil(() -> {
                a.replica.onPeerMessage("snapshot", new PeerMessages.SnapshotRequest(FaultInjectingCluster.SERVICE, 0),
                        ready::complete);
                return ready.isDone() && ((PeerMessages.SnapshotOffer) ready.join()).ready();
            }, "a offers its snapshot");
            written.add(write(cluster, b, "w-b"));
            cluster.runUntil(() -> c.applied().contains("w-b"), "c ran b's write");

            cluster.heal();
            cluster.runUntil(() -> List.of(a, b, c).stream().allMatch(n -> n.role() == ReplicaRole.SECONDARY
                    && n.applied().containsAll(written)), "every replica serving with every write");
            settle(cluster);
            for (Node n : List.of(a, b, c)) {
                assertThat(n.applied()).as(n + " has each write once").containsExactlyInAnyOrderElementsOf(written);
            }
        }
    }

    /** Starts a, b and c with Snapshottable services and {@link #RETENTION}, and waits until all serve. */
    private static List<Node> startThree(FaultInjectingCluster cluster) {
        cluster.snapshots(RETENTION);
        List<Node> nodes = List.of(cluster.start("a", 1), cluster.start("b", 1), cluster.start("c", 1));
        cluster.awaitServing();
        return nodes;
    }

    private static String write(FaultInjectingCluster cluster, Node node, String method) {
        CompletableFuture<ResponseMessage> write = cluster.write(node, method);
        cluster.runUntil(write::isDone, node + " answered " + method);
        assertThat(write.join().status()).as(method + ": " + write.join().errorMessage()).isEqualTo(Status.OK);
        return method;
    }

    /** More rounds of anti-entropy, which must change nothing. */
    private static void settle(FaultInjectingCluster cluster) {
        for (int i = 0; i < 5; i++) {
            cluster.advance(Duration.ofMillis(500));
        }
    }

    private static void delete(Path directory) {
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
