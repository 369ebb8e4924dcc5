package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntSupplier;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * A leader's view of its followers ({@code docs/protocols/replication.md}): for each, how far its log
 * is known to match the leader's, what to send it next, how many messages are in flight, and when it
 * last answered; and the {@link CommitRule} that turns those positions into a commit point. Both
 * leaders use it: {@code majority} mode's {@code QuorumLeader} and fail-stop's {@code PrimaryPipeline}.
 * It only decides: the caller sends, logs and answers, and passes the time in.
 *
 * <p>Thread-safety: not thread-safe; confined to its leader's partition executor.
 */
public final class LeaderProgress {
    /** How many catch-up batches a follower whose log matches may have in flight ({@link CommitRule#MAJORITY}). */
    public static final int CATCH_UP_IN_FLIGHT = 3;

    /** Which acknowledgements commit a record. */
    public enum CommitRule {
        /**
         * {@code majority} mode: a record commits once a majority of the counted replicas (the leader
         * included) logged it durably, and only a record of the leader's own epoch commits by counting;
         * older ones commit with it (Raft §5.4.2). Nobody is excluded: a slow follower just does not count.
         */
        MAJORITY,
        /**
         * Fail-stop: a record commits once the leader logged it durably and every in-sync follower
         * acknowledged it. A follower that does not keep up is excluded by the caller ({@link #forget}).
         */
        ALL_IN_SYNC
    }

    /** One follower's progress. */
    private static final class Follower {
        final NodeId node;
        /** The next LSN to send it. */
        long next;
        /** The LSN up to which its log is known to match the leader's, durably. */
        long match;
        /** {@link CommitRule#ALL_IN_SYNC}: the records up to this LSN no longer wait for it. */
        long cleared;
        int inFlight;
        /** Its log differs or has a gap after {@link #match}: one message at a time until it matches. */
        boolean probing = true;
        long lastSendNanos;
        /** The send time of the latest message it answered at the leader's epoch. */
        long contactNanos;
        boolean hasContact;
        /** When its latest answer at the leader's epoch arrived (valid once {@link #hasContact}). */
        long answeredNanos;
        /** Why it last refused records, empty after an accept. */
        String refusal = "";

        Follower(NodeId node, long next) {
            this.node = node;
            this.next = next;
        }
    }

    private final CommitRule rule;
    private final NodeId self;
    private final long epoch;
    /** How many replicas make a majority: asked anew each time, since more replicas may be seen while leading. */
    private final IntSupplier quorum;
    /** Whether a replica's log and contact count towards the majority (a voter of the latest configuration). */
    private final Predicate<NodeId> counts;
    /** A hash map, as the leaders always had: the order in which followers are sent to is part of a simulation's trace. */
    private final Map<NodeId, Follower> followers = new HashMap<>();

    private LeaderProgress(CommitRule rule, NodeId self, long epoch, IntSupplier quorum, Predicate<NodeId> counts) {
        this.rule = rule;
        this.self = self;
        this.epoch = epoch;
        this.quorum = quorum;
        this.counts = counts;
    }

    /**
     * The progress of {@code self}, leading {@code epoch} in {@code majority} mode, where a majority is
     * {@code quorum} of the replicas {@code counts} accepts.
     */
    public static LeaderProgress majority(NodeId self, long epoch, IntSupplier quorum, Predicate<NodeId> counts) {
        return new LeaderProgress(CommitRule.MAJORITY, self, epoch, quorum, counts);
    }

    /** The progress of {@code self}, a fail-stop primary whose writes wait for every in-sync follower. */
    public static LeaderProgress allInSync(NodeId self) {
        return new LeaderProgress(CommitRule.ALL_IN_SYNC, self, 0, () -> 1, node -> true);
    }

    // ---- who is followed

    /** Starts tracking {@code node} with {@code next} as the next LSN to send it, unless it is tracked. */
    public void track(NodeId node, long next) {
        followers.computeIfAbsent(node, n -> new Follower(n, next));
    }

    /**
     * Tracks {@code node} anew ({@link CommitRule#ALL_IN_SYNC}): its log matches up to {@code match},
     * the records up to {@code cleared} do not wait for it, and {@code sentUpTo} was sent.
     */
    public void follow(NodeId node, long match, long cleared, long sentUpTo) {
        Follower f = new Follower(node, sentUpTo + 1);
        f.match = match;
        f.cleared = cleared;
        followers.put(node, f);
    }

    /** Stops tracking {@code node}; whether it was tracked. */
    public boolean forget(NodeId node) {
        return followers.remove(node) != null;
    }

    /** Stops tracking every follower. */
    public void clear() {
        followers.clear();
    }

    /** Whether {@code node} is tracked (for {@link CommitRule#ALL_IN_SYNC}: in sync). */
    public boolean follows(NodeId node) {
        return followers.containsKey(node);
    }

    /** The tracked followers, in an order that is the same from one run to the next. */
    public List<NodeId> followers() {
        return List.copyOf(followers.keySet());
    }

    /** How far {@code node}'s log is known to match the leader's, or -1 if it is not tracked. */
    public long match(NodeId node) {
        Follower f = followers.get(node);
        return f == null ? -1 : f.match;
    }

    /** Notes that {@code node} has logged up to {@code lsn}, if it is tracked; whether it is. */
    public boolean logged(NodeId node, long lsn) {
        Follower f = followers.get(node);
        if (f == null) {
            return false;
        }
        f.match = Math.max(f.match, lsn);
        return true;
    }

    // ---- what to send

    /** The next LSN to send {@code node}. */
    public long next(NodeId node) {
        return of(node).next;
    }

    /** The last LSN sent to {@code node} (one before {@link #next}). */
    public long sentUpTo(NodeId node) {
        return of(node).next - 1;
    }

    /**
     * Whether a new record at {@code lsn} goes to {@code node} at once: it is tracked, was sent all
     * before it and (majority) is not probing.
     */
    public boolean takesNext(NodeId node, long lsn) {
        Follower f = followers.get(node);
        return f != null && f.next == lsn && (rule == CommitRule.ALL_IN_SYNC || !f.probing);
    }

    /**
     * Notes a message to {@code node} sent at {@code nowNanos} with the records {@code from}..{@code to}
     * (none if {@code to < from}, with {@code from} then {@link #next}), while the log ends at
     * {@code logEnd}; returns the LSN before them, which the follower's log must match.
     */
    public long sent(NodeId node, long from, long to, long logEnd, long nowNanos) {
        Follower f = of(node);
        long prev = from - 1;
        if (rule == CommitRule.ALL_IN_SYNC) {
            prev = to < from ? Math.min(prev, logEnd) : prev;
        } else if (prev > logEnd) {
            prev = logEnd; // the log was cut back (cannot happen while leading; be safe)
            f.next = prev + 1;
        }
        f.lastSendNanos = nowNanos;
        f.inFlight++;
        if (to >= from) {
            f.next = to + 1;
        }
        return prev;
    }

    /** Notes that {@code node} was told to install a snapshot at {@code nowNanos}; it answers like a refused message. */
    public void sentSnapshot(NodeId node, long nowNanos) {
        Follower f = of(node);
        f.lastSendNanos = nowNanos;
        f.inFlight++;
    }

    /** Whether {@code node} is due a heartbeat at {@code nowNanos}: nothing sent for {@code intervalNanos}, no probe out. */
    public boolean heartbeatDue(NodeId node, long nowNanos, long intervalNanos) {
        Follower f = of(node);
        return !(f.probing && f.inFlight > 0) && nowNanos - f.lastSendNanos >= intervalNanos;
    }

    /**
     * Whether to send {@code node} another catch-up batch now, the log ending at {@code logEnd}: one
     * message at a time while probing, else up to {@link #CATCH_UP_IN_FLIGHT}, so the next batch
     * travels and is logged while the follower applies the one before.
     */
    public boolean catchesUp(NodeId node, long logEnd) {
        Follower f = of(node);
        return f.next <= logEnd && f.inFlight < (f.probing ? 1 : CATCH_UP_IN_FLIGHT);
    }

    /** Whether {@code node} has nothing in flight and matches: a new commit point is news to it. */
    public boolean quiet(NodeId node) {
        Follower f = of(node);
        return f.inFlight == 0 && !f.probing;
    }

    // ---- what answers mean

    /** {@code node} answered (or failed to answer) one of the messages {@link #sent} to it. */
    public void answered(NodeId node) {
        of(node).inFlight--;
    }

    /** A message to {@code node} may be lost: go on from what it surely has. */
    public void lost(NodeId node) {
        Follower f = of(node);
        f.probing = true;
        f.next = f.match + 1;
    }

    /**
     * {@code node} answered, at the leader's epoch, a message sent at {@code sentNanos}; the answer
     * arrived at {@code answeredNanos}: it follows.
     */
    public void contacted(NodeId node, long sentNanos, long answeredNanos) {
        Follower f = of(node);
        if (!f.hasContact || sentNanos - f.contactNanos > 0) {
            f.contactNanos = sentNanos;
        }
        if (!f.hasContact || answeredNanos - f.answeredNanos > 0) {
            f.answeredNanos = answeredNanos;
        }
        f.hasContact = true;
    }

    /** {@code node} accepted records and has its log matching up to {@code lastLsn}; returns its match. */
    public long accepted(NodeId node, long lastLsn) {
        Follower f = of(node);
        f.match = Math.max(f.match, lastLsn);
        if (rule == CommitRule.ALL_IN_SYNC) {
            f.cleared = Math.max(f.cleared, f.match);
            return f.match;
        }
        f.refusal = "";
        f.probing = false;
        f.next = Math.max(f.next, f.match + 1);
        return f.match;
    }

    /**
     * {@code node}'s log ends at {@code lastLsn}, before what it was sent: a log written without fsync
     * that lost its tail in a machine crash, or (fail-stop) less than the leader assumed it had. Believe
     * the log end it names, or the leader would resend past its end forever. Returns its match.
     */
    public long gap(NodeId node, long lastLsn) {
        Follower f = of(node);
        f.probing = true;
        f.next = lastLsn + 1;
        if (rule == CommitRule.ALL_IN_SYNC) {
            f.match = lastLsn;
            f.cleared = Math.max(f.cleared, lastLsn);
        } else {
            f.match = Math.min(f.match, lastLsn);
        }
        return f.match;
    }

    /** {@code node}'s log differs from the leader's after {@code lastLsn}: probe from there. */
    public void mismatch(NodeId node, long lastLsn) {
        Follower f = of(node);
        f.probing = true;
        f.next = Math.max(f.match, lastLsn) + 1;
    }

    /** {@code node} refused records for {@code reason}; whether that reason is new (worth a warning). */
    public boolean refused(NodeId node, String reason) {
        Follower f = of(node);
        boolean news = !reason.equals(f.refusal);
        f.refusal = reason;
        lost(node);
        return news;
    }

    // ---- commit

    /**
     * {@link CommitRule#ALL_IN_SYNC}: a record at {@code lsn} was just assigned; every follower must
     * acknowledge it.
     */
    public void assigned(long lsn) {
        for (Follower f : followers.values()) {
            f.cleared = Math.min(f.cleared, lsn - 1);
        }
    }

    /** {@link CommitRule#ALL_IN_SYNC}: the followers the record at {@code lsn} still waits for. */
    public List<NodeId> awaiting(long lsn) {
        List<NodeId> nodes = new ArrayList<>();
        for (Follower f : followers.values()) {
            if (f.cleared < lsn) {
                nodes.add(f.node);
            }
        }
        return nodes;
    }

    /**
     * The commit point by the {@link CommitRule}, given the current one {@code committed} and that the
     * leader's own log is durable up to {@code ownDurable}; never below {@code committed}.
     */
    public long commitPoint(long ownDurable, long committed, LogView log) {
        if (rule == CommitRule.ALL_IN_SYNC) {
            long point = ownDurable;
            for (Follower f : followers.values()) {
                point = Math.min(point, f.cleared);
            }
            return Math.max(point, committed);
        }
        List<Long> positions = new ArrayList<>();
        if (counts.test(self)) {
            positions.add(ownDurable);
        }
        for (Follower f : followers.values()) {
            if (counts.test(f.node)) {
                positions.add(f.match);
            }
        }
        long majority = Math.min(Election.majorityPosition(positions, quorum.getAsInt()), log.lastLsn());
        // Only a record of this epoch commits by counting; older ones commit with it (Raft §5.4.2).
        return majority > committed && log.epochOf(majority) == epoch ? majority : committed;
    }

    // ---- contact

    /**
     * The time from which a majority is known to have followed this leader, {@code nowNanos} being
     * now: no other leader committed anything before it. {@link Long#MIN_VALUE} if unknown.
     */
    public long majoritySince(long nowNanos) {
        return majorityLatest(nowNanos, f -> f.contactNanos);
    }

    /**
     * When the latest answer of a majority arrived, {@code nowNanos} being now (the leader's own counts
     * as now): the check that it is still followed ({@link MajorityLease}), which is about liveness, so
     * an answer counts when it arrives, however late. {@link Long#MIN_VALUE} if a majority never answered.
     */
    public long majorityAnsweredAt(long nowNanos) {
        return majorityLatest(nowNanos, f -> f.answeredNanos);
    }

    /** The latest {@code time} a majority of the counted replicas reached, the leader's own being now. */
    private long majorityLatest(long nowNanos, ToLongFunction<Follower> time) {
        List<Long> times = new ArrayList<>();
        if (counts.test(self)) {
            times.add(nowNanos);
        }
        for (Follower f : followers.values()) {
            if (f.hasContact && counts.test(f.node)) {
                times.add(time.applyAsLong(f));
            }
        }
        return Election.majorityContact(times, quorum.getAsInt());
    }

    /** Whether {@code node} is the leader, or a follower that answered a message sent in the last {@code withinNanos}. */
    public boolean heardFrom(NodeId node, long nowNanos, long withinNanos) {
        if (node.equals(self)) {
            return true;
        }
        Follower f = followers.get(node);
        return f != null && f.hasContact && nowNanos - f.contactNanos < withinNanos;
    }

    /**
     * Whether {@code node} can take records now: the leader, or a follower {@link #heardFrom} that did
     * not refuse the last records it was sent (as one whose log fails, that installs a snapshot or that
     * diverged does).
     */
    public boolean takesRecords(NodeId node, long nowNanos, long withinNanos) {
        Follower f = followers.get(node);
        return node.equals(self) || heardFrom(node, nowNanos, withinNanos) && f != null && f.refusal.isEmpty();
    }

    /** How many counted replicas, the leader included, answered in the last {@code withinNanos}. */
    public int answeredWithin(long nowNanos, long withinNanos) {
        int count = counts.test(self) ? 1 : 0;
        for (Follower f : followers.values()) {
            if (f.hasContact && nowNanos - f.answeredNanos < withinNanos && counts.test(f.node)) {
                count++;
            }
        }
        return count;
    }

    /** Each follower as the leader sees it at {@code nowNanos}, for diagnostics. */
    public String describe(long nowNanos) {
        StringBuilder s = new StringBuilder();
        for (Follower f : followers.values()) {
            s.append("; ").append(f.node).append(" next ").append(f.next).append(" match ").append(f.match)
                    .append(" in flight ").append(f.inFlight).append(f.probing ? " probing" : "")
                    .append(" sent ").append(millis(nowNanos - f.lastSendNanos)).append(" ms ago")
                    .append(f.hasContact ? " heard " + millis(nowNanos - f.contactNanos) + " ms ago" : " never heard")
                    .append(counts.test(f.node) ? "" : " (not counted)");
        }
        return s.toString();
    }

    private Follower of(NodeId node) {
        Follower f = followers.get(node);
        if (f == null) {
            throw new IllegalArgumentException("node: " + node + " (expected: a tracked follower)");
        }
        return f;
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000;
    }
}
