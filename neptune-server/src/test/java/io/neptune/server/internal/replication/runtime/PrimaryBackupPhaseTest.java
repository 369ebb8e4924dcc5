package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.FailoverMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.FaultInjectingCluster.Node;
import io.neptune.server.internal.replication.runtime.PeerMessages.Demote;
import io.neptune.server.internal.replication.runtime.PeerMessages.Handover;
import io.neptune.server.internal.replication.runtime.PeerMessages.HandoverReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReplicaStatus;
import io.neptune.server.internal.replication.runtime.PeerMessages.StatusRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The phase transitions of a fail-stop replica ({@link PrimaryBackupPhase}) that keep a
 * partition to one primary and every secondary in sync, on a network and a clock the test drives:
 * a handing-over primary claims the role to rivals until its successor is heard or its deadline
 * passes (on the replica's clock), and a replica demoted while it joins does not resume on that join.
 */
class PrimaryBackupPhaseTest {
    private static final String SERVICE = FaultInjectingCluster.SERVICE;

    @TempDir
    Path dir;

    private FaultInjectingCluster cluster;
    /** Priorities 3, 2 and 1: a leads. */
    private Node a;
    private Node c;

    @BeforeEach
    void start() {
        cluster = new FaultInjectingCluster(dir, FailoverMode.FAIL_STOP, 3);
        List<Node> abc = cluster.startThree();
        a = abc.get(0);
        c = abc.get(2);
    }

    @AfterEach
    void stop() {
        cluster.close();
    }

    private static ReplicaStatus status(Node node) {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        node.replica.onPeerMessage("status", new StatusRequest(SERVICE, 0), reply::complete);
        FaultInjectingCluster.sync(node);
        return (ReplicaStatus) node.cluster().await(reply);
    }

    private ResponseMessage answered(CompletableFuture<ResponseMessage> write) {
        cluster.runUntil(write::isDone, "the write answered");
        return write.join();
    }

    /**
     * The successor here is never told to take over (the operator's handover is asked by the test, not
     * by b), so nothing is heard from it: the old primary claims the role to b's and c's elections for
     * its deadline (twice the ack timeout, 4 s), then becomes an ordinary secondary and an election runs.
     */
    @Test
    void aHandingOverPrimaryClaimsTheRoleToRivalsUntilItsDeadline() {
        CompletableFuture<Object> handover = new CompletableFuture<>();
        a.replica.onPeerMessage("handover", new Handover(SERVICE, 0, "b", 0, true), handover::complete);
        FaultInjectingCluster.sync(a);
        assertThat(((HandoverReply) cluster.await(handover)).accepted()).isTrue();
        long handedOver = cluster.nanos();

        assertThat(a.role()).isEqualTo(ReplicaRole.SECONDARY);
        ResponseMessage refused = answered(cluster.write(a, "w1"));
        assertThat(refused.status()).isEqualTo(Status.NOT_PRIMARY);
        assertThat(refused.suggestedPrimary()).isEqualTo(NodeId.of("b"));
        while (cluster.nanos() - handedOver < Duration.ofMillis(3_500).toNanos()) {
            cluster.advance(Duration.ofMillis(100));
            assertThat(status(a).role()).as("a's status to a rival").isEqualTo("PRIMARY");
            assertThat(cluster.primary()).as("b and c elect, and lose to a's claim").isEmpty();
        }

        cluster.runUntil(() -> cluster.primary().isPresent(), "a primary elected after a's deadline");
        assertThat(cluster.nanos() - handedOver).isGreaterThanOrEqualTo(Duration.ofSeconds(4).toNanos());
        Node primary = cluster.primary().orElseThrow();
        assertThat(answered(cluster.write(primary, "w2")).status()).isEqualTo(Status.OK);
    }

    /**
     * c rejoins; while it logs the records of a's join reply, a demotes it (excludes it: a "demote"
     * that was on its way). The join it answered no longer holds, so c must not resume as a secondary
     * on it, but join again.
     */
    @Test
    void aReplicaDemotedWhileItsJoinIsLoggedJoinsAgainInsteadOfResuming() {
        cluster.kill(c);
        assertThat(answered(cluster.write(a, "w1")).status()).isEqualTo(Status.OK);
        c = cluster.start("c", 1);
        CompletableFuture<Void> disk = new CompletableFuture<>();
        c.durability = disk; // logged, durable once the disk says so

        cluster.runUntil(() -> c.core.log.lastLsn() == 1, "c logged w1 from a's join reply");
        c.replica.onPeerMessage("demote", new Demote(SERVICE, 0, a.epoch()), reply -> { });
        FaultInjectingCluster.sync(c);
        disk.complete(null);
        cluster.runUntil(() -> c.core.applied == 1, "c applied w1");
        FaultInjectingCluster.sync(c);
        FaultInjectingCluster.sync(c);

        assertThat(c.role()).as("c after the demoted join's records became durable").isEqualTo(ReplicaRole.RECOVERING);
        cluster.runUntil(() -> c.role() == ReplicaRole.SECONDARY, "c joined again");
        assertThat(answered(cluster.write(a, "w2")).status()).isEqualTo(Status.OK);
        cluster.runUntil(() -> c.applied().equals(a.applied()), "c applied what a did");
        assertThat(c.applied()).containsExactly("w1", "w2");
    }
}
