package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.FailoverMode;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.LogRetentionConfig;
import io.neptune.server.internal.replication.runtime.FaultInjectingCluster.Node;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Majority mode with bounded logs: snapshot installs while leaders change. */
class MajoritySnapshotTest {
    /** Checkpoints drop as few as 5 records; a lagging replica holds back at most 40. */
    private static final LogRetentionConfig RETENTION = new LogRetentionConfig(40, 5);

    @TempDir
    Path dir;

    /**
     * c's store lost its writes (a new disk for the service's data, the log kept): c needs a snapshot
     * and asks the leader a, which dies mid-transfer. b leads next, whose log (not checkpointed yet)
     * has every record c needs, so it sends c records, not an install; c answered "installing" and went on asking dead a for
     * chunks, and b, which commits only with c, took no write until c restarted. c must install from b.
     */
    @Test
    void aReplicaWhoseSnapshotSourceDiedInstallsFromTheNextLeader() throws IOException {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, FailoverMode.MAJORITY, 3)) {
            List<Node> abc = startThree(cluster);
            Node a = abc.get(0);
            Node b = abc.get(1);
            Node c = abc.get(2);
            b.retention = new LogRetentionConfig(1_000_000, 1_000_000);   // b keeps its whole log
            List<String> acknowledged = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                acknowledged.add(commit(cluster, a, "w" + i));
            }
            cluster.runUntil(() -> a.core.log.startLsn() > 10 && c.core.log.startLsn() > 10,
                    "a and c dropped the records all have");

            // a snapshot file an earlier process of b left behind (its offer was in that process's memory only)
            Path snapshots = b.core.directory.resolve("snapshots");
            Files.createDirectories(snapshots);
            Files.write(snapshots.resolve("snapshot-7.snap"), new byte[1024]);
            cluster.kill(c);
            cluster.drop((from, call) -> call.equals("a:chunk"));   // no chunk of a's snapshot reaches c
            Node back = cluster.start("c", 1, new RecordingService(true));
            cluster.runUntil(() -> a.id.equals(back.core.snapshots().installingFrom()), "c installing a snapshot from a");
            cluster.kill(a);
            cluster.drop((from, call) -> false);
            cluster.runUntil(() -> b.role() == ReplicaRole.PRIMARY, "b primary");
            acknowledged.add(commit(cluster, b, "after-a"));
            cluster.runUntil(() -> back.applied().containsAll(acknowledged), "c has every acknowledged write");
            assertThat(back.applied()).doesNotHaveDuplicates();
            try (Stream<Path> files = Files.list(snapshots)) {
                assertThat(files.map(f -> f.getFileName().toString()).filter(n -> n.endsWith(".snap")))
                        .as("b keeps only the snapshot it offers").hasSize(1).doesNotContain("snapshot-7.snap");
            }
        }
    }

    /**
     * A replica whose store lost writes its log no longer has cannot serve as primary: an operator's
     * promote of it was accepted, and with b's vote it won, then failed reading below its log start.
     */
    @Test
    void aReplicaThatNeedsASnapshotRefusesToBePromoted() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, FailoverMode.MAJORITY, 3)) {
            List<Node> abc = startThree(cluster);
            Node a = abc.get(0);
            Node b = abc.get(1);
            Node c = abc.get(2);
            for (int i = 0; i < 30; i++) {
                commit(cluster, a, "w" + i);
            }
            cluster.runUntil(() -> c.core.log.startLsn() > 10, "c dropped the records all have");
            cluster.kill(c);
            cluster.kill(a);
            Node back = cluster.start("c", 1, new RecordingService(true));
            cluster.runUntil(() -> back.core.snapshots().installing(), "c needs a snapshot");

            CompletableFuture<Object> promoted = new CompletableFuture<>();
            back.replica.onPeerMessage("promote", new PeerMessages.Promote(FaultInjectingCluster.SERVICE, 0),
                    promoted::complete);
            cluster.runUntil(promoted::isDone, "c answered the promote");
            PeerMessages.PromoteReply reply = (PeerMessages.PromoteReply) promoted.join();
            assertThat(reply.accepted()).isFalse();
            assertThat(reply.reason()).contains("snapshot");
            assertThat(back.role()).isNotEqualTo(ReplicaRole.PRIMARY);
        }
    }

    /**
     * c's store lost its writes twice; the second time the leader a still offers the snapshot of the
     * first install, older than c's log end, whose records after it c acknowledged (a and c committed
     * them while b was cut off). The install dropped them from c's log, and once a died, b and c had
     * lost acknowledged writes. A log that holds the snapshot's last write keeps what follows it.
     */
    @Test
    void reinstallingAnOlderSnapshotKeepsTheRecordsTheLogHasAfterIt() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, FailoverMode.MAJORITY, 3)) {
            List<Node> abc = startThree(cluster);
            Node a = abc.get(0);
            Node b = abc.get(1);
            Node c = abc.get(2);
            List<String> acknowledged = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                acknowledged.add(commit(cluster, a, "w" + i));
            }
            cluster.runUntil(() -> c.core.log.startLsn() > 10, "c dropped the records all have");
            cluster.kill(c);
            Node first = cluster.start("c", 1, new RecordingService(true));
            cluster.runUntil(() -> first.role() == ReplicaRole.SECONDARY && first.applied().containsAll(acknowledged),
                    "c installed a's snapshot");
            a.retention = new LogRetentionConfig(1_000_000, 1_000_000);   // a's offer stays the same
            first.retention = new LogRetentionConfig(1_000_000, 1_000_000);   // c's log keeps what follows it

            cluster.partition(List.of(a, first), List.of(b));
            for (int i = 0; i < 10; i++) {
                acknowledged.add(commit(cluster, a, "x" + i));   // committed by a and c
            }
            long cEnd = first.core.log.lastLsn();
            cluster.kill(first);
            // once c installed, a sends it nothing it could have lost (before, a told it to install and named itself)
            AtomicReference<Node> restarted = new AtomicReference<>();
            cluster.drop((from, call) -> call.equals("c:replicate") && restarted.get() != null
                    && !restarted.get().core.snapshots().installing());
            Node second = cluster.start("c", 1, new RecordingService(true));
            restarted.set(second);
            cluster.runUntil(() -> !second.core.snapshots().installing() && second.applied().containsAll(
                    acknowledged.subList(0, 30)), "c installed a's snapshot again");
            assertThat(second.core.log.lastLsn()).as("c's log after the install").isEqualTo(cEnd);

            cluster.kill(a);
            cluster.drop((from, call) -> false);
            cluster.heal();
            cluster.runUntil(() -> cluster.primary().isPresent(), "b or c primary");
            Node leader = cluster.primary().orElseThrow();
            acknowledged.add(commit(cluster, leader, "after"));
            cluster.runUntil(() -> b.applied().contains("after") && second.applied().contains("after"),
                    "b and c applied the write after");
            for (Node n : List.of(b, second)) {
                assertThat(n.applied()).as(n + " has every acknowledged write").containsAll(acknowledged)
                        .doesNotHaveDuplicates();
            }
        }
    }

    /**
     * While c fetches a's snapshot, a keeps the log records after it even past log-retention: they are
     * what c asks for next. Retention dropped them under writes, so c's install ended below a's log start
     * and c fetched a new snapshot, and again, for as long as writes outpaced the transfer.
     */
    @Test
    void theRecordsAfterASnapshotBeingFetchedStayPastTheRetention() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, FailoverMode.MAJORITY, 3)) {
            List<Node> abc = startThree(cluster);
            Node a = abc.get(0);
            Node b = abc.get(1);
            Node c = abc.get(2);
            List<String> acknowledged = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                acknowledged.add(commit(cluster, a, "w" + i));
            }
            cluster.runUntil(() -> c.core.log.startLsn() > 10, "c dropped the records all have");
            cluster.kill(c);
            cluster.drop((from, call) -> call.equals("a:chunk"));   // c's fetch stalls
            Node back = cluster.start("c", 1, new RecordingService(true));
            cluster.runUntil(() -> a.id.equals(back.core.snapshots().installingFrom()), "c fetching a's snapshot");
            long offeredAtMost = a.core.applied;

            for (int i = 0; i < 60; i++) {   // past the retention of 40
                acknowledged.add(commit(cluster, a, "during-" + i));
            }
            cluster.runUntil(() -> b.core.log.startLsn() > offeredAtMost + 1, "b dropped records past the retention");
            assertThat(a.core.log.startLsn()).as("a, the snapshot's source, keeps what follows it")
                    .isLessThanOrEqualTo(offeredAtMost + 1);

            cluster.drop((from, call) -> false);
            cluster.runUntil(() -> back.applied().containsAll(acknowledged), "c has every acknowledged write");
            assertThat(back.applied()).doesNotHaveDuplicates();
        }
    }

    /** Starts a, b and c with snapshots and {@link #RETENTION}, priorities 3, 2, 1: a primary, b and c following. */
    private static List<Node> startThree(FaultInjectingCluster cluster) {
        cluster.snapshots(RETENTION);
        Node a = cluster.start("a", 3);
        Node b = cluster.start("b", 2);
        Node c = cluster.start("c", 1);
        cluster.runUntil(() -> a.role() == ReplicaRole.PRIMARY && b.role() == ReplicaRole.SECONDARY
                && c.role() == ReplicaRole.SECONDARY, "a primary with b and c following");
        return List.of(a, b, c);
    }

    /** Writes {@code method} at {@code node} until it is acknowledged (a refusal is retried). */
    private static String commit(FaultInjectingCluster cluster, Node node, String method) {
        List<String> answers = new ArrayList<>();
        for (int attempt = 0; attempt < 50; attempt++) {
            CompletableFuture<ResponseMessage> write = cluster.write(node, method);
            cluster.runUntil(write::isDone, node + " answered " + method);
            if (write.join().status() == Status.OK) {
                return method;
            }
            answers.add(write.join().status() + " " + write.join().errorMessage());
            cluster.advance(Duration.ofMillis(100));
        }
        throw new AssertionError(method + " not acknowledged in 50 attempts: " + answers + "; " + cluster.describe());
    }
}
