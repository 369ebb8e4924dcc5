package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * One {@code majority}-mode candidacy for the primary role ({@code docs/protocols/replication.md}), as
 * a state machine: a pre-vote round, which changes nothing anywhere; if a majority would vote for
 * the candidate, the new epoch persisted (the candidate's own vote: it votes for nobody else at that
 * epoch); then the vote round at that epoch. A round is won once a majority, the candidate's own vote
 * included, granted it, and lost once every replica asked answered without one ({@link VoteTally}).
 * A transfer (after a handover, a take-over or an operator's promote) skips the pre-vote and asks
 * voters to ignore a primary heard lately. A voter that refuses the vote at a newer epoch makes the
 * candidate adopt that epoch, which ends the candidacy; every refusal tells its driver an epoch seen,
 * which the next candidacy asks above.
 *
 * <pre>
 * NEW -&gt; PRE_VOTE (start) -&gt; PERSISTING (pre-vote won) -&gt; VOTE (epoch persisted) -&gt; WON
 * NEW -&gt; PERSISTING (start of a transfer)
 * PRE_VOTE, PERSISTING, VOTE -&gt; ENDED (lost, a newer epoch, the epoch reached meanwhile)
 * </pre>
 *
 * <p>Each input (start, the epoch persisted, an answer or a missing one) returns the {@link Effect}s
 * to carry out, in order. It is told the time, the log's epoch and the replicas it may ask: no I/O,
 * no threads, no clock. The candidacy is over for its driver when it leaves the candidate's phase
 * for any reason (a newer primary heard from, a timeout, a close): answers that come later are not
 * fed to it.
 *
 * <p>Not thread-safe: confined to its driver's executor.
 */
public final class Candidacy {
    /** Where the candidacy stands. */
    public enum Stage {
        /** Not started. */
        NEW,
        /** Asks for pre-votes. */
        PRE_VOTE,
        /** Won the pre-vote (or is a transfer): waits for its new epoch to be persisted. */
        PERSISTING,
        /** Asks for votes at its new epoch. */
        VOTE,
        /** A majority voted for it: it is the primary of its epoch. */
        WON,
        /** Lost, or ended by a newer epoch. */
        ENDED
    }

    /**
     * What a round asks for: votes at {@code epoch}, or pre-votes (which change nothing anywhere), and
     * whether for a transfer (voters ignore a primary heard lately).
     */
    public record Ballot(long epoch, boolean preVote, boolean transfer) {}

    /**
     * What the candidate stands on as an input comes: its log's persisted epoch, the other replicas in
     * its yellow page (whom a round asks), the votes a majority needs and the time.
     */
    public record Standing(long logEpoch, List<NodeId> others, int quorum, long nowNanos) {
        public Standing {
            others = List.copyOf(others);
        }
    }

    /** A voter's answer to a ballot, or its silence. */
    public sealed interface Answer permits Granted, Refused, Missing {
        /** Who answered (or did not). */
        NodeId voter();
    }

    /** {@code voter}, a voter of the partition's configuration, granted the ballot. */
    public record Granted(NodeId voter) implements Answer {}

    /**
     * {@code voter} refused at {@code epoch}, or granted at it without being a voter of the partition's
     * configuration (it counts for nothing).
     */
    public record Refused(NodeId voter, long epoch) implements Answer {}

    /** {@code voter} did not answer in time, or could not be asked. */
    public record Missing(NodeId voter) implements Answer {}

    /** One thing to carry out. */
    public sealed interface Effect permits PersistEpoch, SendBallots, EpochSeen, AdoptEpoch, Won, Ended, Debug {}

    /**
     * Persist {@code epoch}, the candidate's own vote, and forget the primary of the old one; then tell
     * the candidacy ({@link #epochPersisted}).
     */
    public record PersistEpoch(long epoch) implements Effect {}

    /** Send {@code ballot} to each of {@code to}, and feed each answer (or its absence) back with the ballot. */
    public record SendBallots(Ballot ballot, List<NodeId> to) implements Effect {
        public SendBallots {
            to = List.copyOf(to);
        }
    }

    /** A voter refused at {@code epoch}: the next candidacy asks for an epoch above it. */
    public record EpochSeen(long epoch) implements Effect {}

    /** {@code from} refused the vote at {@code epoch}, newer than the log's: adopt it, which ends the candidacy. */
    public record AdoptEpoch(long epoch, NodeId from) implements Effect {
        /** Why the epoch is adopted, for the log and an operator's promote. */
        public String why() {
            return from + " is at epoch " + epoch;
        }
    }

    /** Become the primary of {@code epoch}, elected by {@code voters} with votes asked at {@code votesSentNanos}. */
    public record Won(long epoch, Set<NodeId> voters, long votesSentNanos) implements Effect {
        public Won {
            voters = Collections.unmodifiableSet(new LinkedHashSet<>(voters)); // kept in the order they voted
        }
    }

    /** The candidacy ended without winning ({@code why}): become a follower. */
    public record Ended(String why) implements Effect {}

    /** Log {@code message} for a developer (debug level). */
    public record Debug(String message) implements Effect {}

    private final boolean transfer;
    private Stage stage = Stage.NEW;
    private long epoch;
    /** The count of the round under way (a placeholder until the first round starts, replaced by each). */
    private VoteTally tally = new VoteTally(1, 0);
    private long votesSentNanos;

    /** A candidacy that is a {@code transfer} (it skips the pre-vote) or an election. */
    public Candidacy(boolean transfer) {
        this.transfer = transfer;
    }

    /** Whether it is a transfer: it skips the pre-vote and asks voters to ignore a primary heard lately. */
    public boolean transfer() {
        return transfer;
    }

    /** Where it stands. */
    public Stage stage() {
        return stage;
    }

    /** The epoch it stands at (0 before it started). */
    public long epoch() {
        return epoch;
    }

    /**
     * Starts the candidacy for the epoch above both the log's and {@code highestSeenEpoch}, the highest a
     * voter refused at: the pre-vote round, or for a transfer the new epoch at once.
     */
    public List<Effect> start(long highestSeenEpoch, Standing now) {
        if (stage != Stage.NEW) {
            throw new IllegalStateException("started twice: " + this);
        }
        epoch = Math.max(now.logEpoch(), highestSeenEpoch) + 1;
        List<Effect> effects = new ArrayList<>();
        if (transfer) {
            persist(now.logEpoch(), effects);
        } else {
            ask(true, now, effects);
        }
        return effects;
    }

    /** Its new epoch was persisted (the log's epoch is in {@code now}): the vote round starts. */
    public List<Effect> epochPersisted(Standing now) {
        if (stage != Stage.PERSISTING) {
            throw new IllegalStateException("no epoch to persist: " + this);
        }
        votesSentNanos = now.nowNanos();
        List<Effect> effects = new ArrayList<>();
        ask(false, now, effects);
        return effects;
    }

    /**
     * {@code answer} came to {@code ballot} while the log's epoch is {@code logEpoch}. An answer to the
     * pre-vote once the vote round is under way counts for nothing but the epoch it was refused at;
     * answers once the candidacy won or ended count for nothing at all.
     */
    public List<Effect> answered(Ballot ballot, Answer answer, long logEpoch) {
        List<Effect> effects = new ArrayList<>();
        if (stage == Stage.NEW || stage == Stage.WON || stage == Stage.ENDED || ballot.epoch() != epoch) {
            return effects;
        }
        boolean current = ballot.preVote() ? stage == Stage.PRE_VOTE : stage == Stage.VOTE;
        if (answer instanceof Refused refused) {
            effects.add(new EpochSeen(refused.epoch()));
            if (current && !ballot.preVote() && refused.epoch() > logEpoch) {
                stage = Stage.ENDED;
                effects.add(new AdoptEpoch(refused.epoch(), refused.voter()));
                return effects;
            }
        }
        if (!current) {
            return effects;
        }
        VoteTally.Outcome outcome = answer instanceof Granted ? tally.granted(answer.voter())
                : tally.notGranted(answer.voter());
        if (outcome == VoteTally.Outcome.WON) {
            won(logEpoch, effects);
        } else if (outcome == VoteTally.Outcome.LOST) {
            lost(logEpoch, effects);
        }
        return effects;
    }

    /** Asks the others in {@code now} for votes or pre-votes; a round needs nobody else when the candidate alone is a majority. */
    private void ask(boolean preVote, Standing now, List<Effect> effects) {
        stage = preVote ? Stage.PRE_VOTE : Stage.VOTE;
        tally = new VoteTally(now.quorum(), now.others().size());
        if (tally.wonAlone()) {
            won(now.logEpoch(), effects);
            return;
        }
        effects.add(new SendBallots(new Ballot(epoch, preVote, transfer), now.others()));
        if (tally.tooFewAsked()) {
            lost(now.logEpoch(), effects);
        }
    }

    /**
     * The round under way was won: the pre-vote moves on to persisting the new epoch; the vote makes the
     * candidate the primary, unless its log moved to another epoch meanwhile (then the round is void and
     * the election timer ends the candidacy).
     */
    private void won(long logEpoch, List<Effect> effects) {
        if (stage == Stage.PRE_VOTE) {
            persist(logEpoch, effects);
        } else if (logEpoch == epoch) {
            stage = Stage.WON;
            effects.add(new Won(epoch, tally.voters(), votesSentNanos));
        }
    }

    /** Persists the new epoch, unless the log reached it meanwhile (another candidate's vote, a newer primary). */
    private void persist(long logEpoch, List<Effect> effects) {
        if (epoch <= logEpoch) {
            end("epoch " + logEpoch + " was reached meanwhile", effects);
            return;
        }
        stage = Stage.PERSISTING;
        effects.add(new PersistEpoch(epoch));
    }

    private void lost(long logEpoch, List<Effect> effects) {
        String what = stage == Stage.PRE_VOTE ? "pre-vote" : "vote";
        effects.add(new Debug(what + " at epoch " + logEpoch + " got " + tally.votes() + " of " + tally.quorum()
                + " needed votes"));
        end(what + " got " + tally.votes() + " of " + tally.quorum() + " needed votes", effects);
    }

    private void end(String why, List<Effect> effects) {
        stage = Stage.ENDED;
        effects.add(new Ended(why));
    }

    @Override
    public String toString() {
        return (transfer ? "transfer " : "") + "candidacy at epoch " + epoch + ", " + stage;
    }
}
