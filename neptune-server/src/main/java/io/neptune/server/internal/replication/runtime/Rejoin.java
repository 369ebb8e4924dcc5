package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.replication.runtime.PeerMessages.Entry;
import io.neptune.server.internal.replication.runtime.PeerMessages.Join;
import io.neptune.server.internal.replication.runtime.PeerMessages.JoinReply;
import io.neptune.server.internal.replication.protocol.Joiner;
import io.neptune.server.internal.replication.protocol.Ready;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The join of fail-stop recovery (phase 2, {@code docs/protocols/replication.md}), both sides, and
 * where each epoch's records start in this log, which both sides need. The primary answers a join
 * with the LSN up to which the joiner's log is surely its own (the keep point: never past the start
 * of an epoch the joiner has no record of) and a batch of records after it. The joiner's side is
 * decided by its {@link Joiner} (what to ask, which reply belongs to the attempt under way, what to
 * truncate and log, when the join is done or failed); this driver carries it out against the log,
 * the peers and the snapshots, feeds the answers back, and hands what concerns the replica's phase,
 * primary and epoch to its {@link PrimaryBackupReplica}, which keeps the attempt under way in its
 * {@link PrimaryBackupPhase.Joining} phase.
 *
 * <p>Thread-safety: confined to the partition's serial executor.
 */
final class Rejoin {
    private static final Logger logger = LoggerFactory.getLogger(Rejoin.class);

    private final ReplicaCore core;
    /** The replica's phase: the join attempt under way is its {@link PrimaryBackupPhase.Joining}'s. */
    private final Supplier<PrimaryBackupPhase> phase;
    /** The replica's commit point: what the primary committed, as far as it knows. */
    private final LongSupplier commitLsn;
    /** Carries out the decisions that are the replica's: its phase, its primary and its epoch. */
    private final Consumer<Ready.Effect> replica;
    private final Joiner joiner = new Joiner();
    private final Joiner.View view = new ReplicaView();
    /** The first LSN of each epoch in this log (for the epoch the log's boundary falls in: the boundary). */
    private final TreeMap<Long, Long> epochStarts = new TreeMap<>();
    /** NEP-REPL-001 comes up at every join attempt: it reaches the log once a minute. */
    private final RepeatedWarning diverged = new RepeatedWarning();

    /**
     * The join of the replica over {@code core} in {@code phase}, with the commit point {@code commitLsn};
     * {@code replica} carries out the effects on its phase, primary and epoch ({@link Ready.JoinUnderWay},
     * {@link Ready.Recover}, {@link Ready.Resume}, {@link Ready.FollowPrimary}, {@link Ready.AdoptEpoch}).
     */
    Rejoin(ReplicaCore core, Supplier<PrimaryBackupPhase> phase, LongSupplier commitLsn,
            Consumer<Ready.Effect> replica) {
        this.core = core;
        this.phase = phase;
        this.commitLsn = commitLsn;
        this.replica = replica;
    }

    /** Rebuilds the epoch starts from the log, after a start or a truncation. */
    void rebuildEpochStarts() {
        epochStarts.clear();
        epochStarts.put(core.log.boundary().epoch(), core.log.boundary().lsn());   // where its run starts is not known
        core.forEachRecord(r -> epochStarts.putIfAbsent(r.epoch(), r.lsn()));
    }

    /** Notes that this log has a record of {@code epoch} at {@code lsn}. */
    void noteEpochStart(long epoch, long lsn) {
        epochStarts.putIfAbsent(epoch, lsn);
    }

    /** Rebuilds the epoch starts if the log was truncated below the last one. */
    void rebuildIfTruncated() {
        Map.Entry<Long, Long> last = epochStarts.lastEntry();
        if (last != null && last.getValue() > core.log.lastLsn()) {
            rebuildEpochStarts();
        }
    }

    static JoinReply refused(String reason, long epoch) {
        return new JoinReply(false, reason, epoch, 0, 0, List.of(), false, 0, "");
    }

    /**
     * The primary's answer to {@code m}: the keep point and the next batch of records, with
     * {@code joined} set (and the joiner counted in sync in {@code pipeline}) if the batch reaches
     * this log's end. A joiner that needs records below the log's start is told to install a snapshot.
     */
    JoinReply answer(Join m, PrimaryPipeline pipeline) {
        assert core.exec.inExecutor() : "off the partition's executor";
        long keep = Math.min(m.lastLsn(), core.log.lastLsn());
        Map.Entry<Long, Long> nextEpoch = epochStarts.higherEntry(m.lastEpoch());
        if (nextEpoch != null) {
            keep = Math.min(keep, nextEpoch.getValue() - 1); // its records from there on were never committed
        }
        NodeId node = NodeId.of(m.node());
        if (keep + 1 < core.log.startLsn()) {
            core.snapshots().tell(node);
            return refused("truncated below " + core.log.startLsn() + ": install a snapshot", core.log.epoch());
        }
        List<LogRecord> records = core.batch(keep + 1);
        boolean joined = keep + records.size() >= core.log.lastLsn();
        pipeline.forget(node); // a replica that asks to join is not in sync, whatever this primary still counted
        if (core.peers.replicas(core.service, core.partition).stream().noneMatch(r -> r.node().equals(node))) {
            // this primary could not send it anything yet; it would exclude it at the next tick
            return refused(m.node() + " is not in " + core.self + "'s yellow page yet", core.log.epoch());
        }
        if (joined) {
            pipeline.follow(node, keep);
            logger.info("{}: {} joined as secondary at {}", core.name, node, core.log.lastLsn());
        }
        return new JoinReply(true, "", core.log.epoch(), keep, core.applied, records.stream().map(Entry::of).toList(),
                joined, core.log.epochOf(keep), core.log.originOf(keep));
    }

    /** " (logged once a minute; N times since)" after the first time, else nothing. */
    private static String repeated(long leftOut) {
        return leftOut == 0 ? "" : " (logged once a minute; " + leftOut + " times since)";
    }

    /**
     * A tick of a recovering replica that sees {@code target} as the live primary: it joins it, unless
     * a write still fails in storage (applying it is retried first) or a snapshot is being installed.
     */
    void tick(NodeId target) {
        if (core.storageFailedAt() != 0 && !core.applyUpTo(commitLsn.getAsLong())) {
            logger.debug("{}: storage still fails at LSN {}; not joining yet", core.name, core.storageFailedAt());
        } else if (core.snapshots().installing()) {
            core.snapshots().tick(target);
        } else {
            carryOut(joiner.start(attempt(), target, view));
        }
    }

    /** The join attempt under way: the replica's, if it is {@link PrimaryBackupPhase.Joining}. */
    private Joiner.@Nullable Attempt attempt() {
        return phase.get() instanceof PrimaryBackupPhase.Joining joining ? joining.attempt() : null;
    }

    private void onReply(long attempt, @Nullable JoinReply reply, @Nullable Throwable error) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (error != null || reply == null) {
            carryOut(joiner.failed(attempt(), attempt, error == null ? "no reply" : String.valueOf(error)));
        } else if (!reply.accepted()) {
            carryOut(joiner.failed(attempt(), attempt, "refused: " + reply.reason()));
        } else {
            List<LogRecord> records = reply.entries().stream().map(entry -> entry.toRecord(entry.lsn())).toList();
            carryOut(joiner.replied(attempt(), attempt, new Joiner.Reply(reply.epoch(), reply.keepUpTo(),
                    reply.keepEpoch(), reply.keepOrigin(), records, reply.joined(), reply.commitLsn()), view));
        }
    }

    private void afterBatch(long attempt, @Nullable Throwable error) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (error != null) {
            carryOut(joiner.logFailed(attempt(), attempt, commitLsn.getAsLong(), String.valueOf(error)));
        } else {
            carryOut(joiner.logged(attempt(), attempt, commitLsn.getAsLong()));
        }
    }

    /** Does what the joiner decided, in its order; what concerns the replica's phase, primary and epoch is the replica's. */
    private void carryOut(Ready ready) {
        for (Ready.Effect effect : ready.effects()) {
            if (effect instanceof Ready.AskJoin ask) {
                Join request = new Join(core.service, core.partition, core.self.value(), ask.lastLsn(), ask.lastEpoch());
                core.peers.call(ask.to(), core.request("join", request), JoinReply.class)
                        .whenComplete((r, e) -> core.exec.execute(() -> onReply(ask.attempt(), r, e)));
            } else if (effect instanceof Ready.Truncate truncate) {
                core.truncateAfter(truncate.afterLsn());
                rebuildEpochStarts();
            } else if (effect instanceof Ready.AppendBatch batch) {
                batch.records().forEach(r -> noteEpochStart(r.epoch(), r.lsn()));
                List<CompletableFuture<Void>> appends = core.appendAll(batch.records());
                CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new)).whenComplete((v, e) ->
                        core.exec.execute(() -> afterBatch(batch.attempt(), e)));
            } else if (effect instanceof Ready.Apply apply) {
                core.applyUpTo(apply.commitLsn());
            } else if (effect instanceof Ready.ApplyToResume apply) {
                boolean ok = core.applyUpTo(apply.commitLsn());
                carryOut(joiner.applied(attempt(), apply.attempt(), ok, core.storageFailedAt()));
            } else if (effect instanceof Ready.JoinAgain again) {
                carryOut(joiner.start(attempt(), again.target(), view));
            } else if (effect instanceof Ready.Diverged error) {
                long leftOut = diverged.due(core.clock.getAsLong());
                if (leftOut >= 0) {
                    logger.error("{}: {}{}", core.name, error.message(), repeated(leftOut));
                }
            } else if (effect instanceof Ready.Warn warn) {
                logger.warn("{}: {}", core.name, warn.message());
            } else if (effect instanceof Ready.Info info) {
                logger.info("{}: {}", core.name, info.message());
            } else if (effect instanceof Ready.Debug debug) {
                logger.debug("{}: {}", core.name, debug.message());
            } else {
                replica.accept(effect);
            }
        }
    }

    /** This replica as its joiner reads it: the log, where each epoch starts in it, and what it applied. */
    private final class ReplicaView implements Joiner.View {
        @Override
        public long epoch() {
            return core.log.epoch();
        }

        @Override
        public long lastLsn() {
            return core.log.lastLsn();
        }

        @Override
        public long lastEpoch() {
            return core.log.lastEpoch();
        }

        @Override
        public long startLsn() {
            return core.log.startLsn();
        }

        @Override
        public long applied() {
            return core.applied;
        }

        @Override
        public long epochOf(long lsn) {
            return core.log.epochOf(lsn);
        }

        @Override
        public String originOf(long lsn) {
            return core.log.originOf(lsn);
        }

        @Override
        public long epochStart(long epoch, long unknown) {
            return epochStarts.getOrDefault(epoch, unknown);
        }
    }
}
