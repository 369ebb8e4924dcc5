package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class ElectionTest {
    @Test
    void aLaterLastEpochIsMoreCompleteWhateverTheLengths() {
        assertThat(Election.atLeastAsComplete(3, 1, 2, 100)).isTrue();
        assertThat(Election.atLeastAsComplete(2, 100, 3, 1)).isFalse();
    }

    @Test
    void inOneEpochTheLongerLogIsMoreCompleteAndEqualLogsAreBothComplete() {
        assertThat(Election.atLeastAsComplete(2, 5, 2, 4)).isTrue();
        assertThat(Election.atLeastAsComplete(2, 4, 2, 5)).isFalse();
        assertThat(Election.atLeastAsComplete(2, 4, 2, 4)).isTrue();
        assertThat(Election.atLeastAsComplete(0, 0, 0, 0)).isTrue();
    }

    @Test
    void aMajorityIsMoreThanHalf() {
        assertThat(List.of(1, 2, 3, 4, 5, 6, 7).stream().map(Election::quorum)).containsExactly(1, 2, 2, 3, 3, 4, 4);
        assertThatThrownBy(() -> Election.quorum(0)).hasMessage("replicas: 0 (expected: >= 1)");
    }

    @Test
    void theMajorityPositionIsWhatTheQuorumThFurthestReplicaHas() {
        assertThat(Election.majorityPosition(List.of(10L, 7L, 3L), 2)).isEqualTo(7);
        assertThat(Election.majorityPosition(List.of(10L, 7L, 3L, 9L, 1L), 3)).isEqualTo(7);
        assertThat(Election.majorityPosition(List.of(10L), 2)).as("too few replicas known").isZero();
    }

    @Test
    void majorityContactIsTheQuorumThLatestAnswer() {
        assertThat(Election.majorityContact(List.of(100L, 50L, 70L), 2)).isEqualTo(70);
        assertThat(Election.majorityContact(List.of(100L), 2)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void failStopCandidatesRankByLogThenPriorityThenTheLowerNodeId() {
        assertThat(Election.compare(candidate("b", 2, 1, 0), candidate("a", 1, 9, 9))).isPositive();
        assertThat(Election.compare(candidate("b", 2, 5, 0), candidate("a", 2, 5, 1))).isNegative();
        assertThat(Election.compare(candidate("a", 2, 5, 1), candidate("b", 2, 5, 1))).isPositive();
    }

    private static Election.Candidate candidate(String node, long lastEpoch, long lastLsn, int priority) {
        return new Election.Candidate(node, lastEpoch, lastLsn, priority);
    }

    private static Election.Rival status(String node, String role, long epoch, long lastEpoch, long logEnd, int priority) {
        return new Election.Rival(role, epoch, candidate(node, lastEpoch, logEnd, priority));
    }

    /** A fail-stop election of candidate "a" at epoch 3, its log ending at (epoch 2, LSN 10), priority 1. */
    private static Election.FailStopWin failStop(boolean catastrophic, Election.Rival... rivals) {
        return Election.failStop(Arrays.asList(rivals), catastrophic, 3, candidate("a", 2, 10, 1));
    }

    @Test
    void aFailStopCandidateWinsAboveEveryEpochSeenWithTheSecondariesAsFollowers() {
        Election.Rival behind = status("b", "SECONDARY", 4, 2, 9, 5);
        Election.Rival recovering = status("c", "RECOVERING", 3, 2, 12, 9);

        Election.FailStopWin win = failStop(false, behind, recovering);

        assertThat(win).isNotNull();
        assertThat(win.epoch()).as("above b's epoch 4").isEqualTo(5);
        assertThat(win.followers()).containsExactly("b");
    }

    @Test
    void aFailStopCandidateLosesToAPrimaryToASecondaryThatOutranksItAndToSilence() {
        assertThat(failStop(false, status("b", "PRIMARY", 3, 1, 1, 0))).as("a rival still leads").isNull();
        assertThat(failStop(false, status("b", "SECONDARY", 3, 2, 11, 0))).as("a longer log").isNull();
        assertThat(failStop(false, status("b", "SECONDARY", 3, 2, 10, 2))).as("the same log, higher priority")
                .isNull();
        assertThat(failStop(false, status("b", "SECONDARY", 3, 2, 10, 1), null)).as("a rival did not answer")
                .isNull();
        assertThat(failStop(false, status("b", "SECONDARY", 3, 2, 10, 1))).as("ties go to the lower node id")
                .isNotNull();
    }

    @Test
    void aRecoveringReplicaCompetesOnlyInACatastrophicElection() {
        Election.Rival recovering = status("b", "RECOVERING", 3, 3, 1, 0);

        assertThat(failStop(false, recovering)).as("normal: it is out of service").isNotNull();
        assertThat(failStop(true, recovering)).as("catastrophic: its log is more complete").isNull();
        assertThat(failStop(true, status("b", "RECOVERING", 3, 2, 4, 0)).followers())
                .as("it competes but does not follow").isEmpty();
    }

    @Test
    void aReplicaStandsAStepLaterForEveryLiveReplicaOfHigherPriority() {
        List<Replica> view = List.of(replica("a", 1), replica("b", 5), replica("c", 3), replica("d", 1));

        assertThat(new Election.StandDelay(100, 10).of(view, NodeId.of("a"), 1, 7)).as("b and c rank higher")
                .isEqualTo(127);
        assertThat(new Election.StandDelay(100, 10).of(view, NodeId.of("b"), 5, 0)).isEqualTo(100);
    }

    private static final Election.LogEnd LOG = new Election.LogEnd(4, 20);

    private static Election.VoteRequest ask(long epoch, Election.LogEnd log, boolean transfer) {
        return new Election.VoteRequest(epoch, log, transfer);
    }

    @Test
    void aVoteIsGrantedOnlyForAnEpochAboveTheVotersOwn() {
        Election.Voter voter = new Election.Voter(5, false, null, LOG);
        assertThat(Election.voteRefusal(ask(5, LOG, false), voter)).isEqualTo("epoch 5 is not above mine (5)");
        assertThat(Election.voteRefusal(ask(5, LOG, true), voter)).as("a transfer too")
                .isEqualTo("epoch 5 is not above mine (5)");
        assertThat(Election.voteRefusal(ask(6, LOG, false), voter)).isNull();
    }

    /** A replica cut off from the others must not depose a primary that a majority still follows (Raft §9.6). */
    @Test
    void aLeaderOrAFollowerThatHeardFromALivePrimaryLatelyRefusesAllButATransfer() {
        Election.Voter leader = new Election.Voter(5, true, null, LOG);
        Election.Voter follower = new Election.Voter(5, false, new Election.Heard("n1", 120), LOG);
        assertThat(Election.voteRefusal(ask(6, LOG, false), leader)).isEqualTo("I lead epoch 5");
        assertThat(Election.voteRefusal(ask(6, LOG, false), follower)).isEqualTo("heard from primary n1 120 ms ago");
        assertThat(Election.voteRefusal(ask(6, LOG, true), leader)).isNull();
        assertThat(Election.voteRefusal(ask(6, LOG, true), follower)).isNull();
    }

    @Test
    void aVoteGoesOnlyToALogAtLeastAsCompleteEvenForATransfer() {
        Election.Voter voter = new Election.Voter(5, false, null, LOG);
        String refusal = "my log is more complete (epoch 4, LSN 20)";
        assertThat(Election.voteRefusal(ask(6, new Election.LogEnd(4, 19), false), voter)).isEqualTo(refusal);
        assertThat(Election.voteRefusal(ask(6, new Election.LogEnd(3, 99), true), voter)).isEqualTo(refusal);
        assertThat(Election.voteRefusal(ask(6, new Election.LogEnd(5, 1), false), voter)).isNull();
        assertThat(Election.voteRefusal(ask(6, LOG, false), voter)).isNull();
    }

    @Test
    void aPromoteIsRefusedByTheFirstReasonThatHoldsAndAcceptedWhenNoneDoes() {
        Election.Promotion standing = new Election.Promotion(false, true, "[a, b, c]", 0, false, false, false, null);
        assertThat(Election.promoteRefusal(standing)).isNull();

        assertThat(Election.promoteRefusal(new Election.Promotion(true, false, "[a, b, c]", 0, false, false, false,
                null))).isEqualTo("already primary");
        assertThat(Election.promoteRefusal(new Election.Promotion(false, false, "[a, b, c]", 9, false, false, false,
                null))).isEqualTo("not a voter of the partition's configuration [a, b, c]");
        assertThat(Election.promoteRefusal(new Election.Promotion(false, true, "[a, b, c]", 9, true, false, false,
                null))).startsWith("its log lost records up to 9");
        assertThat(Election.promoteRefusal(new Election.Promotion(false, true, "[a, b, c]", 0, true, true, false,
                null))).isEqualTo("it needs a snapshot first");
        assertThat(Election.promoteRefusal(new Election.Promotion(false, true, "[a, b, c]", 0, false, true, true,
                null))).isEqualTo("diverged");
        assertThat(Election.promoteRefusal(new Election.Promotion(false, true, "[a, b, c]", 0, false, false, true,
                NodeId.of("b")))).isEqualTo("an election is under way");
        assertThat(Election.promoteRefusal(new Election.Promotion(false, true, "[a, b, c]", 0, false, false, false,
                NodeId.of("b")))).isEqualTo("a live primary exists: b");
    }

    private static Replica replica(String node, int priority) {
        InetSocketAddress address = InetSocketAddress.createUnresolved("localhost", 1);
        return new Replica(NodeId.of(node), address, address, priority, ReplicaRole.SECONDARY, 0, 0);
    }
}
