package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.server.internal.replication.protocol.Candidacy;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Where a {@code majority}-mode replica stands ({@link MajorityReplica}), with the operation it
 * carries out there as data of the phase: an operator's promote or take-over lives in the
 * candidacy it started, a handover and a placement change in the leadership that carries them out.
 * Leaving a phase drops what it held, so no operation outlives the phase it belongs to.
 *
 * <pre>
 * Follower  -&gt; Candidate (election timeout, promote, take-over, priority), Diverged, Closed
 * Candidate -&gt; Follower (lost, timed out, a newer epoch, another won), Leader (won), Closed
 * Leader    -&gt; Leader (a handover or a placement change starts), Follower (step down, handover), Closed
 * Diverged  -&gt; Closed
 * </pre>
 *
 * <p>A phase is a value: a candidacy is one round, told from the next one by identity, so the
 * answers to an abandoned round find the replica in another phase and are ignored.
 */
sealed interface MajorityPhase {
    /** Whether a replica in this phase may move to {@code next} (the table above). */
    boolean mayBecome(MajorityPhase next);

    /** Follows a primary (or waits for one). */
    record Follower() implements MajorityPhase {
        @Override
        public boolean mayBecome(MajorityPhase next) {
            return !(next instanceof Leader);
        }
    }

    /**
     * Asks for votes in one pre-vote and vote round.
     *
     * @param candidacy the round's decisions: where it stands, its epoch, its count of votes
     * @param promoteReply an operator's promote or take-over, answered when the round ends; or null
     * @param pinOnWin whether the leadership it wins is pinned (an operator's move-primary)
     */
    record Candidate(Candidacy candidacy, @Nullable Consumer<Object> promoteReply, boolean pinOnWin)
            implements MajorityPhase {
        /**
         * A new candidacy; a {@code transfer} skips the pre-vote and asks voters to ignore a primary heard
         * lately (after a handover, a take-over or an operator's promote).
         */
        Candidate(boolean transfer, @Nullable Consumer<Object> promoteReply, boolean pinOnWin) {
            this(new Candidacy(transfer), promoteReply, pinOnWin);
        }

        @Override
        public boolean mayBecome(MajorityPhase next) {
            return next instanceof Follower || next instanceof Leader || next instanceof Closed;
        }

        /** Answers the operator's promote or take-over this candidacy carries, if any, as the round ended. */
        void answerPromote(boolean accepted, String reason, long epoch) {
            if (promoteReply != null) {
                promoteReply.accept(new PeerMessages.PromoteReply(accepted, reason, epoch));
            }
        }
    }

    /**
     * Leads the current epoch.
     *
     * @param leader the primary's side of the protocol for this epoch
     * @param pinned primary by an operator's move-primary: refuses handovers by priority
     * @param handoff an operator's handover away from this primary, or null
     * @param change an operator's placement change this primary carries out, or null
     */
    record Leader(QuorumLeader leader, boolean pinned, @Nullable Handoff handoff, @Nullable ConfigChange change)
            implements MajorityPhase {
        @Override
        public boolean mayBecome(MajorityPhase next) {
            return next instanceof Follower || next instanceof Closed
                    || next instanceof Leader other && other.leader == leader;
        }

        /** The replica an operator's handover under way gives the role to, or null. */
        @Nullable NodeId handingOffTo() {
            return handoff == null || handoff.done() ? null : handoff.target();
        }

        Leader withHandoff(Handoff next) {
            return new Leader(leader, pinned, next, change);
        }

        Leader withChange(@Nullable ConfigChange next) {
            return new Leader(leader, pinned, handoff, next);
        }
    }

    /** An applied record differs from the primary's: out of service until rebuilt. */
    record Diverged() implements MajorityPhase {
        @Override
        public boolean mayBecome(MajorityPhase next) {
            return next instanceof Closed;
        }
    }

    /** Shut down: takes nothing and answers nothing more. */
    record Closed() implements MajorityPhase {
        @Override
        public boolean mayBecome(MajorityPhase next) {
            return false;
        }
    }
}
