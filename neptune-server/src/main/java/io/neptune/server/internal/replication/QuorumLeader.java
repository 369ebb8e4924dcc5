package io.neptune.server.internal.replication;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.PeerMessages.Ack;
import io.neptune.server.internal.replication.PeerMessages.ReadIndexReply;
import io.neptune.server.internal.replication.protocol.CommitWaiters;
import io.neptune.server.internal.replication.protocol.LeaderProgress;
import io.neptune.server.internal.replication.protocol.WriteDedup;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.function.LongFunction;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary's side of a {@code majority}-mode partition ({@code docs/protocols/replication.md}):
 * it sends every other replica what it lacks, holds the writes waiting to commit and the commit
 * point, and answers read indexes. What each follower has, what to send it next, what commits
 * (the highest LSN of this epoch that a majority of the configured replicas, this one included,
 * logged durably) and since when a majority follows this primary (its lease) are decided by its
 * {@link LeaderProgress} with the {@link LeaderProgress.CommitRule#MAJORITY} rule. Nobody is
 * excluded: a slow or unreachable replica simply does not count towards the majority until it
 * catches up.
 *
 * <p>Thread-safety: confined to the partition's serial executor, like its {@link MajorityReplica}.
 */
final class QuorumLeader {
    /** What the leader needs from its replica. */
    interface Host {
        /** Whether the replica still leads the epoch this leader was started for. */
        boolean leads(long epoch);

        /** A reply showed a newer epoch: the replica must stop leading. */
        void newerEpoch(long epoch, NodeId from);

        /** The replica cannot go on leading (storage failure, no majority). */
        void stepDown(String why);

        /** The replica's state changed; publish it. */
        void publish();
    }

    private static final Logger logger = LoggerFactory.getLogger(QuorumLeader.class);
    /**
     * How often an idle follower hears from the primary: a quarter of the default election timeout.
     * Every 100 ms cost an idle 64-partition node three times fail-stop's CPU
     * (docs/benchmarks/failover-modes.md) for nothing a follower needs that often.
     */
    private static final long HEARTBEAT_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final long READ_INDEX_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ReplicaCore core;
    private final Host host;
    private final long epoch;
    private final LeaderProgress progress;
    private final ReplicateSender sender;
    /** The writes (and configurations) waiting to commit, each with the requests waiting for it. */
    private final CommitWaiters waiting = new CommitWaiters();
    private final ApplySlices slices;
    private final List<ReadIndexWaiter> readIndexWaiters = new ArrayList<>();
    private long commitLsn;

    private record ReadIndexWaiter(long receivedNanos, Consumer<Object> reply) {}

    /**
     * Starts leading {@code epoch} with a majority of {@code quorum}; {@code voters} granted their votes
     * to messages sent at {@code votesSentNanos}, which counts as contact for the lease.
     */
    QuorumLeader(ReplicaCore core, Host host, long epoch, IntSupplier quorum, Set<NodeId> voters, long votesSentNanos) {
        this(core, host, epoch, quorum, node -> true, voters, votesSentNanos);
    }

    /** Like the other constructor, counting only the replicas {@code counts} accepts ({@code docs/protocols/placement.md}). */
    QuorumLeader(ReplicaCore core, Host host, long epoch, IntSupplier quorum, Predicate<NodeId> counts,
            Set<NodeId> voters, long votesSentNanos) {
        this.core = core;
        this.host = host;
        this.epoch = epoch;
        this.progress = LeaderProgress.majority(core.self, epoch, quorum, counts);
        this.sender = new ReplicateSender(core, progress, this::onAck);
        this.slices = new ApplySlices(core, () -> host.leads(epoch), this::applyCommitted);
        this.commitLsn = core.applied;
        for (NodeId voter : voters) {
            follower(voter);
            progress.contacted(voter, votesSentNanos);
        }
    }

    /** Logs the no-op that opens this epoch and sends every replica what it lacks. */
    void start(Set<NodeId> members) {
        members.forEach(this::follower);
        LogRecord noop = new LogRecord(core.log.lastLsn() + 1, epoch, RecordKind.NOOP, RequestId.NONE,
                core.self.value(), 0, "", new byte[0]);
        core.append(noop);
        for (NodeId node : progress.followers()) {
            sendFrom(node);
        }
    }

    /** Starts tracking {@code node}, a replica of the partition, if it is new. */
    void follower(NodeId node) {
        progress.track(node, core.log.lastLsn() + 1);
    }

    /** The commit point. */
    long commitLsn() {
        return commitLsn;
    }

    /** Whether no write waits to commit. */
    boolean idle() {
        return waiting.isEmpty() && commitLsn >= core.log.lastLsn();
    }

    /** How far {@code node}'s log is known to match this one, or -1 if it is not followed. */
    long match(NodeId node) {
        return progress.match(node);
    }

    /**
     * The time (on this node's clock) from which a majority is known to have followed this primary:
     * no other primary committed anything before it. {@link Long#MIN_VALUE} if unknown.
     */
    long majoritySince() {
        return progress.majoritySince(core.clock.getAsLong());
    }

    /** Whether {@code node} is this replica, or a follower that answered a message sent in the last {@code withinNanos}. */
    boolean heardFrom(NodeId node, long withinNanos) {
        return progress.heardFrom(node, core.clock.getAsLong(), withinNanos);
    }

    /**
     * Whether {@code node} can take records now: this replica, or a follower that answered a message
     * sent in the last {@code withinNanos} and did not refuse the last records it was sent (as one
     * whose log fails, that installs a snapshot or that diverged does).
     */
    boolean takesRecords(NodeId node, long withinNanos) {
        return progress.takesRecords(node, core.clock.getAsLong(), withinNanos);
    }

    /** How many replicas, this one included, answered a message sent in the last {@code withinNanos}. */
    int inContact(long withinNanos) {
        return progress.inContact(core.clock.getAsLong(), withinNanos);
    }

    /**
     * Takes a client write: a retry is answered from what this log knows, a new write is logged and
     * sent, and answered once committed.
     */
    void write(RequestMessage request, Consumer<ResponseMessage> reply) {
        assert core.exec.inExecutor() : "off the partition's executor";
        WriteDedup seen = core.seen(request);
        if (seen instanceof WriteDedup.Answer answer) {
            reply.accept(answer.response());
            return;
        }
        if (seen instanceof WriteDedup.Logged logged) {
            // logged, not yet committed (maybe by an earlier primary): answered when it commits
            waiting.add(logged.lsn(), request.requestId(), reply);
            return;
        }
        long lsn = core.log.lastLsn() + 1;
        LogRecord record = new LogRecord(lsn, epoch, RecordKind.WRITE, request.id(), core.self.value(), 0,
                request.method(), request.payload());
        waiting.add(lsn, request.requestId(), reply);
        appendAndSend(record);
    }

    /**
     * Logs configuration {@code config} (whose LSN must be the next one, of this epoch) and sends it;
     * {@code answer} gets ALREADY_APPLIED once it committed and applied, or what {@link #abandon}
     * answers. The caller has written it to its {@link Membership} first.
     */
    void appendConfig(Membership.Config config, Consumer<ResponseMessage> answer) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (config.lsn() != core.log.lastLsn() + 1 || config.epoch() != epoch) {
            throw new IllegalArgumentException("config: " + config + " (expected: LSN " + (core.log.lastLsn() + 1)
                    + " of epoch " + epoch + ")");
        }
        waiting.add(config.lsn(), 0, answer);
        appendAndSend(config.record(core.self));
    }

    /** Whether a record of this epoch committed (the opening no-op at least): only then may a configuration follow. */
    boolean committedOwnEpoch() {
        return commitLsn > 0 && core.log.epochOf(commitLsn) == epoch;
    }

    private void appendAndSend(LogRecord record) {
        long lsn = record.lsn();
        core.append(record).whenComplete((v, e) -> {
            if (e != null) {
                core.exec.execute(() -> {
                    if (host.leads(epoch)) {
                        logger.error("{}: REDO log append failed at {}; stepping down", core.name, lsn, e);
                        host.stepDown("log failure");
                    }
                });
            }
        });
        for (NodeId node : progress.followers()) {
            if (progress.takesNext(node, lsn)) {
                send(node, List.of(record));
            }
        }
    }

    /** Each follower as this leader sees it; for diagnostics, on the partition's executor. */
    @Override
    public String toString() {
        return "QuorumLeader[epoch " + epoch + ", commit " + commitLsn + progress.describe(core.clock.getAsLong()) + ']';
    }

    /** Periodic work: heartbeats (which carry the commit point and retry what was lost) and timeouts. */
    void tick() {
        assert core.exec.inExecutor() : "off the partition's executor";
        long now = core.clock.getAsLong();
        for (NodeId node : progress.followers()) {
            if (progress.heartbeatDue(node, now, HEARTBEAT_NANOS)) {
                sendFrom(node);
            }
        }
        for (Iterator<ReadIndexWaiter> it = readIndexWaiters.iterator(); it.hasNext(); ) {
            ReadIndexWaiter w = it.next();
            if (now - w.receivedNanos > READ_INDEX_TIMEOUT_NANOS) {
                w.reply.accept(new ReadIndexReply(false, epoch, 0));
                it.remove();
            }
        }
    }

    /**
     * Answers a secondary's {@code readIndex} with the commit point once a majority answered a
     * message sent after it arrived: then no other primary can have committed anything before it
     * arrived that the commit point misses.
     */
    void readIndex(Consumer<Object> reply) {
        readIndexWaiters.add(new ReadIndexWaiter(core.clock.getAsLong(), reply));
    }

    private void sendFrom(NodeId node) {
        long next = progress.next(node);
        if (next < core.log.startLsn()) {
            installSnapshot(node);
            return;
        }
        send(node, next > core.log.lastLsn() ? List.of() : core.batch(next));
    }

    /**
     * {@code f} needs records below the log's start: it is told to install a snapshot from here, and
     * answers like a refused {@code replicate} (its log end once it has installed it: a gap).
     */
    private void installSnapshot(NodeId node) {
        long sentNanos = core.clock.getAsLong();
        progress.sentSnapshot(node, sentNanos);
        sender.answerOnExecutor(node, sentNanos, core.snapshots().tell(node));
    }

    /** Sends {@code records} (none: a heartbeat) to {@code node} with the commit point; its log's origins are not checked. */
    private void send(NodeId node, List<LogRecord> records) {
        sender.send(sender.prepare(node, records), epoch, commitLsn, null);
    }

    private void onAck(NodeId node, long sentNanos, @Nullable Ack ack, @Nullable Throwable error) {
        assert core.exec.inExecutor() : "off the partition's executor";
        progress.answered(node);
        if (!host.leads(epoch)) {
            return;
        }
        if (error != null || ack == null) {
            progress.lost(node);
            return;
        }
        if (ack.epoch() > epoch) {
            host.newerEpoch(ack.epoch(), node);
            return;
        }
        if (ack.epoch() == epoch) {
            progress.contacted(node, sentNanos); // it answered as a follower of this epoch: counts for the lease
        }
        if (ack.accepted()) {
            progress.accepted(node, ack.lastLsn());
        } else if (ack.reason().equals("gap")) {
            progress.gap(node, ack.lastLsn());
        } else if (ack.reason().equals("mismatch")) {
            progress.mismatch(node, ack.lastLsn());
        } else {
            if (progress.refused(node, ack.reason())) {   // once per reason, not at every heartbeat
                logger.warn("{}: {} refused replication: {}", core.name, node, ack.reason());
            }
            return; // the next heartbeat retries
        }
        while (progress.catchesUp(node, core.log.lastLsn())) {
            sendFrom(node);
        }
        advance();
    }

    /** Moves the commit point to what a majority has of this epoch, applies it, and answers read indexes. */
    void advance() {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (!host.leads(epoch)) {
            return;
        }
        long point = progress.commitPoint(core.durable, commitLsn, core.logView);
        if (point > commitLsn) {
            commitLsn = point;
            applyCommitted();
            for (NodeId node : progress.followers()) {
                if (progress.quiet(node)) {
                    sendFrom(node); // carries the new commit point
                }
            }
        } else if (core.applied < Math.min(commitLsn, core.durable)) {
            applyCommitted(); // this node's own force caught up with a commit point its followers reached first
        }
        long since = majoritySince();
        for (Iterator<ReadIndexWaiter> it = readIndexWaiters.iterator(); it.hasNext(); ) {
            ReadIndexWaiter w = it.next();
            if (since != Long.MIN_VALUE && since - w.receivedNanos >= 0) {
                w.reply.accept(new ReadIndexReply(true, epoch, commitLsn));
                it.remove();
            }
        }
    }

    /** Applies committed writes a slice at a time ({@link ApplySlices}) and answers their clients. */
    private void applyCommitted() {
        boolean ok = slices.apply(commitLsn);
        waiting.answerUpTo(core.applied, lsn -> core.cached(core.log.record(lsn).orElseThrow().requestId()));
        if (!ok) {
            host.stepDown("the write at LSN " + core.storageFailedAt() + " failed in storage");
            return;
        }
        host.publish();
        // Only what is durable here applies; the rest waits for this node's force, whose completion advances again.
        if (core.applied < Math.min(commitLsn, core.durable)) {
            slices.next();
        }
    }

    /** Answers every waiting write with {@code answer} (by request id) and every read index with a refusal. */
    void abandon(LongFunction<ResponseMessage> answer) {
        waiting.abandon(answer);
        for (ReadIndexWaiter w : readIndexWaiters) {
            w.reply.accept(new ReadIndexReply(false, epoch, 0));
        }
        readIndexWaiters.clear();
    }
}
