package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.server.internal.replication.protocol.FailStopElection;
import io.neptune.server.internal.replication.protocol.Joiner;
import org.jspecify.annotations.Nullable;

/**
 * Where a fail-stop replica ({@link PrimaryBackupReplica}) stands, with the data of the operation
 * under way in it: the join of a {@link Joining} replica, the successor of one {@link HandingOver},
 * the round of an {@link Electing} one, the operator's handover away from a {@link Primary}. Leaving
 * a phase drops its data with it, so no field outlives the operation it belongs to. The published
 * {@link ReplicaRole} follows from the phase ({@link #role()}); the transitions allowed are a rule
 * over the phases' {@link Kind}s ({@link Kind#allowedFrom}), drawn in {@link PrimaryBackupReplica}'s
 * javadoc.
 *
 * <p>Immutable: a join attempt told more by its primary is a new {@link Joining} phase.
 */
sealed interface PrimaryBackupPhase {
    /** Which phase this is, for the transition table. */
    Kind kind();

    /** The role a replica in this phase announces. */
    ReplicaRole role();

    /**
     * While the role is {@code RECOVERING}: the primary whose join reply counted this replica among
     * its in-sync secondaries, the only one whose {@code replicate} it takes, or null. Acknowledging
     * another's, or one sent before the join reply, could acknowledge records the reply then truncates.
     */
    default @Nullable NodeId joinedTo() {
        return null;
    }

    /** The phases without their data: what the transition table is written over. */
    enum Kind {
        RECOVERING,
        JOINING,
        SECONDARY,
        HANDING_OVER,
        ELECTING,
        PRIMARY,
        CLOSED;

        /** Whether a replica in {@code from} may move to this kind of phase (see {@link PrimaryBackupReplica}). */
        boolean allowedFrom(Kind from) {
            return from == this || this == CLOSED || from != CLOSED && switch (this) {
                case RECOVERING, PRIMARY, CLOSED -> true;
                case JOINING -> from == RECOVERING || from == ELECTING;
                case SECONDARY -> from == JOINING || from == HANDING_OVER || from == ELECTING;
                case HANDING_OVER -> from == PRIMARY;
                case ELECTING -> from == SECONDARY || from == RECOVERING;
            };
        }
    }

    /**
     * Out of service (after a start, a step-down, an exclusion): joins a live primary at the next
     * tick. {@code joinedTo} is the primary whose join this replica left after the primary counted it
     * in sync (it was excluded meanwhile, or applying failed): it still takes that primary's
     * {@code replicate} until it joins again. Null after a start or a step-down.
     */
    record Recovering(@Nullable NodeId joinedTo) implements PrimaryBackupPhase {
        @Override
        public Kind kind() {
            return Kind.RECOVERING;
        }

        @Override
        public ReplicaRole role() {
            return ReplicaRole.RECOVERING;
        }
    }

    /**
     * Recovering, with {@code attempt} under way ({@link Joiner}): the primary's answer is on its way
     * or its records are being logged.
     */
    record Joining(Joiner.Attempt attempt) implements PrimaryBackupPhase {
        @Override
        public Kind kind() {
            return Kind.JOINING;
        }

        @Override
        public ReplicaRole role() {
            return ReplicaRole.RECOVERING;
        }

        @Override
        public @Nullable NodeId joinedTo() {
            return attempt.joinedTo();
        }
    }

    /** Follows the primary: logs what it sends, applies what it commits. */
    record Secondary() implements PrimaryBackupPhase {
        @Override
        public Kind kind() {
            return Kind.SECONDARY;
        }

        @Override
        public ReplicaRole role() {
            return ReplicaRole.SECONDARY;
        }
    }

    /**
     * Handed the primary role to {@code successor} a moment ago: follows, but until it hears from the
     * successor or {@code untilNanos} (on the replica's clock) passes, it answers a status as primary,
     * so that a rival electing meanwhile does not find the partition leaderless and take a second
     * primary.
     */
    record HandingOver(NodeId successor, long untilNanos) implements PrimaryBackupPhase {
        @Override
        public Kind kind() {
            return Kind.HANDING_OVER;
        }

        @Override
        public ReplicaRole role() {
            return ReplicaRole.SECONDARY;
        }

        /** Whether it still claims the primary role at {@code nowNanos}. */
        boolean claimsAt(long nowNanos) {
            return nowNanos - untilNanos < 0;
        }
    }

    /**
     * Asked its rivals for their status to take over a lost primary, in election {@code round}
     * ({@link FailStopElection}); it started {@code from} a {@link Secondary}, or a {@link Recovering}
     * replica if every replica was down and all configured ones are back ({@link #catastrophic()}), and
     * goes back there unless it wins.
     */
    record Electing(PrimaryBackupPhase from, FailStopElection.Round round) implements PrimaryBackupPhase {
        public Electing {
            if (!(from instanceof Secondary) && !(from instanceof Recovering)) {
                throw new IllegalArgumentException("from: " + from + " (expected: a secondary or recovering phase)");
            }
            if (round.catastrophic() != from instanceof Recovering) {
                throw new IllegalArgumentException("round: " + round + " (expected: catastrophic from a recovering phase"
                        + " only)");
            }
        }

        @Override
        public Kind kind() {
            return Kind.ELECTING;
        }

        @Override
        public ReplicaRole role() {
            return from.role();
        }

        @Override
        public @Nullable NodeId joinedTo() {
            return from.joinedTo();
        }

        /** Whether every replica was down: the election started from RECOVERING. */
        boolean catastrophic() {
            return from instanceof Recovering;
        }
    }

    /**
     * Leads: assigns LSNs and commits through its {@link PrimaryPipeline}. {@code handoff} is an
     * operator's handover away from it, or null; {@code pinned} if it leads by an operator's
     * move-primary, which refuses handovers by priority.
     */
    record Primary(@Nullable Handoff handoff, boolean pinned) implements PrimaryBackupPhase {
        @Override
        public Kind kind() {
            return Kind.PRIMARY;
        }

        @Override
        public ReplicaRole role() {
            return ReplicaRole.PRIMARY;
        }

        /** The replica an operator's handover under way hands the role to, or null. */
        @Nullable NodeId handingOffTo() {
            return handoff == null || handoff.done() ? null : handoff.target();
        }
    }

    /** Shut down: takes nothing and answers nothing more. */
    record Closed() implements PrimaryBackupPhase {
        @Override
        public Kind kind() {
            return Kind.CLOSED;
        }

        @Override
        public ReplicaRole role() {
            return ReplicaRole.RECOVERING;
        }
    }
}
