package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.replication.protocol.Ready.Announce;
import io.neptune.server.internal.replication.protocol.Ready.Append;
import io.neptune.server.internal.replication.protocol.Ready.ApplyReady;
import io.neptune.server.internal.replication.protocol.Ready.Debug;
import io.neptune.server.internal.replication.protocol.Ready.Demote;
import io.neptune.server.internal.replication.protocol.Ready.Send;
import io.neptune.server.internal.replication.protocol.Ready.StepDown;
import io.neptune.server.internal.replication.protocol.Ready.Warn;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The decisions of a fail-stop primary of a level-2/3 partition ({@code docs/protocols/replication.md}),
 * as a state machine: each input (a write to log, a secondary's answer or failed call, a tick, a
 * secondary joining or leaving) returns a {@link Ready} with what to do. Every write is pending until
 * it is durable here and every in-sync secondary acknowledged it, and commits in LSN order; which
 * secondaries are in sync, how far each was sent and acknowledged and what commits are its
 * {@link LeaderProgress}'s, with the {@link LeaderProgress.CommitRule#ALL_IN_SYNC} rule. A secondary
 * that does not keep up is excluded and demoted (fail-stop), except right after this node woke from a
 * pause: then what it missed is resent instead.
 *
 * <p>It reads the log through a {@link LogView} and is told the time: no I/O, no threads, no clock.
 * Its driver ({@code PrimaryPipeline}) carries each {@link Ready} out and feeds the answers back.
 *
 * <p>Not thread-safe: confined to its driver's executor.
 */
public final class InSyncLeader {
    private final LogView log;
    private final long ackTimeoutNanos;
    /** A gap between ticks longer than this means the process was paused. */
    private final long pauseNanos;
    /** The in-sync secondaries: how far each was sent and acknowledged, and which writes wait for which. */
    private final LeaderProgress inSync;
    private final TreeMap<Long, Pending> pending = new TreeMap<>();
    /**
     * When this node last woke from a pause (a SIGSTOP, a long GC, a frozen VM), or {@link Long#MIN_VALUE}.
     * For an ack timeout after it, nobody is excluded: every timer and failed call of the pause comes
     * due at once, while the secondaries may well be alive and following a newer primary, which their
     * answers to a resend will tell. Excluding them would let this primary commit alone.
     */
    private long resumedNanos = Long.MIN_VALUE;
    /** When the replica last ticked (its clock), 0 before the first tick. */
    private long lastTickNanos;
    /** Secondaries whose last message may be lost: resent from their acknowledged LSN at the next tick. */
    private final Set<NodeId> resend = new HashSet<>();
    /**
     * The replicas it started leading with (in sync or told) that have not answered at its epoch yet.
     * Until none is left, only this node may know the epoch: killed now, it could be led again by a
     * replica that never heard of it, so it is not to be announced as primary ({@link #epochHeld}).
     */
    private final Set<NodeId> unheard = new LinkedHashSet<>();
    /** Whether {@link Ready.Announce} was decided since {@link #lead}. */
    private boolean announced;

    /** A write logged and sent, waiting for this log and the in-sync secondaries. */
    private static final class Pending {
        final LogRecord record;
        /** When it was sent (the replica's clock); it times out an ack timeout later. */
        long sentNanos;
        boolean logged;

        Pending(LogRecord record) {
            this.record = record;
        }
    }

    /**
     * The primary {@code self} over {@code log}: a secondary that leaves a write unacknowledged for
     * {@code ackTimeoutNanos} is excluded; a gap of {@code pauseNanos} between ticks is a pause.
     */
    public InSyncLeader(NodeId self, LogView log, long ackTimeoutNanos, long pauseNanos) {
        this.log = log;
        this.ackTimeoutNanos = ackTimeoutNanos;
        this.pauseNanos = pauseNanos;
        this.inSync = LeaderProgress.allInSync(self);
    }

    /**
     * Starts leading with the secondaries {@code logEnds} names in sync up to their log ends. The
     * unapplied tail of this log becomes pending writes that commit once every secondary has logged
     * them, exactly like new writes. {@link #catchUp} then sends each secondary what it lacks, and
     * tells the replicas of {@code others}, which are not in sync (recovering), its epoch.
     */
    public void lead(Map<NodeId, Long> logEnds, Set<NodeId> others, Local here) {
        clear();
        unheard.addAll(logEnds.keySet());
        unheard.addAll(others);
        announced = false;
        logEnds.forEach((node, end) -> {
            long logEnd = Math.min(end, log.lastLsn());
            inSync.follow(node, logEnd, logEnd, 0); // nothing sent yet: catchUp sends
        });
        for (long lsn = here.applied() + 1; lsn <= log.lastLsn(); lsn++) {
            Pending write = new Pending(log.record(lsn));
            write.sentNanos = here.nowNanos();
            write.logged = lsn <= here.durable();
            pending.put(lsn, write);
        }
    }

    /**
     * Sends every secondary what it lacks, tells the others its epoch with a heartbeat (a replica
     * persists a newer epoch before it answers, even to refuse), and commits what is ready (after
     * {@link #lead}).
     */
    public Ready catchUp(Local here) {
        Ready ready = new Ready();
        for (NodeId secondary : inSync.followers()) {
            if (!inSync.follows(secondary)) {
                continue; // excluded while another was caught up
            }
            inSync.lost(secondary); // from what it has: nothing was sent yet
            sendFrom(secondary, inSync.next(secondary), here, ready);
        }
        for (NodeId other : unheard) {
            if (!inSync.follows(other)) {
                ready.add(new Send(other, List.of(), log.lastLsn(), here.applied(), here.nowNanos()));
            }
        }
        announceIfHeld(ready); // leading alone, at once
        return ready.add(new ApplyReady());
    }

    /** Whether the write at {@code lsn} is pending here (logged by this primary and not committed yet). */
    public boolean pending(long lsn) {
        return pending.containsKey(lsn);
    }

    /** Logs {@code record}, a new write at the next LSN, and sends it to every in-sync secondary that takes it next. */
    public Ready write(LogRecord record, Local here) {
        long lsn = record.lsn();
        inSync.assigned(lsn);
        Pending write = new Pending(record);
        pending.put(lsn, write);
        Ready ready = new Ready().add(new Append(record));
        for (NodeId secondary : inSync.followers()) {
            if (inSync.takesNext(secondary, lsn)) {
                send(secondary, List.of(record), here, ready);
            }
        }
        write.sentNanos = here.nowNanos();
        return ready;
    }

    /** The write at {@code lsn} is durable in this log. */
    public Ready logged(long lsn) {
        Pending write = pending.get(lsn);
        if (write != null) {
            write.logged = true;
        }
        return new Ready().add(new ApplyReady());
    }

    /**
     * The LSN of the first pending write if it is ready to commit (durable here, logged by every
     * in-sync secondary), else -1: its driver applies it, answers it and tells {@link #committed}.
     */
    public long committable(Local here) {
        if (pending.isEmpty()) {
            return -1;
        }
        Pending write = pending.firstEntry().getValue();
        long lsn = write.record.lsn();
        long durableHere = write.logged ? Math.max(lsn, here.durable()) : here.durable();
        return inSync.commitPoint(durableHere, here.applied(), log) < lsn ? -1 : lsn;
    }

    /** The first pending write, at {@code lsn}, was applied: it is no longer pending; returns it, to answer. */
    public LogRecord committed(long lsn) {
        Pending first = pending.pollFirstEntry().getValue();
        assert first.record.lsn() == lsn : first.record + " committed as " + lsn;
        return first.record;
    }

    /** Writes committed: each caught-up secondary hears the new commit point (this node's applied LSN). */
    public Ready announce(Local here) {
        Ready ready = new Ready();
        for (NodeId secondary : inSync.followers()) {
            if (inSync.follows(secondary) && inSync.sentUpTo(secondary) >= log.lastLsn()) {
                send(secondary, List.of(), here, ready);
            }
        }
        return ready;
    }

    /**
     * Periodic work: resends what may have been lost, and excludes the secondaries that left a write
     * unacknowledged for an ack timeout, unless this node woke from a pause within the last ack timeout.
     */
    public Ready tick(Local here) {
        Ready ready = new Ready();
        for (NodeId secondary : List.copyOf(resend)) {
            resend.remove(secondary);
            if (inSync.follows(secondary)) {
                inSync.lost(secondary);
                sendFrom(secondary, inSync.next(secondary), here, ready);
            }
        }
        for (Pending write : List.copyOf(pending.values())) {
            List<NodeId> awaiting = inSync.awaiting(write.record.lsn());
            if (awaiting.isEmpty() || here.nowNanos() - write.sentNanos < ackTimeoutNanos) {
                continue;
            }
            for (NodeId secondary : awaiting) {
                exclude(secondary, "no acknowledgement within " + millis(ackTimeoutNanos) + " ms", here, ready);
            }
        }
        return ready;
    }

    /** Notes a tick of the replica (whatever its role) at {@code nowNanos}; a long gap since the last one is a pause. */
    public Ready ticked(long nowNanos) {
        Ready ready = new Ready();
        if (lastTickNanos != 0 && nowNanos - lastTickNanos > pauseNanos) {
            resumed(nowNanos - lastTickNanos, nowNanos, ready);
        }
        lastTickNanos = nowNanos;
        return ready;
    }

    /** This node just woke from a pause: for an ack timeout, it excludes nobody (see {@link #resumedNanos}). */
    private void resumed(long pausedNanos, long nowNanos, Ready ready) {
        ready.add(new Warn("nothing ran for " + millis(pausedNanos) + " ms: this process was paused (or starved);"
                + " excluding no secondary for " + millis(ackTimeoutNanos) + " ms"));
        resumedNanos = nowNanos;
        resend.addAll(inSync.followers());
    }

    private boolean mayExclude(long nowNanos, Ready ready) {
        if (lastTickNanos != 0 && nowNanos - lastTickNanos > pauseNanos) {
            // a failed call or a timeout came due before the first tick after a pause: that is the pause
            resumed(nowNanos - lastTickNanos, nowNanos, ready);
            lastTickNanos = nowNanos;
        }
        return resumedNanos == Long.MIN_VALUE || nowNanos - resumedNanos >= ackTimeoutNanos;
    }

    /** {@code secondary} answered a {@code replicate} with {@code ack}. */
    public Ready acked(NodeId secondary, Ack ack, Local here) {
        Ready ready = new Ready();
        if (!ack.accepted() && ack.epoch() == log.epoch() && !epochHeld() && ReplicateGate.secondPrimary(ack.reason())) {
            // another replica was elected at this epoch too (their elections raced on stale statuses): this one was
            // never announced, so it leaves the epoch to the other, or to the next election if both do
            return ready.add(new StepDown(secondary + " refused its epoch: " + ack.reason()));
        }
        if (ack.epoch() == log.epoch()) {
            heard(secondary, ready); // it persisted the epoch before it answered, whatever its answer
        }
        if (!inSync.follows(secondary)) {
            return ready;
        }
        if (!ack.accepted()) {
            if (ack.epoch() > log.epoch()) {
                return ready.add(new StepDown(secondary + " is at epoch " + ack.epoch()));
            }
            if (!"gap".equals(ack.reason())) {
                exclude(secondary, ack.reason(), here, ready);
                return ready;
            }
        }
        if (ack.accepted()) {
            long acked = inSync.accepted(secondary, ack.lastLsn());
            if (acked >= inSync.sentUpTo(secondary) && acked < log.lastLsn()) {
                sendFrom(secondary, acked + 1, here, ready); // catch it up, a batch at a time
            }
        } else {
            // A gap names where its log stops matching this one: what was assumed of it (its log end when this
            // primary took over) may have been too much.
            sendFrom(secondary, inSync.gap(secondary, ack.lastLsn()) + 1, here, ready);
        }
        return ready.add(new ApplyReady());
    }

    /** A {@code replicate} to {@code secondary} failed ({@code why}): it is excluded. */
    public Ready lost(NodeId secondary, String why, Local here) {
        Ready ready = new Ready();
        if (!inSync.follows(secondary)) {
            heard(secondary, ready); // a replica it only told its epoch, unreachable: it does not wait for it
        }
        if (inSync.follows(secondary)) {
            exclude(secondary, "unreachable: " + why, here, ready);
        }
        return ready;
    }

    /** The in-sync secondaries, in an order that is the same from one run to the next. */
    public List<NodeId> secondaries() {
        return inSync.followers();
    }

    /** Whether no write waits to commit. */
    public boolean idle() {
        return pending.isEmpty();
    }

    /**
     * Whether every secondary it started leading with holds its epoch (answered at it) or no longer
     * counts (excluded, forgotten): only then is it announced as primary. Leading alone, at once.
     */
    public boolean epochHeld() {
        return unheard.isEmpty();
    }

    /** Counts {@code node}, which joined with its log equal to this one up to {@code keep}, as in sync. */
    public void follow(NodeId node, long keep) {
        // it has everything logged here (it joined): no write logged so far waits for it
        inSync.follow(node, keep, log.lastLsn(), log.lastLsn());
    }

    /** Whether {@code node} is in sync, noting that it has logged up to {@code lsn}. */
    public boolean acknowledged(NodeId node, long lsn) {
        return inSync.logged(node, lsn);
    }

    /** Excludes the in-sync secondaries not in {@code present} (the yellow page). */
    public Ready excludeAbsent(Set<NodeId> present, Local here) {
        Ready ready = new Ready();
        for (NodeId secondary : secondaries()) {
            if (!present.contains(secondary)) {
                exclude(secondary, "left the yellow page", here, ready);
            }
        }
        return ready;
    }

    /** Stops counting {@code secondary} as in sync: writes no longer wait for it. */
    public Ready forget(NodeId secondary) {
        Ready ready = new Ready();
        forget(secondary, ready);
        return ready;
    }

    private void forget(NodeId secondary, Ready ready) {
        heard(secondary, ready); // it no longer counts
        if (inSync.forget(secondary)) {
            ready.add(new ApplyReady());
        }
    }

    /** Forgets every pending write and secondary (stepping down; the driver answers the waiting requests). */
    public void clear() {
        resend.clear();
        unheard.clear();
        pending.clear();
        inSync.clear();
    }

    /**
     * Fail-stop: a secondary that did not keep up is treated as failed and must recover to rejoin.
     * Right after a pause it is not: what it missed is resent instead.
     */
    private void exclude(NodeId secondary, String why, Local here, Ready ready) {
        if (!inSync.follows(secondary)) {
            return;
        }
        if (!mayExclude(here.nowNanos(), ready)) {
            ready.add(new Debug("not excluding " + secondary + " (" + why + ") right after a pause; resending"));
            resend.add(secondary);
            return;
        }
        ready.add(new Warn("secondary " + secondary + " excluded: " + why));
        forget(secondary, ready);
        ready.add(new Demote(secondary));
    }

    /**
     * Sends {@code secondary} a batch of records from {@code from} on; a secondary that needs records
     * below the log's start is excluded instead: it recovers, and installs a snapshot when it joins.
     */
    private void sendFrom(NodeId secondary, long from, Local here, Ready ready) {
        if (from < log.startLsn()) {
            exclude(secondary, "it needs records from " + from + ", below the log start " + log.startLsn(), here, ready);
            return;
        }
        send(secondary, from > log.lastLsn() ? List.of() : log.batch(from), here, ready);
    }

    /**
     * Sends {@code records} (none: a heartbeat) to {@code secondary} with the commit point (this node's
     * applied LSN); a secondary whose log ends below the log's start is excluded.
     */
    private void send(NodeId secondary, List<LogRecord> records, Local here, Ready ready) {
        // noted as sent first: that tells the record before the entries, for the secondary's log-matching check
        long from = records.isEmpty() ? inSync.next(secondary) : records.get(0).lsn();
        long to = records.isEmpty() ? from - 1 : records.get(records.size() - 1).lsn();
        long prev = inSync.sent(secondary, from, to, Math.max(log.lastLsn(), to), here.nowNanos());
        if (prev < log.startLsn() - 1) {
            exclude(secondary, "it has records up to " + prev + ", below the log start " + log.startLsn(), here, ready);
            return;
        }
        ready.add(new Send(secondary, records, prev, here.applied(), here.nowNanos()));
    }

    /** {@code node} holds the epoch now, or no longer counts: announced once nobody is left unheard. */
    private void heard(NodeId node, Ready ready) {
        if (unheard.remove(node)) {
            announceIfHeld(ready);
        }
    }

    private void announceIfHeld(Ready ready) {
        if (!announced && unheard.isEmpty()) {
            announced = true;
            ready.add(new Announce());
        }
    }

    private static long millis(long nanos) {
        return nanos / 1_000_000;
    }
}
