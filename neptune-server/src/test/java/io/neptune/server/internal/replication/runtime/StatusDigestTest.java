package io.neptune.server.internal.replication.runtime;

import static io.neptune.server.internal.replication.runtime.FaultInjectingCluster.SERVICE;
import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.FailoverMode;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.json.Json;
import io.neptune.server.internal.replication.runtime.FaultInjectingCluster.Node;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReplicaStatus;
import io.neptune.server.internal.replication.runtime.PeerMessages.StatusRequest;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replica's status carries its service's digest for an operator ({@code admin replicas}), but
 * the status a fail-stop election asks of its rivals does not: a digest hashes the whole
 * partition on the partition's executor, so a fail-over would wait for it, longer the larger the
 * partition.
 */
class StatusDigestTest {
    @TempDir
    Path dir;

    @Test
    void anElectionAsksItsRivalsForTheirStatusWithoutADigest() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, FailoverMode.FAIL_STOP, 3)) {
            List<Node> abc = cluster.startThree();
            Node b = abc.get(1);
            Node c = abc.get(2);
            int before = b.app.digests() + c.app.digests();
            cluster.kill(abc.get(0));
            cluster.runUntil(() -> b.role() == ReplicaRole.PRIMARY || c.role() == ReplicaRole.PRIMARY,
                    "b or c elected");
            assertThat(b.app.digests() + c.app.digests()).as("digests computed for the election").isEqualTo(before);
        }
    }

    @Test
    void anOperatorsStatusRequestGetsTheDigest() {
        try (FaultInjectingCluster cluster = new FaultInjectingCluster(dir, FailoverMode.FAIL_STOP, 3)) {
            Node b = cluster.startThree().get(1);
            CompletableFuture<Object> reply = new CompletableFuture<>();
            b.replica.onPeerMessage("status", new StatusRequest(SERVICE, 0), reply::complete);
            FaultInjectingCluster.sync(b);
            ReplicaStatus status = (ReplicaStatus) b.cluster().await(reply);
            assertThat(status.digest()).isEqualTo(String.join(",", b.app.methods));
        }
    }

    @Test
    void aStatusRequestWithoutTheFieldAsksForTheDigest() throws Exception {
        // as `admin replicas` and nodes of the previous release send it
        StatusRequest request = Json.mapper().readValue("{\"service\":\"svc\",\"partition\":3}", StatusRequest.class);
        assertThat(request.skipsDigest()).isFalse();
    }
}
