package io.neptune.server.internal.replication;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.replication.PeerMessages.Vote;
import io.neptune.server.internal.replication.PeerMessages.VoteReply;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

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

    private VoteRound() {}

    /** Asks for votes at {@code epoch}; {@code won} gets the voters once a majority granted them. */
    static void ask(ReplicaCore core, Membership membership, long epoch, boolean preVote, boolean transfer,
            Candidate candidate, Consumer<Set<NodeId>> won) {
        List<Replica> view = core.peers.replicas(core.service, core.partition);
        Set<NodeId> granted = new HashSet<>();
        Set<NodeId> answered = new HashSet<>();
        int quorum = membership.quorum();
        Vote request = new Vote(core.service, core.partition, core.self.value(), epoch, core.log.lastEpoch(),
                core.log.lastLsn(), preVote, transfer);
        List<Replica> others = view.stream().filter(r -> !r.node().equals(core.self)).toList();
        if (quorum <= 1) {
            won.accept(granted);
            return;
        }
        for (Replica r : others) {
            core.within(core.peers.call(r.node(), core.service, core.partition, "vote", request, VoteReply.class),
                    TimeUnit.SECONDS.toMillis(1))
                    .whenComplete((answer, e) -> core.exec.execute(() -> {
                        if (!candidate.current()) {
                            return;
                        }
                        answered.add(r.node());
                        if (answer != null && answer.granted() && membership.counts(r.node())) {
                            granted.add(r.node());
                            if (granted.size() + 1 == quorum) {
                                won.accept(granted);
                            }
                            return;
                        }
                        if (answer != null) {
                            candidate.refusedAt(answer.epoch(), r.node());
                        }
                        if (answered.size() == others.size() && granted.size() + 1 < quorum) {
                            candidate.lost(granted.size() + 1, quorum);
                        }
                    }));
        }
        if (others.size() + 1 < quorum) {
            candidate.lost(1, quorum);
        }
    }
}
