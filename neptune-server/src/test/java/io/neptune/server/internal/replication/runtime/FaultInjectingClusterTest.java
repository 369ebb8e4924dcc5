package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.FailoverMode;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.FaultInjectingCluster.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The harness itself: a scenario is one seed's run of the simulation, the same every time. */
class FaultInjectingClusterTest {
    @TempDir
    Path dir;

    /** What a run leaves to compare: its trace hash, the simulated time and what the replicas applied. */
    private record Run(long traceHash, long nanos, List<List<String>> applied) {}

    @Test
    void theSameSeedTakesTheSameStepsEveryTime() {
        Run first = scenario(dir.resolve("first"), 7);
        Run again = scenario(dir.resolve("again"), 7);
        Run other = scenario(dir.resolve("other"), 8);

        assertThat(again).isEqualTo(first);
        assertThat(other.traceHash()).as("another seed, another interleaving").isNotEqualTo(first.traceHash());
    }

    @Test
    void aFutureJoinedBeforeTheSimulationAnsweredItFailsInsteadOfHanging() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, FailoverMode.MAJORITY, 3)) {
            Node a = cluster.startThree().get(0);
            CompletableFuture<ResponseMessage> write = cluster.write(a, "w1");

            assertThatThrownBy(write::join).isInstanceOf(IllegalStateException.class).hasMessageContaining("await");
            assertThat(cluster.await(write).status()).isEqualTo(Status.OK);
        }
    }

    /** Writes, a split, a kill and a restart; returns once the three replicas converged. */
    private static Run scenario(Path dir, long seed) {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, FailoverMode.MAJORITY, 3, seed)) {
            List<Node> abc = cluster.startThree();
            Node a = abc.get(0);
            Node b = abc.get(1);
            Node c = abc.get(2);
            for (int i = 0; i < 5; i++) {
                cluster.await(cluster.write(a, "w" + i));
            }
            cluster.partition(List.of(a), List.of(b, c));
            cluster.runUntil(() -> b.role() == ReplicaRole.PRIMARY, "b elected");
            cluster.await(cluster.write(b, "after-split"));
            cluster.kill(c);
            cluster.heal();
            Node back = cluster.start("c", 1);
            cluster.advance(Duration.ofSeconds(2));
            cluster.runUntil(() -> a.applied().size() == 6 && back.applied().size() == 6, "a and c caught up");
            return new Run(cluster.traceHash(), cluster.nanos(), List.of(a.applied(), b.applied(), back.applied()));
        }
    }
}
