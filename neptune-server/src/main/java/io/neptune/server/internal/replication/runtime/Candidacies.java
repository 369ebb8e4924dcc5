package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.replication.runtime.MajorityPhase.Candidate;
import io.neptune.server.internal.replication.runtime.MajorityPhase.Diverged;
import io.neptune.server.internal.replication.runtime.MajorityPhase.Leader;
import io.neptune.server.internal.replication.runtime.PeerMessages.Vote;
import io.neptune.server.internal.replication.runtime.PeerMessages.VoteReply;
import io.neptune.server.internal.replication.protocol.Candidacy;
import io.neptune.server.internal.replication.protocol.Election;
import io.neptune.server.internal.replication.protocol.LeaderProgress;
import io.neptune.server.internal.replication.protocol.MajorityLeader;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out a {@code majority}-mode replica's candidacies, which {@link Candidacy} decides: persists
 * the epoch a candidate votes itself at, sends its ballots to the other replicas in the yellow page,
 * and feeds their answers (or their silence) back on the partition's executor while the candidacy is
 * still the replica's phase. The phase transitions a candidacy ends in (won, lost, a newer epoch
 * adopted) are the replica's own, through its {@link Host}. It remembers the highest epoch a voter
 * refused at, which the next candidacy asks above.
 *
 * <p>Thread-safety: confined to the partition's executor; answers are handled there.
 */
final class Candidacies {
    private static final Logger logger = LoggerFactory.getLogger(Candidacies.class);

    /** The replica that stands: the transitions a candidacy ends in. */
    interface Host {
        /** The candidate persisted a new epoch of its own: the primary of the old one is forgotten. */
        void newEpoch();

        /**
         * A voter is at the newer {@code epoch}: the replica adopts it ({@code why}), which ends the
         * candidacy, and runs {@code then} once the epoch is durable.
         */
        void adoptEpoch(long epoch, String why, Runnable then);

        /** {@code candidate} won its election: the replica becomes the primary. */
        void won(Candidate candidate, Candidacy.Won won);

        /** The candidacy ended without winning ({@code why}): the replica follows. */
        void ended(String why);
    }

    private final ReplicaCore core;
    private final Membership membership;
    private final Host host;
    /** The replica's phase: a candidate's answers count while it is still the phase. */
    private final Supplier<MajorityPhase> phase;
    /** The highest epoch seen in refusals: the next candidacy asks for one above it. */
    private long highestSeenEpoch;

    /** The candidacies of {@code core}'s replica, whose phase {@code phase} reads. */
    Candidacies(ReplicaCore core, Membership membership, Supplier<MajorityPhase> phase, Host host) {
        this.core = core;
        this.membership = membership;
        this.phase = phase;
        this.host = host;
    }

    /** Starts {@code candidate}'s candidacy, which the replica just entered as its phase. */
    void start(Candidate candidate) {
        assert core.exec.inExecutor() : "off the partition's executor";
        carryOut(candidate, candidate.candidacy().start(highestSeenEpoch, standing()));
    }

    /** The decisions of this replica as the primary {@code won} made it. */
    MajorityLeader leaderOf(Candidacy.Won won) {
        LeaderProgress progress = LeaderProgress.majority(core.self, won.epoch(), membership::quorum, membership::counts);
        MajorityLeader leader = new MajorityLeader(core.self, won.epoch(), progress, core.logView, core.applied);
        leader.votedBy(won.voters(), won.votesSentNanos(), core.clock.getAsLong());
        return leader;
    }

    /** What the replica knows as an operator asks it to stand now ({@link Election#promoteRefusal}). */
    Election.Promotion promotion() {
        MajorityPhase now = phase.get();
        Replica live = core.peers.replicas(core.service, core.partition).stream()
                .filter(r -> r.role() == ReplicaRole.PRIMARY && !r.node().equals(core.self) && r.epoch() >= core.log.epoch())
                .findFirst().orElse(null);
        return new Election.Promotion(now instanceof Leader, membership.counts(core.self), membership.toString(),
                core.log.lostTailEnd(), core.snapshots().installing(), now instanceof Diverged,
                now instanceof Candidate c && c.promoteReply() != null, live == null ? null : live.node());
    }

    /** The other replicas of the partition in this node's yellow page, in its order: whom a round asks. */
    List<NodeId> others() {
        return core.peers.replicas(core.service, core.partition).stream()
                .map(Replica::node)
                .filter(node -> !node.equals(core.self))
                .toList();
    }

    /** What the candidate stands on now: its epoch, the others in its yellow page, the quorum, the time. */
    private Candidacy.Standing standing() {
        return new Candidacy.Standing(core.log.epoch(), others(), membership.quorum(), core.clock.getAsLong());
    }

    /**
     * Carries out {@code effects} of {@code candidate}'s candidacy in order. An epoch to persist or adopt
     * waits for its write: what comes after it runs once the epoch is durable.
     */
    private void carryOut(Candidate candidate, List<Candidacy.Effect> effects) {
        for (int i = 0; i < effects.size(); i++) {
            Candidacy.Effect effect = effects.get(i);
            List<Candidacy.Effect> rest = effects.subList(i + 1, effects.size());
            if (effect instanceof Candidacy.PersistEpoch persist) {
                // its own vote: it votes for nobody else at this epoch, and asks for votes only once that is durable
                core.persistEpoch(persist.epoch(), () -> {
                    host.newEpoch();
                    carryOut(candidate, candidate.candidacy().epochPersisted(standing()));
                    carryOut(candidate, rest);
                });
                return;
            } else if (effect instanceof Candidacy.AdoptEpoch adopt) {
                host.adoptEpoch(adopt.epoch(), adopt.why(), () -> carryOut(candidate, rest));
                return;
            } else if (effect instanceof Candidacy.SendBallots ballots) {
                send(candidate, ballots);
            } else if (effect instanceof Candidacy.EpochSeen seen) {
                highestSeenEpoch = Math.max(highestSeenEpoch, seen.epoch());
            } else if (effect instanceof Candidacy.Won won) {
                host.won(candidate, won);
            } else if (effect instanceof Candidacy.Ended ended) {
                host.ended(ended.why());
            } else if (effect instanceof Candidacy.Debug debug) {
                logger.debug("{}: {}", core.name, debug.message());
            }
        }
    }

    /** Sends the ballot to each voter; each answer, or its absence after a second, comes back on the executor. */
    private void send(Candidate candidate, Candidacy.SendBallots ballots) {
        Candidacy.Ballot ballot = ballots.ballot();
        Vote request = new Vote(core.service, core.partition, core.self.value(), ballot.epoch(), core.log.lastEpoch(),
                core.log.lastLsn(), ballot.preVote(), ballot.transfer());
        for (NodeId voter : ballots.to()) {
            core.within(core.peers.call(voter, core.request("vote", request), VoteReply.class),
                    TimeUnit.SECONDS.toMillis(1))
                    .whenComplete((reply, e) -> core.exec.execute(() -> answered(candidate, ballot, voter, reply)));
        }
    }

    /** {@code voter} answered {@code ballot} with {@code reply}, or did not answer (null); on the executor. */
    private void answered(Candidate candidate, Candidacy.Ballot ballot, NodeId voter, @Nullable VoteReply reply) {
        if (phase.get() == candidate) {
            carryOut(candidate, candidate.candidacy().answered(ballot, answer(voter, reply), core.log.epoch()));
        }
    }

    /** The answer as the candidacy counts it: only a grant of a voter of the partition's configuration counts. */
    private Candidacy.Answer answer(NodeId voter, @Nullable VoteReply reply) {
        if (reply == null) {
            return new Candidacy.Missing(voter);
        }
        if (reply.granted() && membership.counts(voter)) {
            return new Candidacy.Granted(voter);
        }
        return new Candidacy.Refused(voter, reply.epoch());
    }
}
