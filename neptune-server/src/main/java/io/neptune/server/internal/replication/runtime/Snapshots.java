package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.runtime.PeerMessages.ChunkRequest;
import io.neptune.server.internal.replication.runtime.PeerMessages.InstallSnapshot;
import io.neptune.server.internal.replication.runtime.PeerMessages.SnapshotRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints, log truncation and snapshot transfer of one partition replica
 * ({@code docs/protocols/replication.md}, "Checkpoints and log truncation" and "Snapshots"), for
 * the fail-stop and majority modes (levels 2 and 3). The replica's state machine hands it the
 * snapshot messages, asks it each tick to {@link #checkpoint} and, while {@link #installing()}, to
 * make progress instead of catching up from the log.
 *
 * <p>Thread-safety: confined to the partition's executor.
 */
final class Snapshots {
    private static final Logger logger = LoggerFactory.getLogger(Snapshots.class);
    /** How many records above the service's recorded LSN (no-ops) a checkpoint looks through before it gives up. */
    private static final int MAX_UNRECORDED = 64;

    private final ReplicaCore core;
    private final SnapshotSource source;
    private final SnapshotInstaller installer;

    Snapshots(ReplicaCore core) {
        this.core = core;
        Path directory = core.directory.resolve("snapshots");
        this.source = new SnapshotSource(core, directory);
        this.installer = new SnapshotInstaller(core, directory);
    }

    /** The message type of a snapshot method of the peer protocol; throws {@link IllegalArgumentException} for any other method. */
    static Class<?> messageType(String method) {
        return switch (method) {
            case "install-snapshot" -> InstallSnapshot.class;
            case "snapshot" -> SnapshotRequest.class;
            case "chunk" -> ChunkRequest.class;
            default -> throw new IllegalArgumentException("method: '" + method + "' (expected: a replication method)");
        };
    }

    /** Handles {@code message} if it is a snapshot message; returns whether it was one. */
    boolean onPeerMessage(Object message, Consumer<Object> reply) {
        if (message instanceof SnapshotRequest m) {
            source.onRequest(m.minLsn(), reply);
        } else if (message instanceof ChunkRequest m) {
            source.onChunk(m, reply);
        } else if (message instanceof InstallSnapshot m) {
            reply.accept(onInstallSnapshot(m));
        } else {
            return false;
        }
        return true;
    }

    private Ack onInstallSnapshot(InstallSnapshot m) {
        long epoch = core.log.epoch();
        if (m.epoch() < epoch) {
            return new Ack(false, core.log.lastLsn(), epoch, "stale epoch " + m.epoch() + " < " + epoch);
        }
        long resume = resumesAfter(m);
        if (resume >= 0 && !core.needsSnapshot) {
            return new Ack(false, resume, epoch, "gap");   // it has caught up: go on with records
        }
        NodeId from = NodeId.of(m.from());
        if (core.peers.replicas(core.service, core.partition).stream().noneMatch(r -> r.node().equals(from))
                || from.equals(core.self)) {
            // a replica's whole state would come from there: only from a node that holds the partition
            logger.warn("{}: NEP-SEC-023 refused to install a snapshot from {}: not a replica of the partition in the"
                    + " yellow page", core.name, from);
            return new Ack(false, core.log.lastLsn(), epoch, "NEP-SEC-023 source: '" + from + "' (expected: a replica"
                    + " of " + core.service + "#" + core.partition + " other than " + core.self + ")");
        }
        installer.needed(from);
        installer.tick();
        return new Ack(false, core.log.lastLsn(), epoch, "installing");
    }

    /**
     * Where the primary that sent {@code m} can go on with records instead of a snapshot: after the
     * LSN this returns, or -1 if this log does not continue the primary's from just below its start.
     * It does if it holds the record there with the primary's epoch (log matching: every record below
     * agrees too); the primary then resends from its log start, and the records this log has after
     * it are compared one by one. Reaching that LSN is not enough: a log back from a crash may hold
     * records of an old epoch there and after it, and answering with its own log end sent the primary
     * back below its start (a mismatch falls back to what was applied), which told it to install
     * again, for ever (the simulation's seed 78). A log that starts above that LSN continues from a
     * snapshot, whose writes are committed and so agree with every later primary's log: the primary
     * goes on from its end (seed 2 installed the same snapshot for ever when that counted as not
     * continuing). From a primary that does not send the epoch, reaching the LSN is all there is to
     * check.
     */
    private long resumesAfter(InstallSnapshot m) {
        long below = m.logStart() - 1;
        if (core.log.lastLsn() < below) {
            return -1;
        }
        Long boundaryEpoch = m.boundaryEpoch();
        if (boundaryEpoch == null || below < core.log.startLsn() - 1) {
            return core.log.lastLsn();
        }
        return core.log.epochOf(below) == boundaryEpoch ? below : -1;
    }

    /**
     * Whether this replica must install a snapshot before it can take records from the log: its
     * service lost writes its log no longer has, or a primary found it below its log start.
     */
    boolean installing() {
        return core.needsSnapshot || installer.active();
    }

    /** The node a snapshot is being installed from, or null. */
    @Nullable NodeId installingFrom() {
        return installer.source();
    }

    /**
     * Progress of an install; {@code primary}, the primary this replica follows now, is where one comes
     * from if none was named yet, or if the one named no longer leads: it may be gone for good, and a
     * new primary whose log still has this replica's records sends it records, not an install, which
     * this replica refuses while it installs (the partition then took no write, needing its vote).
     */
    void tick(@Nullable NodeId primary) {
        if ((core.needsSnapshot || installer.active()) && primary != null && !primary.equals(core.self)
                && !primary.equals(installer.source())) {
            installer.needed(primary);
        }
        installer.tick();
    }

    /** Progress of an install from {@code from}; one under way from another node starts over there. */
    void installFrom(NodeId from) {
        installer.needed(from);
        installer.tick();
    }

    /**
     * Tells {@code node}, which needs records below this log's start, to install a snapshot from this
     * replica; the future completes with its answer.
     */
    CompletableFuture<Ack> tell(NodeId node) {
        logger.info("{}: {} needs records below the log start {}: it installs a snapshot from here", core.name, node,
                core.log.startLsn());
        return core.peers.call(node, core.request("install-snapshot", new InstallSnapshot(core.service,
                core.partition, core.self.value(), core.log.epoch(), core.log.startLsn(), core.log.boundary().epoch())),
                Ack.class);
    }

    /**
     * Drops the log records below the lowest LSN still needed, when at least
     * {@code checkpointRecords} of them can go: only for a service whose state is durable as far as it
     * applied (it has a CHECK method) and that can be rebuilt elsewhere from a snapshot; never
     * above what it applied, what a live replica of the partition in {@code view} still lacks (its
     * log end), but keeping at most {@code maxRecords} applied records for lagging replicas; and
     * never the records after a snapshot a replica is fetching from here, whatever {@code maxRecords} says.
     */
    void checkpoint(List<Replica> view) {
        if (!dueFrom(core.applied + 1)) {
            return; // the check of every tick of every partition: short of reading the view
        }
        long keepFrom = core.applied + 1;
        for (Replica replica : view) {
            if (!replica.node().equals(core.self)) {
                keepFrom = Math.min(keepFrom, replica.logEnd() + 1);
            }
        }
        checkpoint(keepFrom, Long.MAX_VALUE, lsn -> { });
    }

    /**
     * Whether a checkpoint could drop records if the lowest LSN to keep were {@code keepFrom}: at
     * least {@code checkpointRecords} lie below it. Every bound of a checkpoint keeps at least the
     * records from the first one not applied, so an idle partition's checks end here.
     */
    private boolean dueFrom(long keepFrom) {
        return keepFrom - core.log.startLsn() >= core.retention.get().checkpointRecords();
    }

    /**
     * {@link #checkpoint(List)} with the lowest LSN the other replicas still need given as
     * {@code neededFrom} (level 1 knows it from their pulls, not from their log ends), and a lowest
     * LSN that must stay whatever {@code log-retention} says, {@code keepAnyway} (level 1: its own
     * writes a peer lacks, which no other replica holds); before it drops the records below
     * {@code lsn}, it calls {@code beforeDrop} with that {@code lsn}.
     */
    void checkpoint(long neededFrom, long keepAnyway, LongConsumer beforeDrop) {
        if (!core.app.hasCheck() || core.app.snapshottable().isEmpty() || installing()
                || core.storageFailedAt() != 0) {
            return;
        }
        long applied = core.applied;
        if (!dueFrom(applied + 1)) {
            return;
        }
        long keepFrom = Math.min(applied + 1, neededFrom);
        keepFrom = Math.max(keepFrom, applied + 1 - core.retention.get().maxRecords());
        keepFrom = Math.min(keepFrom, keepAnyway);
        // whatever the retention says: the records after a snapshot being fetched are what its replica asks
        // for next; dropped under writes, the install ended below the log's start and began again, for ever
        keepFrom = Math.min(keepFrom, source.pinnedFrom());
        keepFrom = Math.min(keepFrom, Math.min(applied, core.log.committedLsn()) + 1);
        if (!dueFrom(keepFrom)) {
            return;
        }
        // A snapshot carries the LSN its service recorded, which stops at the last write that touched it: the
        // no-op that opens each epoch lies above it until the next write. Dropping such a record left every
        // snapshot below the log's start, and a replica that needed one waited for ever (found by SnapshotIT in CI).
        for (int i = 0; i < MAX_UNRECORDED && keepFrom > core.log.startLsn() && !core.app.isApplied(keepFrom - 1); i++) {
            keepFrom--;
        }
        if (!dueFrom(keepFrom) || !core.app.isApplied(keepFrom - 1)) {
            return;
        }
        try {
            core.app.snapshottable().orElseThrow().force(core.partition);   // what CHECK says now survives a power loss
            beforeDrop.accept(keepFrom);
        } catch (IOException | RuntimeException e) {
            logger.warn("{}: cannot make the checkpoint durable; keeping the log records below {}: {}", core.name,
                    keepFrom, e.toString());
            return;
        }
        core.log.truncateBefore(keepFrom);
    }
}
