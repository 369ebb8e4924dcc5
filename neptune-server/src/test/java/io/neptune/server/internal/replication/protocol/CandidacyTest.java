package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.server.internal.replication.protocol.Candidacy.AdoptEpoch;
import io.neptune.server.internal.replication.protocol.Candidacy.Ballot;
import io.neptune.server.internal.replication.protocol.Candidacy.Debug;
import io.neptune.server.internal.replication.protocol.Candidacy.Ended;
import io.neptune.server.internal.replication.protocol.Candidacy.EpochSeen;
import io.neptune.server.internal.replication.protocol.Candidacy.Granted;
import io.neptune.server.internal.replication.protocol.Candidacy.Missing;
import io.neptune.server.internal.replication.protocol.Candidacy.PersistEpoch;
import io.neptune.server.internal.replication.protocol.Candidacy.Refused;
import io.neptune.server.internal.replication.protocol.Candidacy.SendBallots;
import io.neptune.server.internal.replication.protocol.Candidacy.Stage;
import io.neptune.server.internal.replication.protocol.Candidacy.Standing;
import io.neptune.server.internal.replication.protocol.Candidacy.Won;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A {@code majority}-mode candidacy stepped by hand: each test feeds inputs (start, the epoch
 * persisted, answers) and reads the effects that come out. No threads, no network, no clock; the
 * "driver" is the test, which persists what it is asked to and answers the ballots as voters would.
 */
class CandidacyTest {
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");
    private static final NodeId D = NodeId.of("d");
    private static final NodeId E = NodeId.of("e");
    private static final long MS = 1_000_000L;
    /** The candidate's persisted epoch before it stands. */
    private static final long EPOCH = 4;
    private static final Ballot PRE_VOTE = new Ballot(EPOCH + 1, true, false);
    private static final Ballot VOTE = new Ballot(EPOCH + 1, false, false);

    /** Five replicas in the candidate's yellow page: a majority is three, the candidate's own vote included. */
    private static Standing fiveAt(long logEpoch, long nowNanos) {
        return new Standing(logEpoch, List.of(B, C, D, E), 3, nowNanos);
    }

    /** A candidacy that won its pre-vote and persisted its new epoch at 20 ms: its votes are out. */
    private static Candidacy voting() {
        Candidacy candidacy = new Candidacy(false);
        candidacy.start(0, fiveAt(EPOCH, 10 * MS));
        candidacy.answered(PRE_VOTE, new Granted(B), EPOCH);
        candidacy.answered(PRE_VOTE, new Granted(C), EPOCH);
        assertThat(candidacy.epochPersisted(fiveAt(EPOCH + 1, 20 * MS)))
                .containsExactly(new SendBallots(VOTE, List.of(B, C, D, E)));
        return candidacy;
    }

    @Test
    void anElectionAsksForPreVotesAboveTheHighestEpochSeenInRefusals() {
        Candidacy candidacy = new Candidacy(false);

        assertThat(candidacy.start(7, fiveAt(EPOCH, 0)))
                .containsExactly(new SendBallots(new Ballot(8, true, false), List.of(B, C, D, E)));
        assertThat(candidacy.stage()).isEqualTo(Stage.PRE_VOTE);
        assertThat(candidacy.epoch()).isEqualTo(8);
    }

    @Test
    void aPreVoteLostEndsTheCandidacyWithoutPersistingAnEpoch() {
        Candidacy candidacy = new Candidacy(false);
        candidacy.start(0, fiveAt(EPOCH, 0));

        assertThat(candidacy.answered(PRE_VOTE, new Granted(B), EPOCH)).isEmpty();
        assertThat(candidacy.answered(PRE_VOTE, new Refused(C, EPOCH), EPOCH)).containsExactly(new EpochSeen(EPOCH));
        assertThat(candidacy.answered(PRE_VOTE, new Missing(D), EPOCH)).isEmpty();
        assertThat(candidacy.answered(PRE_VOTE, new Missing(E), EPOCH)).containsExactly(
                new Debug("pre-vote at epoch 4 got 2 of 3 needed votes"), new Ended("pre-vote got 2 of 3 needed votes"));
        assertThat(candidacy.stage()).isEqualTo(Stage.ENDED);
    }

    @Test
    void aPreVoteWonAsksForTheNewEpochToBePersistedBeforeAnyVote() {
        Candidacy candidacy = new Candidacy(false);
        candidacy.start(0, fiveAt(EPOCH, 0));
        candidacy.answered(PRE_VOTE, new Granted(B), EPOCH);

        assertThat(candidacy.answered(PRE_VOTE, new Granted(C), EPOCH)).containsExactly(new PersistEpoch(EPOCH + 1));
        assertThat(candidacy.stage()).isEqualTo(Stage.PERSISTING);
    }

    @Test
    void aVoteWonMakesThePrimaryWithItsVotersAndTheTimeTheVotesWereSent() {
        Candidacy candidacy = voting();
        candidacy.answered(VOTE, new Granted(D), EPOCH + 1);
        candidacy.answered(VOTE, new Missing(B), EPOCH + 1);

        assertThat(candidacy.answered(VOTE, new Granted(E), EPOCH + 1))
                .containsExactly(new Won(EPOCH + 1, Set.of(D, E), 20 * MS));
        assertThat(candidacy.stage()).isEqualTo(Stage.WON);
        assertThat(candidacy.answered(VOTE, new Refused(C, EPOCH + 3), EPOCH + 1)).as("after the win").isEmpty();
    }

    /** An operator's promote is answered when its round is lost, not an election timeout later. */
    @Test
    void aVoteIsLostWhenTheLastAnswerIsAGrantThatStillLeavesItShortOfAMajority() {
        Candidacy candidacy = new Candidacy(false);
        Standing threeOfFive = new Standing(EPOCH, List.of(B, C), 3, 0); // d and e are not in the yellow page
        candidacy.start(0, threeOfFive);
        candidacy.answered(PRE_VOTE, new Granted(B), EPOCH);
        candidacy.answered(PRE_VOTE, new Granted(C), EPOCH);
        candidacy.epochPersisted(new Standing(EPOCH + 1, List.of(B, C), 3, 0));
        candidacy.answered(VOTE, new Refused(B, EPOCH + 1), EPOCH + 1);

        assertThat(candidacy.answered(VOTE, new Granted(C), EPOCH + 1)).containsExactly(
                new Debug("vote at epoch 5 got 2 of 3 needed votes"), new Ended("vote got 2 of 3 needed votes"));
        assertThat(candidacy.stage()).isEqualTo(Stage.ENDED);
    }

    @Test
    void aTransferSkipsThePreVoteAndItsBallotsSaySo() {
        Candidacy candidacy = new Candidacy(true);

        assertThat(candidacy.start(0, fiveAt(EPOCH, 0))).containsExactly(new PersistEpoch(EPOCH + 1));
        assertThat(candidacy.epochPersisted(fiveAt(EPOCH + 1, 5 * MS)))
                .containsExactly(new SendBallots(new Ballot(EPOCH + 1, false, true), List.of(B, C, D, E)));
        assertThat(candidacy.stage()).isEqualTo(Stage.VOTE);
    }

    @Test
    void aRefusalAtANewerEpochInTheVoteIsAdoptedAndEndsTheCandidacy() {
        Candidacy candidacy = voting();

        List<Candidacy.Effect> effects = candidacy.answered(VOTE, new Refused(C, EPOCH + 3), EPOCH + 1);

        assertThat(effects).containsExactly(new EpochSeen(EPOCH + 3), new AdoptEpoch(EPOCH + 3, C));
        assertThat(((AdoptEpoch) effects.get(1)).why()).isEqualTo("c is at epoch 7");
        assertThat(candidacy.stage()).isEqualTo(Stage.ENDED);
        assertThat(candidacy.answered(VOTE, new Granted(D), EPOCH + 3)).as("once ended").isEmpty();
    }

    @Test
    void aRefusalAtANewerEpochInThePreVoteIsOnlySeenForTheNextCandidacy() {
        Candidacy candidacy = new Candidacy(false);
        candidacy.start(0, fiveAt(EPOCH, 0));

        assertThat(candidacy.answered(PRE_VOTE, new Refused(C, EPOCH + 3), EPOCH))
                .containsExactly(new EpochSeen(EPOCH + 3));
        assertThat(candidacy.stage()).isEqualTo(Stage.PRE_VOTE);
    }

    @Test
    void aPreVoteAnswerThatComesDuringTheVoteCountsOnlyForTheEpochItWasRefusedAt() {
        Candidacy candidacy = voting();

        assertThat(candidacy.answered(PRE_VOTE, new Granted(D), EPOCH + 1)).isEmpty();
        assertThat(candidacy.answered(PRE_VOTE, new Refused(E, EPOCH + 3), EPOCH + 1))
                .as("no vote lost, no epoch adopted").containsExactly(new EpochSeen(EPOCH + 3));
        assertThat(candidacy.answered(VOTE, new Granted(D), EPOCH + 1)).as("the vote still needs two grants").isEmpty();
        assertThat(candidacy.answered(VOTE, new Granted(E), EPOCH + 1)).hasSize(1).first().isInstanceOf(Won.class);
    }

    @Test
    void aPreVoteWonAfterTheLogReachedTheEpochEndsTheCandidacy() {
        Candidacy candidacy = new Candidacy(false);
        candidacy.start(0, fiveAt(EPOCH, 0));
        candidacy.answered(PRE_VOTE, new Granted(B), EPOCH);

        assertThat(candidacy.answered(PRE_VOTE, new Granted(C), EPOCH + 1))
                .containsExactly(new Ended("epoch 5 was reached meanwhile"));
    }

    @Test
    void aLoneReplicaWinsWithoutSendingABallotAndTooFewReplicasLoseAfterSendingThem() {
        Candidacy alone = new Candidacy(false);
        assertThat(alone.start(0, new Standing(EPOCH, List.of(), 1, 0))).containsExactly(new PersistEpoch(EPOCH + 1));
        assertThat(alone.epochPersisted(new Standing(EPOCH + 1, List.of(), 1, 3 * MS)))
                .containsExactly(new Won(EPOCH + 1, Set.of(), 3 * MS));

        Candidacy cutOff = new Candidacy(false);
        assertThat(cutOff.start(0, new Standing(EPOCH, List.of(B), 3, 0))).containsExactly(
                new SendBallots(PRE_VOTE, List.of(B)), new Debug("pre-vote at epoch 4 got 1 of 3 needed votes"),
                new Ended("pre-vote got 1 of 3 needed votes"));
    }
}
