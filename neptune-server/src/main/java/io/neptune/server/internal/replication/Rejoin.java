package io.neptune.server.internal.replication;

import io.neptune.core.NodeId;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.replication.PeerMessages.Entry;
import io.neptune.server.internal.replication.PeerMessages.Join;
import io.neptune.server.internal.replication.PeerMessages.JoinReply;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The join of fail-stop recovery (phase 2, {@code docs/protocols/replication.md}), both sides, and
 * where each epoch's records start in this log, which both sides need. The primary answers a join
 * with the LSN up to which the joiner's log is surely its own (the keep point: never past the start
 * of an epoch the joiner has no record of) and a batch of records after it. The joiner compares its
 * record at the keep point with the primary's, drops a run that differs (a dead primary's records
 * under an epoch number its successor reused) or an uncommitted tail the primary lacks, and logs the
 * records it lacks. Which phase the replica is in, and what it does next, is
 * {@link PrimaryBackupReplica}'s.
 *
 * <p>Thread-safety: confined to the partition's serial executor.
 */
final class Rejoin {
    private static final Logger logger = LoggerFactory.getLogger(Rejoin.class);

    /**
     * One join exchange with {@link #target}, the data of a {@link PrimaryBackupPhase.Joining} replica:
     * {@link #joined} once the primary's reply counted the joiner among its in-sync secondaries (its
     * {@code replicate} messages may arrive from then on), {@link #excluded} if the primary demoted
     * the joiner meanwhile.
     */
    static final class Attempt {
        final NodeId target;
        boolean joined;
        boolean excluded;

        Attempt(NodeId target) {
            this.target = target;
        }
    }

    private final ReplicaCore core;
    /** The first LSN of each epoch in this log (for the epoch the log's boundary falls in: the boundary). */
    private final TreeMap<Long, Long> epochStarts = new TreeMap<>();
    /** NEP-REPL-001 comes up at every join attempt: it reaches the log once a minute. */
    private final RepeatedWarning diverged = new RepeatedWarning();

    Rejoin(ReplicaCore core) {
        this.core = core;
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
     * The joiner's side: makes this log a prefix of {@code target}'s up to the keep point of
     * {@code reply}. True if it is one and the reply's records may be logged; false if this join ends
     * here: a run of records that are not the primary's was dropped (the replica joins again), or
     * this replica applied writes the primary does not have (it diverged and needs to be rebuilt).
     */
    boolean reconcile(NodeId target, JoinReply reply) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (!sameRecordAt(reply.keepUpTo(), reply.keepEpoch(), reply.keepOrigin())) {
            // Same LSN, another write: a primary that died before anyone saw its epoch left records here under an
            // epoch number its successor reused. Drop that run of records and join again from before it.
            long mineEpoch = core.log.epochOf(reply.keepUpTo());
            String mineOrigin = core.log.originOf(reply.keepUpTo());
            long runStart = Math.max(core.log.startLsn(), epochStarts.getOrDefault(mineEpoch, reply.keepUpTo()));
            if (runStart - 1 < core.applied) {
                long leftOut = diverged.due(core.clock.getAsLong());
                if (leftOut >= 0) {
                    logger.error("{}: [NEP-REPL-001] applied writes up to {}, but from LSN {} on this log differs from"
                            + " {}'s (epoch {} by {} here, epoch {} by {} there); this replica diverged and needs to be"
                            + " rebuilt{}", core.name, core.applied, runStart, target, mineEpoch, mineOrigin,
                            reply.keepEpoch(), reply.keepOrigin(), repeated(leftOut));
                }
                return false;
            }
            logger.warn("{}: records {}..{} (epoch {} by {}) are not {}'s (epoch {} by {} at {}); truncating them and"
                    + " joining again", core.name, runStart, core.log.lastLsn(), mineEpoch, mineOrigin, target,
                    reply.keepEpoch(), reply.keepOrigin(), reply.keepUpTo());
            core.truncateAfter(runStart - 1);
            rebuildEpochStarts();
            return false;
        }
        if (reply.keepUpTo() < core.log.lastLsn()) {
            if (reply.keepUpTo() < core.applied) {
                long leftOut = diverged.due(core.clock.getAsLong());
                if (leftOut >= 0) {
                    logger.error("{}: [NEP-REPL-001] applied writes up to {} that the primary's log does not have past"
                            + " {}; this replica diverged and needs to be rebuilt{}", core.name, core.applied,
                            reply.keepUpTo(), repeated(leftOut));
                }
                return false;
            }
            logger.info("{}: truncating uncommitted log tail {}..{} (not in the primary's log)", core.name,
                    reply.keepUpTo() + 1, core.log.lastLsn());
            core.truncateAfter(reply.keepUpTo());
            rebuildEpochStarts();
        }
        return true;
    }

    /**
     * Logs the records of {@code reply} that extend this log, in one step (one force for the batch);
     * the futures complete when each is durable.
     */
    List<CompletableFuture<Void>> logRecords(JoinReply reply) {
        List<LogRecord> records = new ArrayList<>();
        long next = core.log.lastLsn() + 1;
        for (Entry entry : reply.entries()) {
            if (entry.lsn() == next) {
                noteEpochStart(entry.epoch(), entry.lsn());
                records.add(entry.toRecord(entry.lsn()));
                next++;
            }
        }
        return core.appendAll(records);
    }

    /**
     * Whether this log's record {@code lsn} is the primary's (epoch {@code epoch}, written by primary
     * {@code origin}); trivially so for LSN 0, past this log's end, and for records logged before
     * primaries named themselves in them (empty origin).
     */
    private boolean sameRecordAt(long lsn, long epoch, @Nullable String origin) {
        if (lsn < 1 || lsn > core.log.lastLsn() || lsn < core.log.startLsn() - 1) {
            return true;   // below the boundary: what it applied there is checked against keepUpTo next
        }
        if (core.log.epochOf(lsn) != epoch) {
            return false;
        }
        String mine = core.log.originOf(lsn);
        return origin == null || origin.isEmpty() || mine.isEmpty() || mine.equals(origin);
    }
}
