package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.FsyncPolicy;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.log.RedoLog;
import io.neptune.server.internal.replication.runtime.FaultInjectingCluster.Node;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.runtime.PeerMessages.Entry;
import io.neptune.server.internal.replication.runtime.PeerMessages.Gossip;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Level 1 (write-anywhere) when a replica's REDO log loses records or fails: a restart after a
 * machine crash took back the log's unsynced tail, a log whose disk fails, a log that throws while
 * a gossip batch is appended. A crash is a {@link FaultInjectingCluster#kill} followed by putting
 * back a copy of the node's log directory taken earlier, which is what a machine crash leaves of a
 * log written with {@code log-sync: none}: the file as it was at its last force.
 */
class WriteAnywhereRecoveryTest {
    @TempDir
    Path dir;

    /**
     * Wind-back: the restarted replica's log lost its own writes w4 and w5 (the peers have them),
     * its service lost them too (it replays its log). It must get both back from its peers before it
     * serves, and give its next write the sequence after them: a reused sequence would make the
     * peers, which hold another write under it, never take the new one.
     */
    @Test
    void aReplicaThatLostItsOwnWritesGetsThemBackAndNeverReusesTheirSequence() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 3).withRedoLogs()) {
            Node a = cluster.start("a", 1);
            Node b = cluster.start("b", 1);
            Node c = cluster.start("c", 1);
            cluster.awaitServing();
            writeAll(cluster, c, "w1", "w2", "w3");
            cluster.kill(c);
            Path synced = copy(dir.resolve("c"), dir.resolve("c-synced"));
            c = cluster.start("c", 1);
            cluster.awaitServing();
            writeAll(cluster, c, "w4", "w5");
            cluster.runUntil(() -> List.of(a, b).stream().allMatch(n -> n.applied().contains("w5")),
                    "a and b have c's w5");
            cluster.kill(c);
            restore(synced, dir.resolve("c")); // the machine crash: c's log is back at its last force

            c = cluster.start("c", 1);
            assertThat(c.core.log.lastLsn()).as("c's log after the crash").isEqualTo(3);
            Node back = c;
            cluster.runUntil(() -> back.role() == ReplicaRole.SECONDARY, "c serving again");
            assertThat(back.core.log.lastLsn()).as("c serves only once its log has its own lost writes back")
                    .isEqualTo(5);
            cluster.runUntil(() -> back.applied().size() == 5, "c applied its lost writes");
            assertThat(back.applied()).containsExactly("w1", "w2", "w3", "w4", "w5");

            writeAll(cluster, back, "w6");
            cluster.runUntil(() -> List.of(a, b, back).stream().allMatch(n -> n.applied().contains("w6")),
                    "every replica has c's new write w6");
            for (int i = 0; i < 5; i++) {
                cluster.advance(Duration.ofMillis(500)); // more rounds of anti-entropy change nothing
            }
            for (Node n : List.of(a, b, back)) {
                assertThat(n.applied()).as(n + " runs each of c's writes once")
                        .containsExactly("w1", "w2", "w3", "w4", "w5", "w6");
            }
            LogRecord w6 = back.core.log.record(back.core.log.lastLsn()).orElseThrow();
            assertThat(w6.method()).isEqualTo("w6");
            assertThat(w6.originSeq()).as("w6's sequence: after w5's, never one c gave out before").isEqualTo(6);
        }
    }

    /**
     * The service kept writes its log lost (it applied up to LSN 6, the log ends at 3). At level 1
     * an LSN is the replica's own order of arrival, so no peer's record can be shown to be the write
     * applied at one of the lost LSNs: logging any there would skip a write or run one twice. The
     * replica must say so and stay out of service, not announce itself serving and take writes its
     * log then refuses.
     */
    @Test
    void aReplicaWhoseServiceAppliedWritesItsLogLostStaysOutOfService() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 3).withRedoLogs()) {
            Node a = cluster.start("a", 1);
            Node b = cluster.start("b", 1);
            Node c = cluster.start("c", 1);
            cluster.awaitServing();
            writeAll(cluster, c, "w1", "w2", "w3");
            RecordingService store = c.app;
            cluster.kill(c);
            Path synced = copy(dir.resolve("c"), dir.resolve("c-synced"));
            c = cluster.start("c", 1, store);
            cluster.awaitServing();
            writeAll(cluster, c, "w4", "w5", "w6");
            cluster.kill(c);
            restore(synced, dir.resolve("c")); // the log lost w4..w6; the service's store kept them

            Node back = cluster.start("c", 1, store);
            assertThat(back.core.log.lostTailEnd()).as("c's lost tail").isEqualTo(6);
            for (int i = 0; i < 10; i++) {
                cluster.advance(Duration.ofMillis(500));
            }
            assertThat(back.role()).as("c cannot log any level-1 write: it must not serve").isEqualTo(
                    ReplicaRole.RECOVERING);
            CompletableFuture<ResponseMessage> write = cluster.write(back, "w7");
            cluster.runUntil(write::isDone, "c answered w7");
            assertThat(write.join().status()).as("w7 did not run: another replica takes it").isEqualTo(
                    Status.UNAVAILABLE);
            writeAll(cluster, a, "w8");
            cluster.runUntil(() -> b.applied().contains("w8"), "b has w8");
            assertThat(back.core.log.lastLsn()).as("c's log takes nothing").isEqualTo(3);
        }
    }

    /**
     * A closed replica (its node stops, or an operator removed it) takes nothing more: the node
     * closes its log next, and a gossip or a late completion that ran then would write to a closed log.
     */
    @Test
    void aClosedReplicaTakesNoMoreRecords() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 2).withRedoLogs()) {
            cluster.start("a", 1);
            Node c = cluster.start("c", 1);
            cluster.awaitServing();
            long end = c.core.log.lastLsn();
            c.replica.close();
            List<Entry> late = List.of(Entry.of(new LogRecord(1, 0, RecordKind.WRITE, new RequestId(9, 9), "x", 1,
                    "late", new byte[0])));
            c.replica.onPeerMessage("gossip", new Gossip(FaultInjectingCluster.SERVICE, 0, late), answer -> { });
            FaultInjectingCluster.sync(c);
            assertThat(c.core.log.lastLsn()).as("c's log after it closed").isEqualTo(end);
        }
    }

    /** A log that failed (its disk did) refuses every change until a restart: the replica leaves service. */
    @Test
    void aReplicaWhoseLogFailedLeavesServiceAndSaysWhatHappenedToTheWrite() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 3).withRedoLogs()) {
            Node a = cluster.start("a", 1);
            Node b = cluster.start("b", 1);
            Node c = cluster.start("c", 1);
            cluster.awaitServing();
            c.failWrites = true;
            CompletableFuture<ResponseMessage> taken = cluster.write(c, "taken");
            cluster.runUntil(taken::isDone, "c answered the write its log took and failed to write");
            assertThat(taken.join().status()).isEqualTo(Status.IN_DOUBT);
            assertThat(taken.join().errorMessage()).as("what is known of the write")
                    .contains("did not run here").contains("restart").doesNotContain("may be on disk");
            for (int i = 0; i < 5; i++) {
                cluster.advance(Duration.ofMillis(500));
            }
            assertThat(c.role()).as("c's log refuses every change: c must not serve").isEqualTo(ReplicaRole.RECOVERING);

            CompletableFuture<ResponseMessage> refused = cluster.write(c, "refused");
            cluster.runUntil(refused::isDone, "c answered the next write");
            assertThat(refused.join().status()).as(refused.join().errorMessage()).isEqualTo(Status.UNAVAILABLE);
            writeAll(cluster, a, "elsewhere");
            cluster.runUntil(() -> b.applied().contains("elsewhere"), "b has the write made elsewhere");
            assertThat(c.role()).isEqualTo(ReplicaRole.RECOVERING);
        }
    }

    /**
     * The log throws while a gossip batch is appended: the batch stops at that record, the sender
     * is told it was not all taken, the records after it are not logged, and the replica leaves
     * service (its log failed) instead of the task dying with the answer never sent.
     */
    @Test
    void aLogExceptionInAGossipBatchStopsTheBatchAndIsAnswered() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 2).withRedoLogs()) {
            Node a = cluster.start("a", 1);
            Node c = cluster.start("c", 1);
            cluster.awaitServing();
            c.throwOnAppend = r -> r.method().equals("second");
            List<Entry> entries = new ArrayList<>();
            for (String method : List.of("first", "second", "third")) {
                long seq = entries.size() + 1;
                entries.add(Entry.of(new LogRecord(seq, 0, RecordKind.WRITE, new RequestId(7, seq), "x", seq, method,
                        new byte[0])));
            }
            CompletableFuture<Object> answer = new CompletableFuture<>();
            c.replica.onPeerMessage("gossip", new Gossip(FaultInjectingCluster.SERVICE, 0, entries), answer::complete);
            cluster.runUntil(answer::isDone, "c answered the gossip");
            Ack ack = (Ack) answer.join();
            assertThat(ack.accepted()).as("not every record was taken").isFalse();
            assertThat(ack.reason()).contains("cannot force record 2");
            cluster.runUntil(() -> c.applied().contains("first"), "c applied the record before the failure");
            for (int i = 0; i < 5; i++) {
                cluster.advance(Duration.ofMillis(500));
            }
            assertThat(c.core.log.lastLsn()).as("c logged nothing after the record the log threw on").isEqualTo(1);
            assertThat(c.applied()).containsExactly("first");
            assertThat(c.role()).as("c's log failed: c must not serve").isEqualTo(ReplicaRole.RECOVERING);
            assertThat(a.role()).isEqualTo(ReplicaRole.SECONDARY);
        }
    }

    /**
     * A restarted replica learns each origin's last write sequence by reading its log a chunk at a
     * time. A chunk that the log's 16 MiB read limit cut short used to skip the rest of the chunk's
     * LSNs: here the replica's own two writes after a large record, so it gave its next write
     * sequence 1 again, a write its peers (which hold another under it) would never take.
     */
    @Test
    void aReplicaWhoseLogHoldsALargeRecordGivesItsNextWriteTheSequenceAfterItsLast() {
        try (RedoLog log = RedoLog.open(dir.resolve("c"), FsyncPolicy.GROUP)) {
            log.append(new LogRecord(1, 0, RecordKind.WRITE, new RequestId(901, 1), "a", 1, "large",
                    new byte[17 * 1024 * 1024])).join(); // alone past the read limit
            log.append(new LogRecord(2, 0, RecordKind.WRITE, new RequestId(902, 2), "c", 1, "c1", new byte[0])).join();
            log.append(new LogRecord(3, 0, RecordKind.WRITE, new RequestId(903, 3), "c", 2, "c2", new byte[0])).join();
        }
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 1).withRedoLogs()) {
            Node c = cluster.start("c", 1);
            cluster.awaitServing();

            writeAll(cluster, c, "c3");

            LogRecord c3 = c.core.log.record(4).orElseThrow();
            assertThat(c3.method()).isEqualTo("c3");
            assertThat(c3.originSeq()).as("c3's sequence: after c2's").isEqualTo(3);
        }
    }

    private static void writeAll(FaultInjectingCluster cluster, Node node, String... methods) {
        for (String method : methods) {
            CompletableFuture<ResponseMessage> write = cluster.write(node, method);
            cluster.runUntil(write::isDone, node + " answered " + method);
            assertThat(write.join().status()).as(method + ": " + write.join().errorMessage()).isEqualTo(Status.OK);
        }
    }

    private static Path copy(Path from, Path to) {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.REPLACE_EXISTING);
            }
            return to;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void restore(Path copy, Path to) {
        try (Stream<Path> files = Files.walk(to)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        copy(copy, to);
    }
}
