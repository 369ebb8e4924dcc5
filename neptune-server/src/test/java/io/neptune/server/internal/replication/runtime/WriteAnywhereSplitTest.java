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
 * Level 1 needs no majority (its writes commute), but a write acknowledged on either side of a
 * split must reach every replica once the split heals, exactly once.
 */
class WriteAnywhereSplitTest {
    @TempDir
    Path dir;

    @Test
    void writesAcknowledgedOnBothSidesOfASplitReachEveryReplicaAfterItHeals() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, null, 3)) {
            Node a = cluster.start("a", 1);
            Node b = cluster.start("b", 1);
            Node c = cluster.start("c", 1);
            cluster.awaitServing();
            cluster.partition(List.of(a), List.of(b, c));
            CompletableFuture<ResponseMessage> minority = cluster.write(a, "onTheMinoritySide");
            CompletableFuture<ResponseMessage> majority = cluster.write(b, "onTheMajoritySide");
            cluster.runUntil(() -> minority.isDone() && majority.isDone(), "both answered");
            assertThat(minority.join().status()).isEqualTo(Status.OK);
            assertThat(majority.join().status()).isEqualTo(Status.OK);
            for (int i = 0; i < 30; i++) {
                cluster.advance(Duration.ofMillis(200));
            }
            assertThat(a.applied()).containsExactly("onTheMinoritySide");

            cluster.heal();
            cluster.runUntil(() -> List.of(a, b, c).stream().allMatch(n -> n.applied().size() == 2),
                    "every replica has both writes");
            for (int i = 0; i < 10; i++) {
                cluster.advance(Duration.ofMillis(500)); // more rounds of anti-entropy change nothing
            }
            for (Node n : List.of(a, b, c)) {
                assertThat(n.applied()).containsExactlyInAnyOrder("onTheMinoritySide", "onTheMajoritySide");
            }
        }
    }
}
