package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.replication.protocol.FailStopElection.From;
import io.neptune.server.internal.replication.protocol.FailStopElection.Round;
import io.neptune.server.internal.replication.protocol.Ready.AnswerOnceAnnounced;
import io.neptune.server.internal.replication.protocol.Ready.AnswerPromote;
import io.neptune.server.internal.replication.protocol.Ready.AskStatus;
import io.neptune.server.internal.replication.protocol.Ready.BecomePrimary;
import io.neptune.server.internal.replication.protocol.Ready.RoundOver;
import io.neptune.server.internal.replication.protocol.Ready.Stand;
import io.neptune.server.internal.replication.protocol.Ready.Warn;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A fail-stop replica's election and an operator's promote, stepped by hand: the test is the
 * driver, keeping the replica's log and the round its phase holds, and answering for the rivals.
 * No threads, no network, no waits.
 */
class FailStopElectionTest {
    private static final NodeId A = NodeId.of("a");
    private static final NodeId B = NodeId.of("b");
    private static final NodeId C = NodeId.of("c");
    private static final NodeId D = NodeId.of("d");

    /** Replica {@code b}, of priority 1, in a partition of three replicas. */
    private final FailStopElection election = new FailStopElection(B, 1, 3);
    private final FakeReplica self = new FakeReplica();

    /** The electing replica: its epoch, its log's end, the primary it last heard from. */
    private static final class FakeReplica implements FailStopElection.View {
        long epoch = 1;
        long lastEpoch = 1;
        long lastLsn = 5;
        @Nullable NodeId lastPrimary = A;
        boolean canLead = true;
        boolean storageFails;

        @Override
        public long epoch() {
            return epoch;
        }

        @Override
        public long lastEpoch() {
            return lastEpoch;
        }

        @Override
        public long lastLsn() {
            return lastLsn;
        }

        @Override
        public @Nullable NodeId lastPrimary() {
            return lastPrimary;
        }

        @Override
        public boolean canLead() {
            return canLead;
        }

        @Override
        public boolean storageFails() {
            return storageFails;
        }
    }

    private static Replica replica(NodeId node, ReplicaRole role, long epoch) {
        InetSocketAddress address = InetSocketAddress.createUnresolved("localhost", 1);
        return new Replica(node, address, address, 1, role, 0, 0, epoch, 0, 0, 0);
    }

    /** What {@code node} answered: its role, its epoch, where its log ends (last epoch 1), its priority 1. */
    private static Election.Rival rival(NodeId node, ReplicaRole role, long epoch, long lastLsn) {
        return new Election.Rival(role.name(), epoch, new Election.Candidate(node.value(), 1, lastLsn, 1));
    }

    private static List<Election.@Nullable Rival> answers(Election.@Nullable Rival... rivals) {
        return Arrays.asList(rivals);
    }

    /** The view of a secondary {@code b} whose primary {@code a} is gone: {@code c} is recovering. */
    private static List<Replica> primaryLost() {
        return List.of(replica(B, ReplicaRole.SECONDARY, 1), replica(C, ReplicaRole.RECOVERING, 1));
    }

    /** Stands from a secondary whose primary is lost, as round {@code 1} at epoch 1. */
    private Round standAfterThePrimaryIsLost() {
        Ready ready = election.tick(From.SECONDARY, primaryLost(), self);
        return ((Stand) ready.effects().get(0)).round();
    }

    @Test
    void aSecondaryThatSeesNoLivePrimaryStandsAndAsksEveryOtherLiveReplica() {
        List<Replica> view = List.of(replica(C, ReplicaRole.RECOVERING, 1), replica(B, ReplicaRole.SECONDARY, 1),
                replica(D, ReplicaRole.SECONDARY, 1));

        assertThat(election.tick(From.SECONDARY, view, self).effects()).containsExactly(
                new Stand(new Round(1, 1, false)), new AskStatus(List.of(C, D), 1));
        assertThat(election.tick(From.SECONDARY, view, self).effects()).as("the next round has the next number")
                .containsExactly(new Stand(new Round(2, 1, false)), new AskStatus(List.of(C, D), 2));
    }

    @Test
    void aSecondaryThatSeesALivePrimaryAtItsEpochOrLaterDoesNotStand() {
        List<Replica> view = List.of(replica(A, ReplicaRole.PRIMARY, 1), replica(B, ReplicaRole.SECONDARY, 1));
        assertThat(election.tick(From.SECONDARY, view, self).isEmpty()).isTrue();

        self.epoch = 2; // a primary announced at an older epoch than this replica's is no longer live
        self.lastPrimary = null;
        assertThat(election.tick(From.SECONDARY, view, self).effects()).first().isInstanceOf(Stand.class);
    }

    @Test
    void aSecondaryThatJustHeardFromANewPrimaryNotAnnouncedYetWaits() {
        self.epoch = 2; // the new primary's first replicate brought epoch 2 before its announcement did
        List<Replica> view = List.of(replica(A, ReplicaRole.SECONDARY, 1), replica(B, ReplicaRole.SECONDARY, 2));
        assertThat(election.tick(From.SECONDARY, view, self).isEmpty()).isTrue();

        List<Replica> gone = List.of(replica(B, ReplicaRole.SECONDARY, 2));
        assertThat(election.tick(From.SECONDARY, gone, self).effects()).as("it died instead: the election goes on")
                .containsExactly(new Stand(new Round(1, 2, false)), new AskStatus(List.of(), 1));
    }

    @Test
    void aSecondaryThatCannotLeadDoesNotStand() {
        self.canLead = false; // a lost log tail, or a snapshot being installed
        assertThat(election.tick(From.SECONDARY, primaryLost(), self).isEmpty()).isTrue();
    }

    @Test
    void aReplicaInAnyOtherPhaseDoesNotStand() {
        assertThat(election.tick(From.NEITHER, primaryLost(), self).isEmpty()).isTrue();
    }

    @Test
    void aRecoveringReplicaStandsOnlyOnceAllConfiguredReplicasAreBackAndNoneIsASecondary() {
        List<Replica> allBack = List.of(replica(A, ReplicaRole.RECOVERING, 1), replica(B, ReplicaRole.RECOVERING, 1),
                replica(C, ReplicaRole.RECOVERING, 1));
        List<Replica> twoBack = List.of(replica(B, ReplicaRole.RECOVERING, 1), replica(C, ReplicaRole.RECOVERING, 1));
        List<Replica> aSecondary = List.of(replica(A, ReplicaRole.SECONDARY, 1),
                replica(B, ReplicaRole.RECOVERING, 1), replica(C, ReplicaRole.RECOVERING, 1));

        assertThat(election.tick(From.RECOVERING, twoBack, self).isEmpty()).isTrue();
        assertThat(election.tick(From.RECOVERING, aSecondary, self).isEmpty()).isTrue();
        self.storageFails = true;
        assertThat(election.tick(From.RECOVERING, allBack, self).isEmpty()).as("a write fails in storage").isTrue();
        self.storageFails = false;
        assertThat(election.tick(From.RECOVERING, allBack, self).effects()).containsExactly(
                new Stand(new Round(1, 1, true)), new AskStatus(List.of(A, C), 1));
    }

    @Test
    void answersOfARoundThePhaseMovedOnFromAreIgnored() {
        Round first = standAfterThePrimaryIsLost();
        Round second = standAfterThePrimaryIsLost();
        List<Election.@Nullable Rival> answers = answers(rival(C, ReplicaRole.SECONDARY, 1, 1));

        assertThat(election.answered(null, first.number(), answers, primaryLost(), self).isEmpty())
                .as("promoted, stepped down or closed meanwhile").isTrue();
        assertThat(election.answered(second, first.number(), answers, primaryLost(), self).isEmpty())
                .as("in a later round").isTrue();
    }

    @Test
    void aRoundEndsWithoutAWinIfTheEpochMovedOrALivePrimaryAppearedMeanwhile() {
        Round round = standAfterThePrimaryIsLost();
        List<Election.@Nullable Rival> answers = answers(rival(C, ReplicaRole.SECONDARY, 1, 1));

        List<Replica> newPrimary = List.of(replica(D, ReplicaRole.PRIMARY, 2), replica(B, ReplicaRole.SECONDARY, 1));
        assertThat(election.answered(round, round.number(), answers, newPrimary, self).effects())
                .containsExactly(new RoundOver());
        self.epoch = 2;
        assertThat(election.answered(round, round.number(), answers, primaryLost(), self).effects())
                .containsExactly(new RoundOver());
    }

    @Test
    void aRivalThatIsPrimaryOrRanksHigherOrDidNotAnswerMeansNoWin() {
        Round round = standAfterThePrimaryIsLost();

        for (List<Election.@Nullable Rival> answers : List.of(answers(rival(C, ReplicaRole.PRIMARY, 1, 1)),
                answers(rival(C, ReplicaRole.SECONDARY, 1, 6)), answers(rival(C, ReplicaRole.SECONDARY, 1, 1), null))) {
            assertThat(election.answered(round, round.number(), answers, primaryLost(), self).effects())
                    .as("answers %s", answers).containsExactly(new RoundOver());
        }
    }

    @Test
    void theWinnerLeadsAboveEveryEpochSeenWithTheSecondariesAsFollowersAndTellsTheOthers() {
        Round round = standAfterThePrimaryIsLost();
        List<Election.@Nullable Rival> answers = answers(rival(C, ReplicaRole.SECONDARY, 3, 4),
                rival(D, ReplicaRole.RECOVERING, 1, 9));

        assertThat(election.answered(round, round.number(), answers, primaryLost(), self).effects()).containsExactly(
                new RoundOver(), new BecomePrimary(4, Map.of(C, 4L), List.of(D), "primary lost"));
    }

    @Test
    void aCatastrophicElectionCountsRecoveringRivalsAsCandidates() {
        Round round = new Round(1, 1, true);
        List<Replica> view = List.of(replica(B, ReplicaRole.RECOVERING, 1), replica(C, ReplicaRole.RECOVERING, 1));

        assertThat(election.answered(round, 1, answers(rival(C, ReplicaRole.RECOVERING, 1, 9)), view, self).effects())
                .as("a recovering rival's log is more complete").containsExactly(new RoundOver());
        assertThat(election.answered(round, 1, answers(rival(C, ReplicaRole.RECOVERING, 1, 4)), view, self).effects())
                .containsExactly(new RoundOver(),
                        new BecomePrimary(2, Map.of(), List.of(C), "all configured replicas are back"));
    }

    @Test
    void anOperatorsPromoteIsRefusedWhileALivePrimaryExists() {
        List<Replica> view = List.of(replica(A, ReplicaRole.PRIMARY, 1), replica(B, ReplicaRole.SECONDARY, 1));

        assertThat(election.promote(false, view, self).effects())
                .containsExactly(new AnswerPromote(false, "a live primary exists: a", 1));
        assertThat(election.promote(true, primaryLost(), self).effects())
                .containsExactly(new AnswerOnceAnnounced(1, "already primary"));
    }

    @Test
    void aPromotedReplicaLeadsAboveEveryAnnouncedEpochAndIsAnsweredOnceAnnounced() {
        // after an outage the most complete survivor never heard of the last primary's epoch 7, which c announces
        List<Replica> view = List.of(replica(B, ReplicaRole.RECOVERING, 1), replica(C, ReplicaRole.RECOVERING, 7),
                replica(D, ReplicaRole.RECOVERING, 2));

        assertThat(election.promote(false, view, self).effects()).containsExactly(
                new Warn("promoted by an operator with log end 5"),
                new BecomePrimary(8, Map.of(), List.of(C, D), "operator"), new AnswerOnceAnnounced(8, ""));
    }
}
