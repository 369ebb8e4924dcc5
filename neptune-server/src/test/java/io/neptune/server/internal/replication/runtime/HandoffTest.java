package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.FailoverMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.FaultInjectingCluster.Node;
import io.neptune.server.internal.replication.runtime.PeerMessages.Handover;
import io.neptune.server.internal.replication.runtime.PeerMessages.HandoverReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.PromoteReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.TakeOver;
import io.neptune.server.internal.replication.runtime.PeerMessages.Vote;
import io.neptune.server.internal.replication.runtime.PeerMessages.VoteReply;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * An operator's handover ({@link Handoff}, {@link TakeOver}) on a network the test controls, in
 * both fail-over modes: the primary holds new writes until the target has every logged one, then
 * steps down and sends the held writes to the target; a target that does not catch up in time is
 * refused and the held writes run at the old primary; a replica moved in by {@code move-primary}
 * keeps the role against a caught-up replica of higher priority.
 */
class HandoffTest {
    @TempDir
    Path dir;

    private FaultInjectingCluster cluster;
    private Node a;
    private Node b;
    private Node c;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Three replicas with priorities a > b > c; returns once a leads and b and c follow. */
    private void startThree(FailoverMode mode) {
        cluster = new FaultInjectingCluster(dir, mode, 3);
        List<Node> abc = cluster.startThree();
        a = abc.get(0);
        b = abc.get(1);
        c = abc.get(2);
    }

    private ResponseMessage answered(CompletableFuture<ResponseMessage> write) {
        cluster.runUntil(write::isDone, "the write answered");
        return write.join();
    }

    /** Sends {@code node} a peer message and waits for its answer (see {@link #awaitStill}). */
    private <T> T peer(Node node, String method, Object message, Class<T> type) {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        node.replica.onPeerMessage(method, message, reply::complete);
        awaitStill(reply);
        return type.cast(reply.join());
    }

    /**
     * Runs the simulation until {@code answer} came. (It once waited in real time with the cluster's
     * clock standing still: a handoff's 800 ms run on that clock, and advancing it 100 ms a step
     * while the target logged and acknowledged let the handoff time out on a slow machine. On the
     * simulator the clock moves only as far as the messages and forces take.)
     */
    private void awaitStill(CompletableFuture<?> answer) {
        cluster.runUntil(answer::isDone, "the peer answered");
    }

    @ParameterizedTest
    @EnumSource(FailoverMode.class)
    void takeOverMovesTheRoleToALowerPriorityReplicaThatKeepsIt(FailoverMode mode) {
        startThree(mode);
        assertThat(answered(cluster.write(a, "w1")).status()).isEqualTo(Status.OK);

        PromoteReply reply = peer(c, "takeOver", new TakeOver(FaultInjectingCluster.SERVICE, 0, true),
                PromoteReply.class);

        assertThat(reply.accepted()).as(reply.reason()).isTrue();
        cluster.runUntil(() -> c.role() == ReplicaRole.PRIMARY && a.role() == ReplicaRole.SECONDARY,
                "c primary, a following");
        assertThat(answered(cluster.write(c, "w2")).status()).isEqualTo(Status.OK);
        for (int i = 0; i < 30; i++) { // 3 s: a, of higher priority and caught up, would ask for it back every 500 ms
            cluster.advance(Duration.ofMillis(100));
            assertThat(c.role()).as("c keeps the role the operator gave it").isEqualTo(ReplicaRole.PRIMARY);
        }
        assertThat(a.applied()).containsExactly("w1", "w2");
    }

    @ParameterizedTest
    @EnumSource(FailoverMode.class)
    void aCaughtUpReplicaOfHigherPriorityAsksForTheRoleBackFromAnUnpinnedPrimary(FailoverMode mode) {
        startThree(mode);
        assertThat(answered(cluster.write(a, "w1")).status()).isEqualTo(Status.OK);
        PromoteReply reply = peer(c, "takeOver", new TakeOver(FaultInjectingCluster.SERVICE, 0, false),
                PromoteReply.class);
        assertThat(reply.accepted()).as(reply.reason()).isTrue();

        cluster.runUntil(() -> a.role() == ReplicaRole.PRIMARY && c.role() == ReplicaRole.SECONDARY,
                "a, of the highest priority, primary again (a handover by priority)");
        assertThat(answered(cluster.write(a, "w2")).status()).isEqualTo(Status.OK);
        assertThat(a.applied()).containsExactly("w1", "w2");
    }

    @ParameterizedTest
    @EnumSource(FailoverMode.class)
    void writesArrivingDuringAHandoverAreHeldAndSentOnToTheNewPrimary(FailoverMode mode) {
        startThree(mode);
        // b logs nothing until released: the handoff cannot finish before w2 reached a, however the threads run
        cluster.hold((from, call) -> from.equals(a.id) && call.equals("b:replicate"));
        CompletableFuture<ResponseMessage> inFlight = cluster.write(a, "w1");
        CompletableFuture<Object> handover = new CompletableFuture<>();
        a.replica.onPeerMessage("handover", new Handover(FaultInjectingCluster.SERVICE, 0, "b", 0, true),
                handover::complete);
        CompletableFuture<ResponseMessage> held = cluster.write(a, "w2");
        FaultInjectingCluster.sync(a);
        assertThat(handover).as("the handoff waits for b").isNotDone();
        assertThat(held).as("w2 is held, not run").isNotDone();

        cluster.release(false);
        awaitStill(handover);
        assertThat(((HandoverReply) handover.join()).accepted()).isTrue();
        assertThat(answered(inFlight).status()).as("the write logged before the handover commits").isEqualTo(Status.OK);
        ResponseMessage redirected = answered(held);
        assertThat(redirected.status()).as("the held write did not run at a").isEqualTo(Status.NOT_PRIMARY);
        assertThat(redirected.suggestedPrimary()).isEqualTo(NodeId.of("b"));
        assertThat(a.applied()).containsExactly("w1");
    }

    /**
     * The race the test above once lost: a write reaches the old primary just after its handoff
     * finished. It is redirected to the target as a held one is, not answered with no primary named.
     */
    @ParameterizedTest
    @EnumSource(FailoverMode.class)
    void aWriteArrivingJustAfterTheHandoffIsSentOnToTheNewPrimary(FailoverMode mode) {
        startThree(mode);
        assertThat(answered(cluster.write(a, "w1")).status()).isEqualTo(Status.OK);
        CompletableFuture<Object> handover = new CompletableFuture<>();
        a.replica.onPeerMessage("handover", new Handover(FaultInjectingCluster.SERVICE, 0, "b", 0, true),
                handover::complete);
        awaitStill(handover);
        assertThat(((HandoverReply) handover.join()).accepted()).isTrue();

        ResponseMessage late = answered(cluster.write(a, "w2"));

        assertThat(late.status()).as("the late write did not run at a").isEqualTo(Status.NOT_PRIMARY);
        assertThat(late.suggestedPrimary()).isEqualTo(NodeId.of("b"));
        assertThat(a.applied()).containsExactly("w1");
    }

    /** Hands a's role to b as b's {@code takeOver} would, but b never hears the answer and never stands. */
    private void handToBSilently() {
        assertThat(answered(cluster.write(a, "w1")).status()).isEqualTo(Status.OK);
        HandoverReply reply = peer(a, "handover", new Handover(FaultInjectingCluster.SERVICE, 0, "b", 0, true),
                HandoverReply.class);
        assertThat(reply.accepted()).as(reply.reason()).isTrue();
    }

    /**
     * What naming the target costs in majority mode: for an election timeout after the handoff the
     * old primary refuses a rival's (pre-)vote, as a follower of a live primary does, and grants the
     * target's transfer vote.
     */
    @Test
    void afterAHandoffTheOldPrimaryRefusesRivalsButNotTheTargetForAnElectionTimeout() {
        startThree(FailoverMode.MAJORITY);
        handToBSilently();
        long next = a.epoch() + 1;
        long lastEpoch = a.core.log.lastEpoch();
        long lastLsn = a.core.log.lastLsn();

        VoteReply rival = peer(a, "vote", new Vote(FaultInjectingCluster.SERVICE, 0, "c", next, lastEpoch, lastLsn,
                true, false), VoteReply.class);
        VoteReply target = peer(a, "vote", new Vote(FaultInjectingCluster.SERVICE, 0, "b", next, lastEpoch, lastLsn,
                false, true), VoteReply.class);

        assertThat(rival.granted()).as("c's pre-vote").isFalse();
        assertThat(rival.reason()).startsWith("heard from primary b");
        assertThat(target.granted()).as("b's transfer vote: " + target.reason()).isTrue();
    }

    /** A target that never takes over leaves the partition without a primary for a timeout, not for good. */
    @ParameterizedTest
    @EnumSource(FailoverMode.class)
    void aTargetThatNeverTakesOverLeavesThePartitionToTheNextElection(FailoverMode mode) {
        startThree(mode);
        long epoch = a.epoch();
        handToBSilently();

        cluster.runUntil(() -> cluster.primary().filter(p -> p.epoch() > epoch).isPresent(),
                "a primary elected at a later epoch");
        Node primary = cluster.primary().orElseThrow();
        assertThat(answered(cluster.write(primary, "w2")).status()).isEqualTo(Status.OK);
    }

    @ParameterizedTest
    @EnumSource(FailoverMode.class)
    void aTargetThatDoesNotCatchUpIsRefusedAndTheHeldWritesRunAtThePrimary(FailoverMode mode) {
        startThree(mode);
        cluster.pause(c); // it logs nothing more
        CompletableFuture<ResponseMessage> unacknowledged = cluster.write(a, "w1");
        if (mode == FailoverMode.MAJORITY) {
            assertThat(answered(unacknowledged).status()).isEqualTo(Status.OK); // a and b are a majority
        }
        CompletableFuture<Object> handover = new CompletableFuture<>();
        a.replica.onPeerMessage("handover", new Handover(FaultInjectingCluster.SERVICE, 0, "c", 0, true),
                handover::complete);
        CompletableFuture<ResponseMessage> held = cluster.write(a, "w2");

        cluster.runUntil(handover::isDone, "a answered the handover");
        HandoverReply reply = (HandoverReply) handover.join();
        assertThat(reply.accepted()).isFalse();
        assertThat(reply.reason()).contains("c did not catch up within 800 ms");
        cluster.resume(c);
        assertThat(answered(held).status()).as("the held write ran at a after all").isEqualTo(Status.OK);
        assertThat(a.role()).isEqualTo(ReplicaRole.PRIMARY);
    }

    @ParameterizedTest
    @EnumSource(FailoverMode.class)
    void aRecoveringReplicaRefusesToTakeOver(FailoverMode mode) {
        startThree(mode);
        cluster.kill(c);
        assertThat(answered(cluster.write(a, "w1")).status()).isIn(Status.OK, Status.IN_DOUBT);
        c = cluster.start("c", 1); // recovering until it fetched w1

        PromoteReply reply = peer(c, "takeOver", new TakeOver(FaultInjectingCluster.SERVICE, 0, true),
                PromoteReply.class);

        assertThat(reply.accepted()).isFalse();
        assertThat(reply.reason()).startsWith("not caught up");
    }
}
