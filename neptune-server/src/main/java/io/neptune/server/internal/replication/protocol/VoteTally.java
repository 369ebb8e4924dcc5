package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import java.util.HashSet;
import java.util.Set;

/**
 * The count of one round of votes (or pre-votes) a {@code majority}-mode candidate asked of the
 * other replicas: it wins once a majority, its own vote included, granted it, and loses once every
 * replica asked answered without one. Only grants of voters of the partition's configuration count;
 * the caller says which answers are such grants.
 *
 * <p>Not thread-safe: confined to the candidate's executor.
 */
public final class VoteTally {
    /** Where the round stands after an answer. */
    public enum Outcome {
        /** Not decided yet (or decided by an earlier answer). */
        OPEN,
        /** This answer made the majority. */
        WON,
        /** This answer was the last one, and the votes fall short. */
        LOST
    }

    private final int quorum;
    private final int asked;
    private final Set<NodeId> granted = new HashSet<>();
    private final Set<NodeId> answered = new HashSet<>();

    /** A round that needs {@code quorum} votes, the candidate's own included, and asked {@code asked} other replicas. */
    public VoteTally(int quorum, int asked) {
        this.quorum = quorum;
        this.asked = asked;
    }

    /** Whether the candidate's own vote is a majority: it wins without asking anyone. */
    public boolean wonAlone() {
        return quorum <= 1;
    }

    /** Whether too few replicas were asked for a majority even if every one grants. */
    public boolean tooFewAsked() {
        return asked + 1 < quorum;
    }

    /** {@code voter}, a voter of the configuration, granted its vote. */
    public Outcome granted(NodeId voter) {
        answered.add(voter);
        granted.add(voter);
        return granted.size() + 1 == quorum ? Outcome.WON : lostIfLast();
    }

    /** {@code voter} refused, did not answer, or granted without being a voter of the configuration. */
    public Outcome notGranted(NodeId voter) {
        answered.add(voter);
        return lostIfLast();
    }

    /** LOST once every replica asked answered and the votes fall short, else OPEN. */
    private Outcome lostIfLast() {
        return answered.size() == asked && granted.size() + 1 < quorum ? Outcome.LOST : Outcome.OPEN;
    }

    /** The voters that granted their votes so far (a live view). */
    public Set<NodeId> voters() {
        return granted;
    }

    /** The votes so far, the candidate's own included. */
    public int votes() {
        return granted.size() + 1;
    }

    /** The votes a majority needs. */
    public int quorum() {
        return quorum;
    }
}
