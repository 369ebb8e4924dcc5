package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.FaultInjectingCluster.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A level-1 write that a replica's REDO log did not take is not there: the replica neither applies
 * it nor counts it as seen, so anti-entropy fetches it again once the log takes records, and the
 * origin's later writes wait for it (each origin's writes are logged and applied in sequence).
 */
class WriteAnywhereLogFailureTest {
    @TempDir
    Path dir;

    @Test
    void aGossipedWriteTheLogRefusedIsPulledAgainOnceTheLogTakesRecords() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 3)) {
            Node a = cluster.start("a", 1);
            Node b = cluster.start("b", 1);
            Node c = cluster.start("c", 1);
            cluster.awaitServing();
            c.refuseAppend = r -> true;
            CompletableFuture<ResponseMessage> first = cluster.write(a, "first");
            cluster.runUntil(() -> c.refused.get() >= 1, "c's log refused the first write");
            FaultInjectingCluster.sync(c);
            assertThat(cluster.await(first).status()).isEqualTo(Status.OK);
            assertThat(c.applied()).as("c applied a write its log did not take").isEmpty();

            c.refuseAppend = r -> false; // the log takes records again
            CompletableFuture<ResponseMessage> second = cluster.write(a, "second");
            cluster.runUntil(() -> List.of(a, b, c).stream().allMatch(n -> n.applied().size() == 2),
                    "every replica has both writes");
            assertThat(second.join().status()).isEqualTo(Status.OK);
            for (int i = 0; i < 5; i++) {
                cluster.advance(Duration.ofMillis(500)); // more rounds of anti-entropy change nothing
            }
            for (Node n : List.of(a, b, c)) {
                assertThat(n.applied()).as(n + " applies a's writes in sequence").containsExactly("first", "second");
                assertThat(n.core.log.lastLsn()).as(n + "'s log").isEqualTo(2);
            }
        }
    }

    @Test
    void anOriginsLaterWritesInAPullWaitForOneTheLogRefused() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 3)) {
            Node a = cluster.start("a", 1);
            Node b = cluster.start("b", 1);
            Node c = cluster.start("c", 1);
            cluster.awaitServing();
            cluster.drop((from, call) -> call.equals("c:gossip")); // c gets a's writes in one pull
            c.refuseAppend = r -> r.method().equals("first");
            List<CompletableFuture<ResponseMessage>> writes =
                    List.of(cluster.write(a, "first"), cluster.write(a, "second"), cluster.write(a, "third"));
            cluster.runUntil(() -> writes.stream().allMatch(CompletableFuture::isDone) && c.refused.get() >= 1,
                    "a answered and c's log refused the first write");
            for (int i = 0; i < 5; i++) {
                cluster.advance(Duration.ofMillis(500));
            }
            assertThat(c.applied()).as("c applies none of a's writes past one its log refused").isEmpty();

            c.refuseAppend = r -> false;
            cluster.runUntil(() -> c.applied().size() == 3, "c has a's three writes");
            for (int i = 0; i < 5; i++) {
                cluster.advance(Duration.ofMillis(500));
            }
            for (Node n : List.of(a, b, c)) {
                assertThat(n.applied()).as(n + " applies a's writes in sequence")
                        .containsExactly("first", "second", "third");
                assertThat(n.core.log.lastLsn()).as(n + "'s log").isEqualTo(3);
            }
        }
    }

    @Test
    void aLocalWriteTheLogRefusedDoesNotHoldBackTheOriginsLaterWrites() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 3)) {
            Node a = cluster.start("a", 1);
            Node b = cluster.start("b", 1);
            Node c = cluster.start("c", 1);
            cluster.awaitServing();
            a.refuseAppend = r -> true;
            CompletableFuture<ResponseMessage> refused = cluster.write(a, "refused");
            cluster.runUntil(refused::isDone, "a answered the refused write");
            assertThat(refused.join().status()).as("the log did not take it: it did not run")
                    .isEqualTo(Status.UNAVAILABLE);

            a.refuseAppend = r -> false;
            CompletableFuture<ResponseMessage> taken = cluster.write(a, "taken");
            cluster.runUntil(() -> List.of(a, b, c).stream().allMatch(n -> n.applied().contains("taken")),
                    "every replica has the write a's log took");
            assertThat(taken.join().status()).isEqualTo(Status.OK);
            for (int i = 0; i < 5; i++) {
                cluster.advance(Duration.ofMillis(500));
            }
            for (Node n : List.of(a, b, c)) {
                assertThat(n.applied()).as(n.toString()).containsExactly("taken");
            }
        }
    }
}
