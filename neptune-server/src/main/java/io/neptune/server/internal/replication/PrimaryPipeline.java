package io.neptune.server.internal.replication;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.PeerMessages.Demote;
import io.neptune.server.internal.replication.PeerMessages.ReplicaStatus;
import io.neptune.server.internal.replication.protocol.CommitWaiters;
import io.neptune.server.internal.replication.protocol.LeaderProgress;
import io.neptune.server.internal.replication.protocol.Ready;
import io.neptune.server.internal.replication.protocol.WriteDedup;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary's side of a level-2/3 partition ({@code docs/protocols/replication.md}): the writes
 * it logged and sent, each pending until it is durable here and every in-sync secondary
 * acknowledged it, and committing them in LSN order. The in-sync secondaries, how far each was
 * sent and acknowledged and what commits are decided by its {@link LeaderProgress} with the
 * {@link LeaderProgress.CommitRule#ALL_IN_SYNC} rule. A secondary that does not keep up is excluded
 * (fail-stop). Only a primary uses it; stepping down {@linkplain #abandon abandons} it.
 *
 * <p>Thread-safety: confined to the partition's serial executor, like its {@link PrimaryBackupReplica}.
 */
final class PrimaryPipeline {
    /** What the pipeline needs from its replica. */
    interface Host {
        /** Whether the replica is the primary (and not closed). */
        boolean leads();

        /** The primary cannot go on (log or storage failure, a newer epoch): it steps down to RECOVERING. */
        void stepDown(String why);

        /** A new write took {@code lsn} in {@code epoch}. */
        void assigned(long epoch, long lsn);

        /** Writes were applied and answered: the replica's commit point moved to {@code core.applied}. */
        void committed();

        /** The replica's state changed; publish it. */
        void publish();
    }

    private static final Logger logger = LoggerFactory.getLogger(PrimaryPipeline.class);

    private final ReplicaCore core;
    private final long ackTimeoutMillis;
    private final Host host;
    /** The in-sync secondaries: how far each was sent and acknowledged, and which writes wait for which. */
    private final LeaderProgress inSync;
    private final ReplicateSender sender;
    private final TreeMap<Long, Pending> pending = new TreeMap<>();
    /** The requests waiting for the {@link #pending} writes: each write and any retry of it that arrived meanwhile. */
    private final CommitWaiters waiters = new CommitWaiters();
    /** Committing a slice at a time: a {@link #commitReady} that did not finish queues the next. */
    private final ApplySlices slices;
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
     * A write the primary logged and sent, waiting for its log and its secondaries ({@link #inSync});
     * the requests waiting for it are in {@link #waiters}.
     */
    private static final class Pending {
        final LogRecord record;
        /** When it was sent (the replica's clock); it times out an ack timeout later. */
        long sentNanos;
        boolean logged;

        Pending(LogRecord record) {
            this.record = record;
        }
    }

    PrimaryPipeline(ReplicaCore core, long ackTimeoutMillis, Host host) {
        this.core = core;
        this.ackTimeoutMillis = ackTimeoutMillis;
        this.host = host;
        this.inSync = LeaderProgress.allInSync(core.self);
        this.sender = new ReplicateSender(core, (node, sentNanos, ack, e) -> onAck(node, ack, e));
        this.slices = new ApplySlices(core, host::leads, this::commitReady);
    }

    /**
     * Takes a client write: a retry is answered from what this log knows, a new write is logged,
     * sent to every in-sync secondary and answered once committed. A retry of a write an earlier
     * primary logged but did not commit is answered IN_DOUBT: only the next primary decides it.
     */
    void write(RequestMessage request, Consumer<ResponseMessage> reply) {
        WriteDedup seen = core.seen(request);
        if (seen instanceof WriteDedup.Answer answer) {
            reply.accept(answer.response());
            return;
        }
        if (seen instanceof WriteDedup.Logged logged) {
            if (pending.containsKey(logged.lsn())) {
                waiters.add(logged.lsn(), request.requestId(), reply);
            } else {
                reply.accept(ResponseMessage.error(request.requestId(), Status.IN_DOUBT, core.name + ": the write is"
                        + " logged here at LSN " + logged.lsn() + " by an earlier primary and not committed; the"
                        + " next primary decides it"));
            }
            return;
        }
        long lsn = core.log.lastLsn() + 1;
        // the origin names the primary that assigned the LSN: with the epoch, it tells two logs' records apart
        LogRecord record = new LogRecord(lsn, core.log.epoch(), RecordKind.WRITE, request.id(), core.self.value(), 0,
                request.method(), request.payload());
        Pending write = new Pending(record);
        inSync.assigned(lsn);
        waiters.add(lsn, request.requestId(), reply);
        pending.put(lsn, write);
        host.assigned(record.epoch(), lsn);
        logAndSend(write);
    }

    private void logAndSend(Pending write) {
        core.append(write.record).whenComplete((v, e) -> core.exec.execute(() -> {
            if (e != null) {
                logger.error("{}: REDO log append failed at {}; stepping down", core.name, write.record.lsn(), e);
                host.stepDown("log failure");
                return;
            }
            write.logged = true;
            commitReady();
        }));
        for (NodeId secondary : inSync.followers()) {
            if (inSync.takesNext(secondary, write.record.lsn())) {
                send(secondary, List.of(write.record));
            }
        }
        write.sentNanos = core.clock.getAsLong();
        host.publish();
    }

    /**
     * Periodic work (every tick): resends what may have been lost, and excludes the secondaries that
     * left a write unacknowledged for an ack timeout, unless this node woke from a pause within the
     * last ack timeout ({@link #resumed}).
     */
    void tick() {
        for (NodeId secondary : List.copyOf(resend)) {
            resend.remove(secondary);
            if (inSync.follows(secondary)) {
                inSync.lost(secondary);
                sendFrom(secondary, inSync.next(secondary));
            }
        }
        long now = core.clock.getAsLong();
        long timeout = TimeUnit.MILLISECONDS.toNanos(ackTimeoutMillis);
        for (Pending write : List.copyOf(pending.values())) {
            List<NodeId> awaiting = inSync.awaiting(write.record.lsn());
            if (awaiting.isEmpty() || now - write.sentNanos < timeout) {
                continue;
            }
            for (NodeId secondary : awaiting) {
                exclude(secondary, "no acknowledgement within " + ackTimeoutMillis + " ms");
            }
        }
    }

    /**
     * Notes a tick of the replica (every 100 ms, whatever its role); a gap longer than
     * {@link PrimaryBackupReplica#PAUSE_NANOS} means the process was paused.
     */
    void ticked() {
        long now = core.clock.getAsLong();
        if (lastTickNanos != 0 && now - lastTickNanos > PrimaryBackupReplica.PAUSE_NANOS) {
            resumed(now - lastTickNanos);
        }
        lastTickNanos = now;
    }

    /** This node just woke from a pause: for an ack timeout, it excludes nobody (see {@link #resumedNanos}). */
    private void resumed(long pausedNanos) {
        logger.warn("{}: nothing ran for {} ms: this process was paused (or starved); excluding no secondary for {} ms",
                core.name, TimeUnit.NANOSECONDS.toMillis(pausedNanos), ackTimeoutMillis);
        resumedNanos = core.clock.getAsLong();
        resend.addAll(inSync.followers());
    }

    private boolean mayExclude() {
        long now = core.clock.getAsLong();
        if (lastTickNanos != 0 && now - lastTickNanos > PrimaryBackupReplica.PAUSE_NANOS) {
            // a failed call or a timeout came due before the first tick after a pause: that is the pause
            resumed(now - lastTickNanos);
            lastTickNanos = now;
        }
        return resumedNanos == Long.MIN_VALUE
                || now - resumedNanos >= TimeUnit.MILLISECONDS.toNanos(ackTimeoutMillis);
    }

    /**
     * Starts leading with {@code followers} in sync up to their log ends. The unapplied tail of this
     * log becomes pending writes that commit once every follower has logged them, exactly like new
     * writes. {@link #catchUp} then sends each follower what it lacks.
     */
    void lead(List<ReplicaStatus> followers) {
        clear();
        for (ReplicaStatus follower : followers) {
            long logEnd = Math.min(follower.logEnd(), core.log.lastLsn());
            inSync.follow(NodeId.of(follower.node()), logEnd, logEnd, 0); // nothing sent yet: catchUp sends
        }
        long now = core.clock.getAsLong();
        for (long lsn = core.applied + 1; lsn <= core.log.lastLsn(); lsn++) {
            Pending write = new Pending(core.log.record(lsn).orElseThrow());
            write.sentNanos = now;
            write.logged = lsn <= core.durable;
            pending.put(lsn, write);
        }
    }

    /** Sends every follower what it lacks and commits what is ready (after {@link #lead}). */
    void catchUp() {
        for (NodeId secondary : inSync.followers()) {
            if (!inSync.follows(secondary)) {
                continue; // excluded while another was caught up
            }
            inSync.lost(secondary); // from what it has: nothing was sent yet
            sendFrom(secondary, inSync.next(secondary));
        }
        commitReady();
    }

    /** The in-sync secondaries, in an order that is the same from one run to the next. */
    List<NodeId> secondaries() {
        return inSync.followers();
    }

    /** Whether no write waits to commit. */
    boolean idle() {
        return pending.isEmpty();
    }

    /** Counts {@code node}, which joined with its log equal to this one up to {@code keep}, as in sync. */
    void follow(NodeId node, long keep) {
        // it has everything logged here (it joined): no write logged so far waits for it
        inSync.follow(node, keep, core.log.lastLsn(), core.log.lastLsn());
    }

    /** Whether {@code node} is in sync, noting that it has logged up to {@code lsn}. */
    boolean acknowledged(NodeId node, long lsn) {
        return inSync.logged(node, lsn);
    }

    /** Excludes the in-sync secondaries that left {@code view}. */
    void excludeAbsent(List<Replica> view) {
        for (NodeId secondary : secondaries()) {
            if (view.stream().noneMatch(r -> r.node().equals(secondary))) {
                exclude(secondary, "left the yellow page");
            }
        }
    }

    /** Answers every pending write with {@code answer} (by request id) and forgets all state. */
    void abandon(LongFunction<ResponseMessage> answer) {
        waiters.abandon(answer);
        clear();
    }

    private void clear() {
        resend.clear();
        pending.clear();
        waiters.clear();
        inSync.clear();
    }

    /**
     * Sends {@code secondary} a batch of records from {@code from} on; a secondary that needs records
     * below the log's start is excluded instead: it recovers, and installs a snapshot when it joins.
     */
    private void sendFrom(NodeId secondary, long from) {
        if (from < core.log.startLsn()) {
            exclude(secondary, "it needs records from " + from + ", below the log start " + core.log.startLsn());
            return;
        }
        send(secondary, core.batch(from));
    }

    /**
     * Sends {@code records} (none: a heartbeat) to {@code secondary} with the commit point and the
     * origin of the record before them; a secondary whose log ends below the log's start is excluded.
     */
    private void send(NodeId secondary, List<LogRecord> records) {
        // noted as sent first: that tells the record before the entries, for the secondary's log-matching check
        long from = records.isEmpty() ? inSync.next(secondary) : records.get(0).lsn();
        long to = records.isEmpty() ? from - 1 : records.get(records.size() - 1).lsn();
        long sentNanos = core.clock.getAsLong();
        long prev = inSync.sent(secondary, from, to, core.log.lastLsn(), sentNanos);
        if (prev < core.log.startLsn() - 1) {
            exclude(secondary, "it has records up to " + prev + ", below the log start " + core.log.startLsn());
            return;
        }
        String prevOrigin = prev == 0 ? null : core.log.originOf(prev);
        sender.send(new Ready.Send(secondary, records, prev, core.applied, sentNanos), core.log.epoch(), prevOrigin);
    }

    private void onAck(NodeId secondary, @Nullable Ack ack, @Nullable Throwable error) {
        if (!host.leads() || !inSync.follows(secondary)) {
            return;
        }
        if (error != null || ack == null) {
            exclude(secondary, "unreachable: " + (error == null ? "no reply" : error.getMessage()));
            return;
        }
        if (!ack.accepted()) {
            if (ack.epoch() > core.log.epoch()) {
                host.stepDown(secondary + " is at epoch " + ack.epoch());
                return;
            }
            if (!"gap".equals(ack.reason())) {
                exclude(secondary, ack.reason());
                return;
            }
        }
        if (ack.accepted()) {
            long acked = inSync.accepted(secondary, ack.lastLsn());
            if (acked >= inSync.sentUpTo(secondary) && acked < core.log.lastLsn()) {
                sendFrom(secondary, acked + 1); // catch it up, a batch at a time
            }
        } else {
            // A gap names where its log stops matching this one: what was assumed of it (its log end when this
            // primary took over) may have been too much.
            sendFrom(secondary, inSync.gap(secondary, ack.lastLsn()) + 1);
        }
        commitReady();
    }

    /**
     * Fail-stop: a secondary that did not keep up is treated as failed and must recover to rejoin.
     * Right after a pause it is not: what it missed is resent instead.
     */
    void exclude(NodeId secondary, String why) {
        if (!inSync.follows(secondary)) {
            return;
        }
        if (!mayExclude()) {
            logger.debug("{}: not excluding {} ({}) right after a pause; resending", core.name, secondary, why);
            resend.add(secondary);
            return;
        }
        logger.warn("{}: secondary {} excluded: {}", core.name, secondary, why);
        forget(secondary);
        core.peers.call(secondary, core.service, core.partition, "demote",
                new Demote(core.service, core.partition, core.log.epoch()), Ack.class);
    }

    /** Stops counting {@code secondary} as in sync: writes no longer wait for it. */
    void forget(NodeId secondary) {
        if (!inSync.forget(secondary)) {
            return;
        }
        commitReady();
    }

    /**
     * Applies and answers the writes at the head of {@link #pending} that are durable here and at
     * every in-sync secondary, a slice ({@value ApplySlices#APPLY_SLICE_MILLIS} ms) at a
     * time: a new primary's unapplied tail must not hold a pool thread for long.
     */
    void commitReady() {
        boolean any = false;
        long start = core.clock.getAsLong();
        while (!pending.isEmpty()) {
            if (any && slices.spent(start)) {
                slices.next();
                break;
            }
            Pending write = pending.firstEntry().getValue();
            long durableHere = write.logged ? Math.max(write.record.lsn(), core.durable) : core.durable;
            if (inSync.commitPoint(durableHere, core.applied, core.logView) < write.record.lsn()) {
                break;
            }
            if (!core.applyUpTo(write.record.lsn())) {
                // its followers applied (or will apply) this write: one of them serves while this one cannot
                host.stepDown("the write at LSN " + core.storageFailedAt() + " failed in storage");
                return;
            }
            pending.pollFirstEntry();
            waiters.answer(write.record.lsn(), core.cached(write.record.requestId()));
            any = true;
        }
        if (any) {
            host.committed();
            for (NodeId secondary : inSync.followers()) {
                if (inSync.follows(secondary) && inSync.sentUpTo(secondary) >= core.log.lastLsn()) {
                    send(secondary, List.of()); // carries the new commit point
                }
            }
            host.publish();
        }
    }
}
