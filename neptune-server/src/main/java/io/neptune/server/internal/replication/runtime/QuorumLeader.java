package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReadIndexReply;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.protocol.CommitWaiters;
import io.neptune.server.internal.replication.protocol.MajorityLeader;
import io.neptune.server.internal.replication.protocol.MajorityLease;
import io.neptune.server.internal.replication.protocol.Ready;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary's side of a {@code majority}-mode partition ({@code docs/protocols/replication.md}),
 * carried out: its {@link MajorityLeader} decides what to log, send, apply and answer; this driver
 * does it against the partition's log, its peers and its service, feeds the followers' answers and
 * this node's forces back, and keeps the client requests waiting for their writes to commit.
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

    private final ReplicaCore core;
    private final Host host;
    private final MajorityLeader leader;
    /** How recently a voter must have answered this leader to count as live ({@link #takesRecords}). */
    private final long liveWithinNanos;
    private final ReplicateSender sender;
    /** Carries out what {@link #leader} decides, handing this mode's own effects to {@link #carryOutOwn}. */
    private final LeaderEffects effects;
    /** The writes (and configurations) waiting to commit, each with the requests waiting for it. */
    private final CommitWaiters waiting = new CommitWaiters();
    private final ApplySlices slices;
    /** The secondaries' read indexes waiting for an answer, by the id {@link MajorityLeader#readIndex} gave them. */
    private final Map<Long, Consumer<Object>> readIndexes = new HashMap<>();

    /**
     * Carries out what {@code leader}, just elected, decides; {@code host} is its replica. A voter that
     * answered within {@code liveWithinNanos} (the election timeout) counts as live.
     */
    QuorumLeader(ReplicaCore core, Host host, MajorityLeader leader, long liveWithinNanos) {
        this.core = core;
        this.host = host;
        this.leader = leader;
        this.liveWithinNanos = liveWithinNanos;
        this.sender = new ReplicateSender(core, leader::epoch, false, this::onAck);
        // it learns what is durable here from this node's forces (advance): only a failed append is heard
        this.effects = new LeaderEffects(core, logger, sender, new LeaderEffects.FailuresWhile(this::leads),
                this::carryOutOwn);
        this.slices = new ApplySlices(core, this::leads, this::applyCommitted);
    }

    private boolean leads() {
        return host.leads(leader.epoch());
    }

    /** Logs the no-op that opens this epoch and sends every replica what it lacks. */
    void start(Set<NodeId> members) {
        effects.carryOut(leader.start(members, core.clock.getAsLong()));
    }

    /** Starts tracking {@code node}, a replica of the partition, if it is new. */
    void follower(NodeId node) {
        leader.follower(node);
    }

    /** The commit point. */
    long commitLsn() {
        return leader.commitLsn();
    }

    /** Whether no write waits to commit. */
    boolean idle() {
        return waiting.isEmpty() && leader.idle();
    }

    /** How far {@code node}'s log is known to match this one, or -1 if it is not followed. */
    long match(NodeId node) {
        return leader.match(node);
    }

    /** {@link MajorityLeader#majoritySince} now. */
    long majoritySince() {
        return leader.majoritySince(core.clock.getAsLong());
    }

    /** {@link MajorityLeader#heardFrom} now. */
    boolean heardFrom(NodeId node, long withinNanos) {
        return leader.heardFrom(node, core.clock.getAsLong(), withinNanos);
    }

    /** {@link MajorityLeader#takesRecords} now, within the live window this leader was given. */
    boolean takesRecords(NodeId node) {
        return leader.takesRecords(node, core.clock.getAsLong(), liveWithinNanos);
    }

    /** {@link MajorityLeader#lease} now. */
    MajorityLease lease(long timeoutNanos) {
        return leader.lease(core.clock.getAsLong(), timeoutNanos);
    }

    /** Whether a record of this epoch committed (the opening no-op at least): only then may a configuration follow. */
    boolean committedOwnEpoch() {
        return leader.committedOwnEpoch();
    }

    /**
     * Takes a client write: a retry is answered from what this log knows, a new write is logged and
     * sent, and answered once committed.
     */
    void write(RequestMessage request, Consumer<ResponseMessage> reply) {
        assert core.exec.inExecutor() : "off the partition's executor";
        // logged, not yet committed (maybe by an earlier primary): answered when it commits
        LogRecord record = core.nextWrite(request, leader.epoch(), reply,
                logged -> waiting.add(logged, request.requestId(), reply));
        if (record != null) {
            waiting.add(record.lsn(), request.requestId(), reply);
            effects.carryOut(leader.append(record, core.clock.getAsLong()));
        }
    }

    /**
     * Logs configuration {@code config} (whose LSN must be the next one, of this epoch) and sends it;
     * {@code answer} gets ALREADY_APPLIED once it committed and applied, or what {@link #abandon}
     * answers. The caller has written it to its {@link Membership} first.
     */
    void appendConfig(Membership.Config config, Consumer<ResponseMessage> answer) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (config.lsn() != core.log.lastLsn() + 1 || config.epoch() != leader.epoch()) {
            throw new IllegalArgumentException("config: " + config + " (expected: LSN " + (core.log.lastLsn() + 1)
                    + " of epoch " + leader.epoch() + ")");
        }
        waiting.add(config.lsn(), 0, answer);
        effects.carryOut(leader.append(config.record(core.self), core.clock.getAsLong()));
    }

    /** Each follower as this leader sees it; for diagnostics, on the partition's executor. */
    @Override
    public String toString() {
        return "QuorumLeader[" + leader.describe(core.clock.getAsLong()) + ']';
    }

    /** Periodic work: heartbeats (which carry the commit point and retry what was lost) and timeouts. */
    void tick() {
        assert core.exec.inExecutor() : "off the partition's executor";
        effects.carryOut(leader.tick(core.clock.getAsLong()));
    }

    /** Answers a secondary's {@code readIndex} as {@link MajorityLeader#readIndex} decides. */
    void readIndex(Consumer<Object> reply) {
        readIndexes.put(leader.readIndex(core.clock.getAsLong()), reply);
    }

    /** This node's log was forced further: what a majority has may commit now. */
    void advance() {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (leads()) {
            effects.carryOut(leader.advance(core.local()));
        }
    }

    private void onAck(NodeId node, long sentNanos, @Nullable Ack ack, @Nullable Throwable error) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (leads()) {
            effects.carryOut(leader.acked(node, sentNanos, error == null ? ack : null, core.local()));
        }
    }

    /** Carries out an effect that is {@code majority} mode's own ({@link LeaderEffects.Own}). */
    private void carryOutOwn(Ready.Effect effect) {
        if (effect instanceof Ready.SendSnapshot s) {
            sender.answerOnExecutor(s.to(), s.sentNanos(), core.snapshots().tell(s.to()));
        } else if (effect instanceof Ready.Apply) {
            applyCommitted();
        } else if (effect instanceof Ready.ReadIndexAnswer r) {
            answerReadIndex(r);
        } else if (effect instanceof Ready.NewerEpoch n) {
            host.newerEpoch(n.epoch(), n.from());
        } else if (effect instanceof Ready.StepDown s) {
            host.stepDown(s.why());
        } else {
            throw new IllegalStateException("a majority primary decided " + effect);
        }
    }

    private void answerReadIndex(Ready.ReadIndexAnswer answer) {
        Consumer<Object> reply = readIndexes.remove(answer.id());
        if (reply != null) {
            reply.accept(new ReadIndexReply(answer.ok(), leader.epoch(), answer.commitLsn()));
        }
    }

    /** Applies committed writes a slice at a time ({@link ApplySlices}) and answers their clients. */
    private void applyCommitted() {
        long commitLsn = leader.commitLsn();
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
        effects.carryOut(leader.abandon());
    }
}
