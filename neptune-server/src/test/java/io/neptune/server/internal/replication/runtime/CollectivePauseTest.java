package io.neptune.server.internal.replication.runtime;

import io.neptune.core.FailoverMode;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.FaultInjectingCluster.Node;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.io.TempDir;

/**
 * Four replicas split two against two while every one of them is frozen for 3 s (the clock jumps,
 * as for a host that paused them all), then healed: the primary, whose followers last answered 3 s
 * ago, refuses writes (NO_MAJORITY) until it has heard from a majority again, and then takes them.
 * {@code MajorityPlacementTest} once retried such refusals without letting time pass, 20 times within
 * a few real milliseconds, and so never gave the heartbeats a chance (a third of its runs failed).
 */
class CollectivePauseTest {
    @TempDir
    Path dir;

    @RepeatedTest(10)
    void aPrimaryTakesWritesAgainSoonAfterASplitWhileEveryReplicaWasFrozen() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, FailoverMode.MAJORITY, 4)) {
            Node a = cluster.start("a", 4);
            Node b = cluster.start("b", 3);
            Node c = cluster.start("c", 2);
            Node d = cluster.start("d", 1);
            cluster.runUntil(() -> a.role() == ReplicaRole.PRIMARY && b.role() == ReplicaRole.SECONDARY
                    && c.role() == ReplicaRole.SECONDARY && d.role() == ReplicaRole.SECONDARY, "a primary");
            CompletableFuture<ResponseMessage> first = cluster.write(a, "first");
            cluster.runUntil(first::isDone, "the first write answered");

            cluster.partition(List.of(a, b), List.of(c, d));
            cluster.write(a, "cut");
            cluster.advance(Duration.ofMillis(3000));
            cluster.heal();
            cluster.runUntil(() -> cluster.primary().isPresent(), "a primary after the heal");

            String answers = "";
            for (int attempt = 0; attempt < 30; attempt++) {
                Node to = cluster.primary().orElse(a);
                CompletableFuture<ResponseMessage> write = cluster.write(to, "after-" + attempt);
                cluster.runUntil(write::isDone, "a write after the heal answered");
                ResponseMessage answer = write.join();
                if (answer.status() == Status.OK) {
                    return;
                }
                answers += answer.status() + " ";
                cluster.advance(Duration.ofMillis(100));
            }
            throw new AssertionError("no write taken within 3 s of the heal: " + answers + "; " + cluster.describe());
        }
    }
}
