package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.protocol.Ready.Append;
import io.neptune.server.internal.replication.protocol.Ready.Apply;
import io.neptune.server.internal.replication.protocol.Ready.NewerEpoch;
import io.neptune.server.internal.replication.protocol.Ready.ReadIndexAnswer;
import io.neptune.server.internal.replication.protocol.Ready.Send;
import io.neptune.server.internal.replication.protocol.Ready.SendSnapshot;
import io.neptune.server.internal.replication.protocol.Ready.Warn;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The decisions of a {@code majority}-mode primary for one epoch ({@code docs/protocols/replication.md}),
 * as a state machine: each input (a write to log, a follower's answer, a tick, this node's log
 * forced further, a read index asked) changes its state and returns a {@link Ready} with what to do:
 * the records to log, the {@code replicate} messages to send (what each follower lacks, heartbeats
 * carrying the commit point), the commit point to apply, the read indexes to answer. What each
 * follower has and what commits (the highest LSN of this epoch that a majority of the configured
 * replicas, this one included, logged durably) are its {@link LeaderProgress}'s, with the
 * {@link LeaderProgress.CommitRule#MAJORITY} rule. Nobody is excluded: a slow or unreachable replica
 * simply does not count towards the majority until it catches up.
 *
 * <p>It reads the log through a {@link LogView} and is told the time: no I/O, no threads, no clock.
 * Its driver ({@code QuorumLeader}) carries each {@link Ready} out and feeds the answers back.
 *
 * <p>Not thread-safe: confined to its driver's executor.
 */
public final class MajorityLeader {
    /**
     * How often an idle follower hears from the primary (250 ms): a quarter of the default election timeout.
     * Every 100 ms cost an idle 64-partition node three times fail-stop's CPU
     * (docs/benchmarks/failover-modes.md) for nothing a follower needs that often.
     */
    public static final long HEARTBEAT_NANOS = 250_000_000L;
    /** How long a read index waits for a majority to answer before it is refused (1 s). */
    public static final long READ_INDEX_TIMEOUT_NANOS = 1_000_000_000L;

    private final NodeId self;
    private final long epoch;
    private final LeaderProgress progress;
    private final LogView log;
    /**
     * The records this leader appended that its log view may not show yet: within a step, before its
     * driver hands them to the log, they are read from here (Raft's "unstable" entries).
     */
    private final List<LogRecord> unstable = new ArrayList<>();
    private final List<ReadIndexWaiter> readIndexWaiters = new ArrayList<>();
    private long nextReadIndex;
    private long commitLsn;

    private record ReadIndexWaiter(long id, long receivedNanos) {}

    /**
     * Leads {@code epoch} as {@code self} over {@code log}, whose writes up to {@code applied} are
     * applied, with followers and commit rule tracked by {@code progress}.
     */
    public MajorityLeader(NodeId self, long epoch, LeaderProgress progress, LogView log, long applied) {
        this.self = self;
        this.epoch = epoch;
        this.progress = progress;
        this.log = log;
        this.commitLsn = applied;
    }

    /** The epoch this primary leads. */
    public long epoch() {
        return epoch;
    }

    /**
     * {@code voters} granted their votes to messages sent at {@code sentNanos}, and the last grant
     * arrived at {@code wonNanos}: they count as contact, for reads from when the votes were asked
     * for and for the {@link #lease} from when they came.
     */
    public void votedBy(Set<NodeId> voters, long sentNanos, long wonNanos) {
        for (NodeId voter : voters) {
            follower(voter);
            progress.contacted(voter, sentNanos, wonNanos);
        }
    }

    /** Starts tracking {@code node}, a replica of the partition, if it is new. */
    public void follower(NodeId node) {
        progress.track(node, lastLsn() + 1);
    }

    /** Logs the no-op that opens this epoch and sends every replica ({@code members} too) what it lacks. */
    public Ready start(Set<NodeId> members, long nowNanos) {
        members.forEach(this::follower);
        LogRecord noop = new LogRecord(lastLsn() + 1, epoch, RecordKind.NOOP, RequestId.NONE, self.value(), 0, "",
                new byte[0]);
        Ready ready = new Ready();
        append(noop, ready);
        for (NodeId node : progress.followers()) {
            sendFrom(node, nowNanos, ready);
        }
        return ready;
    }

    /**
     * Logs {@code record}, a write or configuration of this epoch at the next LSN, and sends it to every
     * follower that takes it next (one still probing where its log matches waits for its answer).
     */
    public Ready append(LogRecord record, long nowNanos) {
        assert record.lsn() == lastLsn() + 1 && record.epoch() == epoch : record + " leading epoch " + epoch;
        Ready ready = new Ready();
        append(record, ready);
        for (NodeId node : progress.followers()) {
            if (progress.takesNext(node, record.lsn())) {
                send(node, List.of(record), nowNanos, ready);
            }
        }
        return ready;
    }

    /**
     * Periodic work: a heartbeat (carrying the commit point, resending what was lost) to each follower
     * not sent anything for {@link #HEARTBEAT_NANOS}, and a refusal to each read index that waited
     * {@link #READ_INDEX_TIMEOUT_NANOS}.
     */
    public Ready tick(long nowNanos) {
        Ready ready = new Ready();
        for (NodeId node : progress.followers()) {
            if (progress.heartbeatDue(node, nowNanos, HEARTBEAT_NANOS)) {
                sendFrom(node, nowNanos, ready);
            }
        }
        for (Iterator<ReadIndexWaiter> it = readIndexWaiters.iterator(); it.hasNext(); ) {
            ReadIndexWaiter w = it.next();
            if (nowNanos - w.receivedNanos > READ_INDEX_TIMEOUT_NANOS) {
                ready.add(new ReadIndexAnswer(w.id, false, 0));
                it.remove();
            }
        }
        return ready;
    }

    /**
     * A secondary asks for a read index at {@code nowNanos}; returns its id. It is answered with the
     * commit point once a majority answered a message sent after it arrived: then no other primary can
     * have committed anything before it arrived that the commit point misses.
     */
    public long readIndex(long nowNanos) {
        long id = ++nextReadIndex;
        readIndexWaiters.add(new ReadIndexWaiter(id, nowNanos));
        return id;
    }

    /**
     * {@code node} answered the message sent at {@code sentNanos} with {@code ack}, or the call failed
     * ({@code ack} null); {@code here} is this node as it is now.
     */
    public Ready acked(NodeId node, long sentNanos, @Nullable Ack ack, Local here) {
        Ready ready = new Ready();
        progress.answered(node);
        if (ack == null) {
            progress.lost(node);
            return ready;
        }
        if (ack.epoch() > epoch) {
            return ready.add(new NewerEpoch(ack.epoch(), node));
        }
        if (ack.epoch() == epoch) {
            progress.contacted(node, sentNanos, here.nowNanos()); // it answered as a follower of this epoch
        }
        if (ack.accepted()) {
            progress.accepted(node, ack.lastLsn());
        } else if (ack.reason().equals("gap")) {
            progress.gap(node, ack.lastLsn());
        } else if (ack.reason().equals("mismatch")) {
            progress.mismatch(node, ack.lastLsn());
        } else {
            if (progress.refused(node, ack.reason())) { // once per reason, not at every heartbeat
                ready.add(new Warn(node + " refused replication: " + ack.reason()));
            }
            return ready; // the next heartbeat retries
        }
        while (progress.catchesUp(node, lastLsn())) {
            sendFrom(node, here.nowNanos(), ready);
        }
        advance(here, ready);
        return ready;
    }

    /**
     * Moves the commit point to what a majority has of this epoch (after this node's log was forced
     * further, or any answer), applies it, and answers the read indexes a majority has answered since.
     */
    public Ready advance(Local here) {
        Ready ready = new Ready();
        advance(here, ready);
        return ready;
    }

    private void advance(Local here, Ready ready) {
        long point = progress.commitPoint(here.durable(), commitLsn, log);
        if (point > commitLsn) {
            commitLsn = point;
            ready.add(new Apply(commitLsn));
            for (NodeId node : progress.followers()) {
                if (progress.quiet(node)) {
                    sendFrom(node, here.nowNanos(), ready); // carries the new commit point
                }
            }
        } else if (here.applied() < Math.min(commitLsn, here.durable())) {
            ready.add(new Apply(commitLsn)); // this node's own force caught up with a commit point its followers reached first
        }
        long since = majoritySince(here.nowNanos());
        for (Iterator<ReadIndexWaiter> it = readIndexWaiters.iterator(); it.hasNext(); ) {
            ReadIndexWaiter w = it.next();
            if (since != Long.MIN_VALUE && since - w.receivedNanos >= 0) {
                ready.add(new ReadIndexAnswer(w.id, true, commitLsn));
                it.remove();
            }
        }
    }

    /** Stops leading: every read index still waiting is refused. */
    public Ready abandon() {
        Ready ready = new Ready();
        for (ReadIndexWaiter w : readIndexWaiters) {
            ready.add(new ReadIndexAnswer(w.id, false, 0));
        }
        readIndexWaiters.clear();
        return ready;
    }

    private void sendFrom(NodeId node, long nowNanos, Ready ready) {
        long next = progress.next(node);
        if (next < log.startLsn()) {
            // it needs records below the log's start: it installs a snapshot, then answers like a refused replicate
            progress.sentSnapshot(node, nowNanos);
            ready.add(new SendSnapshot(node, nowNanos));
            return;
        }
        send(node, batch(next), nowNanos, ready);
    }

    private void append(LogRecord record, Ready ready) {
        unstable.add(record);
        ready.add(new Append(record));
    }

    /** The LSN of the last record, counting those appended but not yet in the log view. */
    private long lastLsn() {
        unstable.removeIf(r -> r.lsn() <= log.lastLsn()); // the log has them now
        return unstable.isEmpty() ? log.lastLsn() : unstable.get(unstable.size() - 1).lsn();
    }

    /** What a {@code replicate} from {@code from} carries: the log view's batch, then what was appended since. */
    private List<LogRecord> batch(long from) {
        if (from > lastLsn()) {
            return List.of();
        }
        if (unstable.isEmpty()) {
            return log.batch(from);
        }
        if (from > log.lastLsn()) {
            return List.copyOf(unstable.subList((int) (from - unstable.get(0).lsn()), unstable.size()));
        }
        List<LogRecord> records = log.batch(from);
        if (records.get(records.size() - 1).lsn() < log.lastLsn()) {
            return records; // a full batch: the rest goes in the next
        }
        List<LogRecord> all = new ArrayList<>(records);
        all.addAll(unstable);
        return all;
    }

    /** Sends {@code records} (none: a heartbeat) to {@code node} with the commit point. */
    private void send(NodeId node, List<LogRecord> records, long nowNanos, Ready ready) {
        long from = records.isEmpty() ? progress.next(node) : records.get(0).lsn();
        long to = records.isEmpty() ? from - 1 : records.get(records.size() - 1).lsn();
        long prev = progress.sent(node, from, to, lastLsn(), nowNanos);
        ready.add(new Send(node, records, prev, commitLsn, nowNanos));
    }

    /** The commit point. */
    public long commitLsn() {
        return commitLsn;
    }

    /** Whether no write waits to commit. */
    public boolean idle() {
        return commitLsn >= lastLsn();
    }

    /** Whether a record of this epoch committed (the opening no-op at least): only then may a configuration follow. */
    public boolean committedOwnEpoch() {
        return commitLsn > 0 && log.epochOf(commitLsn) == epoch;
    }

    /** How far {@code node}'s log is known to match this one, or -1 if it is not followed. */
    public long match(NodeId node) {
        return progress.match(node);
    }

    /**
     * The time from which a majority is known to have followed this primary: no other primary
     * committed anything before it. {@link Long#MIN_VALUE} if unknown.
     */
    public long majoritySince(long nowNanos) {
        return progress.majoritySince(nowNanos);
    }

    /** Whether a majority answered this leader within the {@code timeoutNanos} before {@code nowNanos}. */
    public MajorityLease lease(long nowNanos, long timeoutNanos) {
        return new MajorityLease(progress.majorityAnsweredAt(nowNanos), progress.answeredWithin(nowNanos, timeoutNanos),
                nowNanos, timeoutNanos);
    }

    /** Whether {@code node} is this replica, or a follower that answered a message sent in the last {@code withinNanos}. */
    public boolean heardFrom(NodeId node, long nowNanos, long withinNanos) {
        return progress.heardFrom(node, nowNanos, withinNanos);
    }

    /**
     * Whether {@code node} can take records now: this replica, or a follower that answered a message
     * sent in the last {@code withinNanos} and did not refuse the last records it was sent (as one
     * whose log fails, that installs a snapshot or that diverged does).
     */
    public boolean takesRecords(NodeId node, long nowNanos, long withinNanos) {
        return progress.takesRecords(node, nowNanos, withinNanos);
    }

    /** Each follower as this leader sees it, for diagnostics. */
    public String describe(long nowNanos) {
        return "epoch " + epoch + ", commit " + commitLsn + progress.describe(nowNanos);
    }
}
