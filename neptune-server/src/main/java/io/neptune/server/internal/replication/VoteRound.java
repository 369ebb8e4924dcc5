package io.neptune.server.internal.replication;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.replication.PeerMessages.Vote;
import io.neptune.server.internal.replication.PeerMessages.VoteReply;
import io.neptune.server.internal.replication.protocol.VoteTally;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One round of votes (or pre-votes) a {@code majority}-mode candidate asks of every other replica
 * in its yellow page: only voters of the partition's configuration count, the candidate's own vote
 * included, and answers of a round the candidate has left are ignored.
 *
 * <p>Thread-safety: confined to the partition's executor; answers are handled there.
 */
final class VoteRound {
    /** What the round reports to the replica that stands. */
    interface Candidate {
        /** Whether this round is still the candidate's current one (else answers are ignored). */
        boolean current();

        /** {@code voter} refused at {@code epoch}, which may be above the candidate's own. */
        void refusedAt(long epoch, NodeId voter);

        /** Every replica answered (or none could) and {@code votes} fell short of {@code quorum}. */
        void lost(int votes, int quorum);
    }

    private final Membership membership;
    private final Candidate candidate;
    private final Consumer<Set<NodeId>> won;
    private final VoteTally tally;

    private VoteRound(Membership membership, Candidate candidate, Consumer<Set<NodeId>> won, int asked) {
        this.membership = membership;
        this.candidate = candidate;
        this.won = won;
        this.tally = new VoteTally(membership.quorum(), asked);
    }

    /**
     * What a round asks for: votes at {@code epoch}, or pre-votes (which change nothing anywhere), and
     * whether for a transfer (a handover or an operator's promote: voters ignore a primary heard lately).
     */
    record Ballot(long epoch, boolean preVote, boolean transfer) {}

    /** Asks for {@code ballot}; {@code won} gets the voters once a majority granted them ({@link VoteTally}). */
    static void ask(ReplicaCore core, Membership membership, Ballot ballot, Candidate candidate,
            Consumer<Set<NodeId>> won) {
        List<Replica> view = core.peers.replicas(core.service, core.partition);
        Vote request = new Vote(core.service, core.partition, core.self.value(), ballot.epoch(), core.log.lastEpoch(),
                core.log.lastLsn(), ballot.preVote(), ballot.transfer());
        List<Replica> others = view.stream().filter(r -> !r.node().equals(core.self)).toList();
        VoteRound round = new VoteRound(membership, candidate, won, others.size());
        if (round.tally.wonAlone()) {
            won.accept(round.tally.voters());
            return;
        }
        for (Replica r : others) {
            core.within(core.peers.call(r.node(), core.service, core.partition, "vote", request, VoteReply.class),
                    TimeUnit.SECONDS.toMillis(1))
                    .whenComplete((answer, e) -> core.exec.execute(() -> round.answered(r.node(), answer)));
        }
        if (round.tally.tooFewAsked()) {
            candidate.lost(1, round.tally.quorum());
        }
    }

    /** {@code voter} answered with {@code answer}, or did not answer (null); on the executor. */
    private void answered(NodeId voter, @Nullable VoteReply answer) {
        if (!candidate.current()) {
            return;
        }
        VoteTally.Outcome outcome;
        if (answer != null && answer.granted() && membership.counts(voter)) {
            outcome = tally.granted(voter);
        } else {
            if (answer != null) {
                candidate.refusedAt(answer.epoch(), voter);
            }
            outcome = tally.notGranted(voter);
        }
        if (outcome == VoteTally.Outcome.WON) {
            won.accept(tally.voters());
        } else if (outcome == VoteTally.Outcome.LOST) {
            candidate.lost(tally.votes(), tally.quorum());
        }
    }
}
