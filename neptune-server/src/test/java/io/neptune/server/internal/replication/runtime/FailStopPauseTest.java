package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

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

/**
 * Fail-stop mode assumes no network splits, but a paused process is a fault it must survive too
 * (issue 9): a primary frozen longer than the failure detector wakes up with every timeout of the
 * pause due at once. Before, those timeouts excluded every secondary and it committed, and
 * acknowledged, writes that the new primary never had.
 */
class FailStopPauseTest {
    @TempDir
    Path dir;

    @Test
    void aPrimaryThatWakesFromAPauseCommitsNothingAlone() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, FailoverMode.FAIL_STOP, 3)) {
            Node a = cluster.start("a", 3);
            Node b = cluster.start("b", 2);
            Node c = cluster.start("c", 1);
            cluster.runUntil(() -> a.role() == ReplicaRole.PRIMARY && b.role() == ReplicaRole.SECONDARY
                    && c.role() == ReplicaRole.SECONDARY, "a primary with b and c following");
            CompletableFuture<ResponseMessage> w1 = cluster.write(a, "w1");
            cluster.runUntil(w1::isDone, "w1 answered");
            assertThat(w1.join().status()).isEqualTo(Status.OK);

            // a sends "during"; before anything comes back it freezes (its messages wait in the network)
            cluster.hold((from, call) -> from.equals(a.id) && call.endsWith(":replicate"));
            CompletableFuture<ResponseMessage> during = cluster.write(a, "during");
            cluster.runUntil(() -> cluster.heldCount() >= 2, "a's replicate messages to b and c held");
            cluster.pause(a);
            cluster.runUntil(() -> b.role() == ReplicaRole.PRIMARY || c.role() == ReplicaRole.PRIMARY, "b or c elected");
            Node primary = b.role() == ReplicaRole.PRIMARY ? b : c;
            CompletableFuture<ResponseMessage> w2 = cluster.write(primary, "w2");
            cluster.runUntil(w2::isDone, "w2 answered");
            assertThat(w2.join().status()).isEqualTo(Status.OK);
            // the pause lasts past the ack timeout (2 s): timers of the frozen process come due
            cluster.advance(Duration.ofMillis(2_500));
            for (int i = 0; i < 50; i++) {
                cluster.advance(Duration.ofMillis(100));
            }

            cluster.hold((from, call) -> false);
            cluster.resume(a);
            cluster.runUntil(() -> during.isDone() && a.role() != ReplicaRole.PRIMARY, "a fenced and the write answered");
            cluster.runUntil(() -> a.role() == ReplicaRole.SECONDARY && a.applied().equals(primary.applied()),
                    "a rejoined");
            List<String> applied = primary.applied();
            assertThat(applied).containsSubsequence("w1", "w2");
            if (during.join().status() == Status.OK) {
                assertThat(applied).as("an acknowledged write is on the new primary").contains("during");
            }
        }
    }
}
