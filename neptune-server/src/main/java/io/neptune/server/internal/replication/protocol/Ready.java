package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import io.neptune.server.internal.log.LogRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one step of a leader decided, as data: the records to persist, the messages to send, the
 * writes to apply, the answers to give and what to log. Its driver carries the effects out in the
 * order they were decided, which is the order the protocol requires: a record is handed to the log
 * before the messages that carry it are sent, and a commit point is applied before the heartbeats
 * that announce it. The protocol never does any of it itself, so a test can read what a step
 * decided and deliver, drop or reorder its messages by hand.
 */
public final class Ready {
    /** One thing to carry out. */
    public sealed interface Effect
            permits Append, Send, SendSnapshot, Apply, ApplyReady, ReadIndexAnswer, NewerEpoch, StepDown, Demote, Warn,
            Debug, JoinUnderWay, AskJoin, AdoptEpoch, Truncate, AppendBatch, FollowPrimary, Diverged, Info, Recover,
            JoinAgain, ApplyToResume, Resume, Announce, Stand, AskStatus, RoundOver, BecomePrimary, AnswerPromote,
            AnswerOnceAnnounced {}

    /** Persist {@code record} at the end of the log (its LSN is the next one). */
    public record Append(LogRecord record) implements Effect {}

    /**
     * Send {@code records} (none: a heartbeat) to {@code to}, after its record at {@code prev}, with the
     * commit point {@code commitLsn}; noted in the leader's progress as sent at {@code sentNanos}, and its
     * answer is to come back with that time.
     */
    public record Send(NodeId to, List<LogRecord> records, long prev, long commitLsn, long sentNanos) implements Effect {
        public Send {
            records = List.copyOf(records);
        }
    }

    /** Tell {@code to}, which needs records below the log's start, to install a snapshot; its answer comes back like a send's. */
    public record SendSnapshot(NodeId to, long sentNanos) implements Effect {}

    /** Apply the committed writes up to {@code commitLsn} that are durable here, and answer their requests. */
    public record Apply(long commitLsn) implements Effect {}

    /**
     * Apply and answer the writes at the head of the pending ones that are ready to commit, as
     * {@link InSyncLeader#committable} tells them one at a time, then {@link InSyncLeader#announce} the new
     * commit point.
     */
    public record ApplyReady() implements Effect {}

    /** Answer the read index {@code id}: {@code ok} with the commit point {@code commitLsn}, or refused. */
    public record ReadIndexAnswer(long id, boolean ok, long commitLsn) implements Effect {}

    /** {@code from} answered with a newer {@code epoch}: the replica adopts it and stops leading. */
    public record NewerEpoch(long epoch, NodeId from) implements Effect {}

    /** The replica cannot go on leading ({@code why}): it steps down. */
    public record StepDown(String why) implements Effect {}

    /**
     * Announce the replica as primary: the others hold its epoch now ({@link InSyncLeader#epochHeld}), and
     * whoever waits for it to be announced (an operator's promote or take-over) is answered.
     */
    public record Announce() implements Effect {}

    /** Tell {@code to}, excluded from the in-sync secondaries, that it is no longer one: it recovers. */
    public record Demote(NodeId to) implements Effect {}

    /** Log {@code message} as a warning (an operator should hear of it). */
    public record Warn(String message) implements Effect {}

    /** Log {@code message} for a developer (debug level). */
    public record Debug(String message) implements Effect {}

    /** The join {@code attempt} is under way, started or told more ({@link Joiner}): the replica's phase holds it. */
    public record JoinUnderWay(Joiner.Attempt attempt) implements Effect {}

    /**
     * Ask {@code to}, the primary, to let this replica join, with its log end ({@code lastLsn} of
     * {@code lastEpoch}); its answer or failure goes back to {@link Joiner#replied} or {@link Joiner#failed}
     * with the number of the join {@code attempt}.
     */
    public record AskJoin(NodeId to, long lastLsn, long lastEpoch, long attempt) implements Effect {}

    /** Persist {@code epoch}, newer than the replica's, as its current epoch. */
    public record AdoptEpoch(long epoch) implements Effect {}

    /** Drop the log's records after {@code afterLsn}, none of them applied (the epoch starts are rebuilt). */
    public record Truncate(long afterLsn) implements Effect {}

    /**
     * Persist {@code records} at the end of the log in one step (one force for them all); once all are
     * durable, or one failed, tell {@link Joiner#logged} or {@link Joiner#logFailed} with the number of
     * the join {@code attempt}.
     */
    public record AppendBatch(List<LogRecord> records, long attempt) implements Effect {
        public AppendBatch {
            records = List.copyOf(records);
        }
    }

    /**
     * {@code primary} answered a join: the replica takes it as its primary (the one whose {@code replicate}
     * it takes at this epoch) and raises its commit point to {@code commitLsn}.
     */
    public record FollowPrimary(NodeId primary, long commitLsn) implements Effect {}

    /** Log {@code message} as an error: the replica diverged and needs to be rebuilt (repeated at most once a minute). */
    public record Diverged(String message) implements Effect {}

    /** Log {@code message} at info level. */
    public record Info(String message) implements Effect {}

    /**
     * The join attempt ended without resuming: the replica recovers, taking the {@code replicate} of
     * {@code joinedTo}, the primary that counted it in sync, or of no one (null); it joins again later.
     */
    public record Recover(@Nullable NodeId joinedTo) implements Effect {}

    /** Start a new join attempt with {@code target} at once ({@link Joiner#start}): the next batch. */
    public record JoinAgain(NodeId target) implements Effect {}

    /**
     * Apply the committed writes up to {@code commitLsn} that are durable here, and tell the join
     * {@code attempt} whether it succeeded ({@link Joiner#applied}).
     */
    public record ApplyToResume(long commitLsn, long attempt) implements Effect {}

    /** The replica joined and applied what its primary committed: it resumes as a secondary (recovery phase 3). */
    public record Resume() implements Effect {}

    /** The replica stands for primary in election {@code round} ({@link FailStopElection}): its phase holds it. */
    public record Stand(FailStopElection.Round round) implements Effect {}

    /**
     * Ask every one of {@code rivals} for its status, each within a second; once all answered or failed,
     * tell {@link FailStopElection#answered} with the number of the election {@code round}.
     */
    public record AskStatus(List<NodeId> rivals, long round) implements Effect {
        public AskStatus {
            rivals = List.copyOf(rivals);
        }
    }

    /** The election round under way is over: the replica goes back to the phase it stood from. */
    public record RoundOver() implements Effect {}

    /**
     * The replica becomes primary at {@code epoch} ({@code why}), with {@code followers} in sync up to their
     * log ends and the replicas of {@code others} told the epoch ({@link InSyncLeader#lead}).
     */
    public record BecomePrimary(long epoch, Map<NodeId, Long> followers, List<NodeId> others, String why)
            implements Effect {
        public BecomePrimary {
            followers = Collections.unmodifiableMap(new LinkedHashMap<>(followers));
            others = List.copyOf(others);
        }
    }

    /** Answer an operator's promote: {@code ok}, or refused for {@code reason}, at {@code epoch}. */
    public record AnswerPromote(boolean ok, String reason, long epoch) implements Effect {}

    /**
     * Answer an operator's promote once the replica, primary at {@code epoch}, is announced ({@link Announce}),
     * accepted with {@code reason}, or that it stepped down before.
     */
    public record AnswerOnceAnnounced(long epoch, String reason) implements Effect {}

    private final List<Effect> effects = new ArrayList<>();

    /** The effects in the order they are to be carried out. */
    public List<Effect> effects() {
        return Collections.unmodifiableList(effects);
    }

    /** Whether nothing is to be done. */
    public boolean isEmpty() {
        return effects.isEmpty();
    }

    Ready add(Effect effect) {
        effects.add(effect);
        return this;
    }

    @Override
    public String toString() {
        return "Ready" + effects;
    }
}
