package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.FailoverMode;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.FaultInjectingCluster.Node;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A primary whose own log refuses a write it just logged ({@link LeaderEffects}' failed append, in both
 * leader modes): it cannot go on leading, so it steps down and answers the write IN_DOUBT, and the
 * replicas it had sent the write to carry on without it. The deterministic simulation injects no log
 * failures, so these pin that path.
 */
class LeaderLogFailureTest {
    @TempDir
    Path dir;

    private FaultInjectingCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aMajorityPrimaryWhoseLogRefusesAWriteStepsDownAndANewPrimaryCommitsIt() {
        List<Node> abc = primaryWhoseLogRefusedAWrite(FailoverMode.MAJORITY);
        Node a = abc.get(0);
        assertThat(a.role()).isNotEqualTo(ReplicaRole.PRIMARY);

        Node b = abc.get(1);
        Node c = abc.get(2);
        cluster.runUntil(() -> b.role() == ReplicaRole.PRIMARY || c.role() == ReplicaRole.PRIMARY, "b or c primary");
        a.refuseAppend = r -> false;
        cluster.runUntil(() -> abc.stream().allMatch(n -> n.applied().equals(List.of("w1", "refused"))),
                "the write a's log refused applied everywhere");
    }

    @Test
    void aFailStopPrimaryWhoseLogRefusesAWriteStepsDownToRecoveringAndAnswersItInDoubt() {
        List<Node> abc = primaryWhoseLogRefusedAWrite(FailoverMode.FAIL_STOP);
        Node a = abc.get(0);
        assertThat(a.role()).isEqualTo(ReplicaRole.RECOVERING);
        assertThat(a.applied()).containsExactly("w1");

        Node b = abc.get(1);
        Node c = abc.get(2);
        cluster.runUntil(() -> b.role() == ReplicaRole.PRIMARY || c.role() == ReplicaRole.PRIMARY, "b or c primary");
        Node primary = b.role() == ReplicaRole.PRIMARY ? b : c;
        assertThat(answer(cluster.write(primary, "w2")).status()).isEqualTo(Status.OK);
    }

    /**
     * Starts a, b and c in {@code mode} with a leading, commits "w1", then makes a's log refuse every
     * record and writes "refused" to a, which answers it IN_DOUBT for its log failure; returns a, b, c.
     */
    private List<Node> primaryWhoseLogRefusedAWrite(FailoverMode mode) {
        cluster = new FaultInjectingCluster(dir, mode, 3);
        List<Node> abc = cluster.startThree();
        Node a = abc.get(0);
        assertThat(answer(cluster.write(a, "w1")).status()).isEqualTo(Status.OK);

        a.refuseAppend = r -> true;
        ResponseMessage refused = answer(cluster.write(a, "refused"));
        assertThat(refused.status()).as(refused.errorMessage()).isEqualTo(Status.IN_DOUBT);
        assertThat(refused.errorMessage()).contains("log failure");
        return abc;
    }

    private ResponseMessage answer(CompletableFuture<ResponseMessage> write) {
        cluster.runUntil(write::isDone, "the write answered");
        return write.join();
    }
}
