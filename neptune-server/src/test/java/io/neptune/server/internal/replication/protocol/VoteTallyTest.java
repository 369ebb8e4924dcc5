package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.server.internal.replication.protocol.VoteTally.Outcome;
import org.junit.jupiter.api.Test;

/** The count of a majority-mode vote round, by hand. */
class VoteTallyTest {
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");
    private static final NodeId D = NodeId.of("d");
    private static final NodeId E = NodeId.of("e");

    @Test
    void aRoundOfFiveIsWonByTheSecondGrantWithTheCandidatesOwnVote() {
        VoteTally tally = new VoteTally(3, 4);

        assertThat(tally.notGranted(B)).isEqualTo(Outcome.OPEN);
        assertThat(tally.granted(C)).isEqualTo(Outcome.OPEN);
        assertThat(tally.granted(D)).isEqualTo(Outcome.WON);
        assertThat(tally.voters()).containsExactlyInAnyOrder(C, D);
        assertThat(tally.granted(E)).as("won once").isEqualTo(Outcome.OPEN);
    }

    @Test
    void aRoundIsLostWhenTheLastRefusalLeavesItShortOfAMajority() {
        VoteTally tally = new VoteTally(3, 4);
        tally.granted(B);
        tally.notGranted(C);
        tally.notGranted(D);

        assertThat(tally.notGranted(E)).isEqualTo(Outcome.LOST);
        assertThat(tally.votes()).isEqualTo(2);
    }

    /** An operator's promote is answered when its round is lost, not an election timeout later. */
    @Test
    void aRoundIsLostWhenTheLastAnswerIsAGrantThatStillLeavesItShortOfAMajority() {
        VoteTally tally = new VoteTally(3, 2); // three of five in the yellow page
        tally.notGranted(B);

        assertThat(tally.granted(C)).isEqualTo(Outcome.LOST);
        assertThat(tally.votes()).isEqualTo(2);
    }

    @Test
    void aLoneReplicaWinsWithoutAskingAndTooFewReplicasLoseBeforeAnyAnswer() {
        assertThat(new VoteTally(1, 0).wonAlone()).isTrue();
        assertThat(new VoteTally(3, 1).tooFewAsked()).as("two of five in the yellow page").isTrue();
        assertThat(new VoteTally(3, 2).tooFewAsked()).isFalse();
    }
}
