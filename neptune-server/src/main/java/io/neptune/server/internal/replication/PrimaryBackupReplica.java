package io.neptune.server.internal.replication;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.replication.PeerMessages.Ack;
import io.neptune.server.internal.replication.PeerMessages.Demote;
import io.neptune.server.internal.replication.PeerMessages.Entry;
import io.neptune.server.internal.replication.PeerMessages.Handover;
import io.neptune.server.internal.replication.PeerMessages.HandoverReply;
import io.neptune.server.internal.replication.PeerMessages.Join;
import io.neptune.server.internal.replication.PeerMessages.JoinReply;
import io.neptune.server.internal.replication.PeerMessages.Promote;
import io.neptune.server.internal.replication.PeerMessages.PromoteReply;
import io.neptune.server.internal.replication.PeerMessages.ReplicaStatus;
import io.neptune.server.internal.replication.PeerMessages.Replicate;
import io.neptune.server.internal.replication.PeerMessages.StatusRequest;
import io.neptune.server.internal.replication.PeerMessages.TakeOver;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Level 2 and 3 primary-secondary replication of one partition, with fail-stop fail-over and
 * three-phase recovery ({@code docs/protocols/replication.md}, DESIGN §6.2–6.5).
 *
 * <p>The primary assigns LSNs, logs each write, sends it to every in-sync secondary, and applies
 * it only once its own log and every in-sync secondary have it durably; writes are pipelined and
 * applied in LSN order. Secondaries log in LSN order and apply up to the commit point the primary
 * reports. When the primary is gone, the live in-sync replica with the most complete log (epoch,
 * then LSN; priority breaks ties) takes over at a new, persisted epoch and treats its unapplied
 * tail like fresh writes, so it commits only what every survivor has. Replicas reject messages
 * from older epochs, which fences a deposed primary, and take messages at one epoch from one
 * primary only. Each record names the primary that wrote it: a recovering replica compares its
 * record at the LSN the primary keeps with the primary's and drops a run that differs, which a
 * dead primary's reused epoch number would otherwise hide. The primary's side of the write path
 * (pending writes, in-sync secondaries, committing) is its {@link PrimaryPipeline}.
 *
 * <p>Thread-safety: all state is confined to the partition's serial executor.
 */
final class PrimaryBackupReplica implements PartitionReplica {
    private static final Logger logger = LoggerFactory.getLogger(PrimaryBackupReplica.class);
    /** How long one slice of applying committed writes may hold the executor. */
    static final long APPLY_SLICE_MILLIS = 5;
    private static final long HANDOVER_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
    /** A gap between ticks (every 100 ms) longer than this means the process was paused. */
    static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

    private final ReplicaCore core;
    private final String name;
    private final int priority;
    private final int configuredReplicas;
    private final long ackTimeoutMillis;
    private final long stalenessNanos;

    private ReplicaRole role = ReplicaRole.RECOVERING;
    private @Nullable NodeId primary;
    private long commitLsn;
    private final PrimaryPipeline pipeline;
    private final TreeMap<Long, Long> epochStarts = new TreeMap<>();
    private final Deque<long[]> versionSamples = new ArrayDeque<>();
    private boolean electing;
    /** An {@link #applyCommitted} slice is queued on the executor. */
    private boolean applyQueued;
    private boolean joining;
    /**
     * The primary whose join reply made this recovering replica its follower: the only one whose
     * {@code replicate} a recovering replica takes. Acknowledging another's, or one sent before the
     * join reply, could acknowledge records the reply then truncates.
     */
    private @Nullable NodeId joinedTo;
    /** The one node whose {@code replicate} this replica takes at its current epoch (set by the first). */
    private @Nullable NodeId epochLeader;
    /**
     * This replica handed the primary role to {@code handingOverTo} and reports itself as primary to
     * {@code status} until it hears from it at a new epoch or {@link #handoverUntilNanos} passes:
     * a rival electing meanwhile must not find the partition leaderless and take a second primary.
     */
    private @Nullable NodeId handingOverTo;
    private long handoverUntilNanos;
    /** A primary demoted this replica while its join was under way: the join it answered no longer holds. */
    private boolean demotedWhileJoining;
    private long lastHandoverNanos;
    /** An operator's handover away from this primary, or null. */
    private @Nullable Handoff handoff;
    /** Primary by an operator's move-primary: refuses handovers by priority while it leads. */
    private boolean pinned;
    /** When this secondary first saw a primary announced at a newer epoch than its own, or 0. */
    private long newerPrimarySinceNanos;
    private long lastFromPrimaryNanos = System.nanoTime();
    private boolean closed;

    PrimaryBackupReplica(ReplicaCore core, int priority, int configuredReplicas, Duration ackTimeout,
            @Nullable Duration staleness) {
        this.core = core;
        this.name = core.name;
        this.priority = priority;
        this.configuredReplicas = configuredReplicas;
        this.ackTimeoutMillis = ackTimeout.toMillis();
        this.stalenessNanos = staleness == null ? 0 : staleness.toNanos();
        this.pipeline = new PrimaryPipeline(core, ackTimeoutMillis, new PrimaryPipeline.Host() {
            @Override
            public boolean leads() {
                return role == ReplicaRole.PRIMARY && !closed;
            }

            @Override
            public void stepDown(String why) {
                PrimaryBackupReplica.this.stepDown(ReplicaRole.RECOVERING, why);
            }

            @Override
            public void assigned(long epoch, long lsn) {
                epochStarts.putIfAbsent(epoch, lsn);
            }

            @Override
            public void committed() {
                commitLsn = core.applied;
            }

            @Override
            public void publish() {
                PrimaryBackupReplica.this.publish();
            }
        });
        core.afterDurable = () -> {
            if (role == ReplicaRole.PRIMARY) {
                pipeline.commitReady();
            }
        };
    }

    @Override
    public void start() {
        core.exec.execute(() -> {
            core.internalSync();
            rebuildEpochStarts();
            publish();
        });
    }

    private void rebuildEpochStarts() {
        epochStarts.clear();
        epochStarts.put(core.log.boundary().epoch(), core.log.boundary().lsn());   // where its run starts is not known
        core.forEachRecord(r -> epochStarts.putIfAbsent(r.epoch(), r.lsn()));
    }

    // ---------------------------------------------------------------- client writes (primary)

    @Override
    public void write(RequestMessage request, Consumer<ResponseMessage> reply) {
        core.exec.execute(() -> {
            if (role != ReplicaRole.PRIMARY || electing) {
                reply.accept(notPrimary(request.requestId()));
            } else if (handoff == null || !handoff.hold(request, reply)) {
                pipeline.write(request, reply);
            }
        });
    }

    private ResponseMessage notPrimary(long requestId) {
        return core.notPrimary(requestId, primary);
    }

    // ---------------------------------------------------------------- peer messages

    @Override
    public Class<?> messageType(String method) {
        return switch (method) {
            case "replicate" -> Replicate.class;
            case "status" -> StatusRequest.class;
            case "join" -> Join.class;
            case "handover" -> Handover.class;
            case "demote" -> Demote.class;
            case "promote" -> Promote.class;
            case "takeOver" -> TakeOver.class;
            default -> Snapshots.messageType(method); // throws for a method that is not a replication one
        };
    }

    @Override
    public void onPeerMessage(String method, Object message, Consumer<Object> reply) {
        core.exec.execute(() -> {
            if (core.snapshots().onPeerMessage(message, reply)) {
                return;
            }
            if (message instanceof Replicate m) {
                onReplicate(m, reply);
            } else if (message instanceof StatusRequest) {
                reply.accept(status());
            } else if (message instanceof Join m) {
                reply.accept(onJoin(m));
            } else if (message instanceof Handover m) {
                onHandover(m, reply);
            } else if (message instanceof TakeOver m) {
                takeOver(m, reply);
            } else if (message instanceof Demote m) {
                if (m.epoch() >= core.log.epoch() && role == ReplicaRole.SECONDARY) {
                    stepDown(ReplicaRole.RECOVERING, "the primary stopped waiting for this replica");
                } else if (m.epoch() >= core.log.epoch() && joining) {
                    demotedWhileJoining = true;
                }
                reply.accept(new Ack(true, core.log.lastLsn(), core.log.epoch(), ""));
            } else if (message instanceof Promote) {
                promoteByOperator(reply);
            } else {
                throw new IllegalArgumentException(method);
            }
        });
    }

    /** Whether this replica handed the primary role over a moment ago and has not heard from its successor yet. */
    private boolean handingOver() {
        return handingOverTo != null && System.nanoTime() - handoverUntilNanos < 0;
    }

    private ReplicaStatus status() {
        return new ReplicaStatus(core.self.value(), handingOver() ? ReplicaRole.PRIMARY.name() : role.name(), core.log.epoch(),
                core.log.lastEpoch(), core.log.lastLsn(), core.applied, priority, core.app.digest().orElse(""));
    }

    private void onReplicate(Replicate m, Consumer<Object> reply) {
        long epoch = core.log.epoch();
        if (m.epoch() < epoch) {
            logger.info("{}: rejected replication from {} at stale epoch {} (mine {})", name, m.from(), m.epoch(), epoch);
            reply.accept(new Ack(false, core.log.lastLsn(), epoch, "stale epoch " + m.epoch() + " < " + epoch));
            return;
        }
        NodeId from = NodeId.of(m.from());
        if (m.epoch() > epoch) {
            adoptEpoch(m.epoch());
            if (role == ReplicaRole.PRIMARY) {
                stepDown(ReplicaRole.RECOVERING, from + " is primary at epoch " + m.epoch());
            }
        }
        if (role == ReplicaRole.PRIMARY) {
            // two primaries of one epoch (each elected without seeing the other): never mix their logs
            reply.accept(new Ack(false, core.log.lastLsn(), core.log.epoch(), "primary at epoch " + epoch));
            return;
        }
        if (role == ReplicaRole.RECOVERING && !from.equals(joinedTo)) {
            reply.accept(new Ack(false, core.log.lastLsn(), core.log.epoch(), "recovering"));
            return;
        }
        if (epochLeader != null && !epochLeader.equals(from)) {
            // two primaries of one epoch (a race in a fail-over): follow the first, never mix their logs
            reply.accept(new Ack(false, core.log.lastLsn(), core.log.epoch(), "following " + epochLeader + " at epoch "
                    + core.log.epoch()));
            return;
        }
        epochLeader = from;
        if (from.equals(handingOverTo)) {
            handingOverTo = null; // it leads now
        }
        primary = from;
        lastFromPrimaryNanos = System.nanoTime();
        LogMatching.Result result = LogMatching.accept(core, m.prevLsn(), m.prevEpoch(), m.prevOrigin(), m.entries(),
                true);
        for (Entry entry : m.entries()) {
            epochStarts.putIfAbsent(entry.epoch(), entry.lsn());
        }
        if (result.outcome() != LogMatching.Outcome.MATCHED) {
            if (result.outcome() == LogMatching.Outcome.DIVERGED) {
                stepDown(ReplicaRole.RECOVERING, "an applied record differs from " + from + "'s");
            }
            rebuildEpochStarts();
            // gap: resend from my log end; mismatch: from what is surely the primary's (what I applied)
            reply.accept(new Ack(false, result.match(), core.log.epoch(), "gap"));
            return;
        }
        rebuildEpochStartsIfTruncated(result);
        // apply only what is known to be the primary's: a tail of this log beyond the entries may not be
        long match = result.match();
        commitLsn = Math.max(commitLsn, Math.min(m.commitLsn(), match));
        CompletableFuture.allOf(result.appends().toArray(CompletableFuture[]::new)).whenComplete((v, e) ->
                core.exec.execute(() -> {
                    if (e != null) {
                        reply.accept(new Ack(false, core.durable, core.log.epoch(), "log failure: " + e.getMessage()));
                        return;
                    }
                    // Only what is durable and matches: records an earlier message appended may still be on their
                    // way to the disk, and records beyond the entries may be another primary's.
                    reply.accept(new Ack(true, Math.min(match, core.durable), core.log.epoch(), ""));
                    applyCommitted();
                }));
    }

    private void rebuildEpochStartsIfTruncated(LogMatching.Result result) {
        Map.Entry<Long, Long> last = epochStarts.lastEntry();
        if (last != null && last.getValue() > core.log.lastLsn()) {
            rebuildEpochStarts();
        }
    }

    /**
     * Applies committed writes a slice at a time ({@value #APPLY_SLICE_MILLIS} ms), each slice a
     * task of its own: a backlog of slow writes never delays the acknowledgement of a
     * {@code replicate} queued behind it past one slice, so the primary does not take a busy
     * secondary for a failed one.
     */
    private void applyCommitted() {
        if (applyQueued || role == ReplicaRole.PRIMARY) {
            return;
        }
        applyQueued = true;
        core.exec.execute(() -> {
            applyQueued = false;
            if (role == ReplicaRole.PRIMARY || closed) {
                return; // a primary applies through commitReady
            }
            boolean ok = core.applyUpTo(commitLsn, TimeUnit.MILLISECONDS.toNanos(APPLY_SLICE_MILLIS));
            if (!ok && role == ReplicaRole.SECONDARY) {
                stepDown(ReplicaRole.RECOVERING, "the write at LSN " + core.storageFailedAt() + " failed in storage");
            }
            publish();
            if (ok && core.applied < Math.min(commitLsn, core.durable)) {
                applyCommitted(); // the next slice, behind whatever arrived meanwhile
            }
        });
    }

    private JoinReply onJoin(Join m) {
        if (role != ReplicaRole.PRIMARY || electing) {
            return new JoinReply(false, "not the primary", core.log.epoch(), 0, 0, List.of(), false, 0, "");
        }
        long keep = Math.min(m.lastLsn(), core.log.lastLsn());
        Map.Entry<Long, Long> nextEpoch = epochStarts.higherEntry(m.lastEpoch());
        if (nextEpoch != null) {
            keep = Math.min(keep, nextEpoch.getValue() - 1); // its records from there on were never committed
        }
        NodeId node = NodeId.of(m.node());
        if (keep + 1 < core.log.startLsn()) {
            core.snapshots().tell(node);
            return new JoinReply(false, "truncated below " + core.log.startLsn() + ": install a snapshot",
                    core.log.epoch(), 0, 0, List.of(), false, 0, "");
        }
        List<LogRecord> records = core.batch(keep + 1);
        boolean joined = keep + records.size() >= core.log.lastLsn();
        pipeline.forget(node); // a replica that asks to join is not in sync, whatever this primary still counted
        if (core.peers.replicas(core.service, core.partition).stream().noneMatch(r -> r.node().equals(node))) {
            // this primary could not send it anything yet; it would exclude it at the next tick
            return new JoinReply(false, m.node() + " is not in " + core.self + "'s yellow page yet", core.log.epoch(),
                    0, 0, List.of(), false, 0, "");
        }
        if (joined) {
            pipeline.follow(node, keep);
            logger.info("{}: {} joined as secondary at {}", name, node, core.log.lastLsn());
        }
        return new JoinReply(true, "", core.log.epoch(), keep, core.applied, records.stream().map(Entry::of).toList(),
                joined, core.log.epochOf(keep), core.log.originOf(keep));
    }

    private void onHandover(Handover m, Consumer<Object> reply) {
        NodeId node = NodeId.of(m.node());
        String refusal = role != ReplicaRole.PRIMARY || electing ? "not the primary" : handoff != null && !handoff.done()
                ? "a handover to " + handoff.target() + " is under way" : pinned && !m.operator()
                ? "primary by an operator's move-primary" : null;
        if (refusal != null) {
            reply.accept(new HandoverReply(false, refusal, core.log.epoch(), core.log.lastLsn()));
        } else if (m.operator()) {
            handoff = new Handoff(core, node, () -> role == ReplicaRole.PRIMARY && !electing && !closed,
                    t -> pipeline.idle() && pipeline.secondaries().contains(t), this::handTo, this, reply);
        } else if (!pipeline.acknowledged(node, m.lastLsn()) || !pipeline.idle() || m.lastLsn() < core.log.lastLsn()) {
            reply.accept(new HandoverReply(false, "not caught up", core.log.epoch(), core.log.lastLsn()));
        } else {
            logger.info("{}: handing the primary role to {} (higher priority) at {}", name, node, core.log.lastLsn());
            handTo(node);
            reply.accept(new HandoverReply(true, "", core.log.epoch(), core.log.lastLsn()));
        }
    }

    private void handTo(NodeId node) {
        stepDown(ReplicaRole.SECONDARY, "handover to " + node);
        primary = node;
        handingOverTo = node;
        handoverUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(Math.max(1000, 2 * ackTimeoutMillis));
    }

    /** An operator's move-primary (or a draining node) asks this replica to take the primary role over. */
    private void takeOver(TakeOver m, Consumer<Object> reply) {
        Replica live = livePrimary(core.peers.replicas(core.service, core.partition));
        String refusal = TakeOvers.refusal(role == ReplicaRole.PRIMARY, role != ReplicaRole.SECONDARY
                || core.log.lostTailEnd() > 0, electing, live == null ? null : live.node());
        if (refusal != null || live == null) {
            reply.accept(new PromoteReply(TakeOvers.ALREADY_PRIMARY.equals(refusal), String.valueOf(refusal),
                    core.log.epoch()));
            return;
        }
        core.peers.call(live.node(), core.service, core.partition, "handover", new Handover(core.service,
                core.partition, core.self.value(), core.durable, true), HandoverReply.class).whenComplete((r, e) ->
                core.exec.execute(() -> {
                    if (r == null || !r.accepted() || role != ReplicaRole.SECONDARY || core.log.lastLsn() < r.logEnd()) {
                        reply.accept(new PromoteReply(false, TakeOvers.refused(live.node(), r, e), core.log.epoch()));
                        return;
                    }
                    takeOverFrom(live, r, "took over by an operator's request");
                    pinned = m.pin();
                    reply.accept(new PromoteReply(true, "", core.log.epoch()));
                }));
    }

    // ---------------------------------------------------------------- election and recovery

    @Override
    public void tick() {
        core.exec.execute(() -> {
            if (closed) {
                return;
            }
            sampleVersion();
            List<Replica> view = core.peers.replicas(core.service, core.partition);
            Replica live = livePrimary(view);
            pipeline.ticked();
            if (role != ReplicaRole.RECOVERING) {
                core.snapshots().checkpoint(view);
            }
            if (role == ReplicaRole.PRIMARY) {
                if (live != null && live.epoch() > core.log.epoch()) {
                    stepDown(ReplicaRole.RECOVERING, live.node() + " is primary at epoch " + live.epoch()); // fenced
                    return;
                }
                if (live != null && (live.priority() > priority
                        || live.priority() == priority && live.node().value().compareTo(core.self.value()) < 0)) {
                    // Two primaries of one epoch: a race the election guards against went wrong. Their logs differ,
                    // so one must go, and the writes only it acknowledged are lost; both agree which by rank.
                    logger.error("{}: [NEP-REPL-002] {} is also primary at epoch {}; stepping down for it (higher"
                            + " priority or node id)", name, live.node(), live.epoch());
                    stepDown(ReplicaRole.RECOVERING, "a second primary at epoch " + live.epoch());
                    return;
                }
                pipeline.excludeAbsent(view); // not right after a pause: its yellow page may have expired meanwhile
                pipeline.tick();
                publish();
                return;
            }
            if (live != null) {
                primary = live.node();
                boolean newerEpoch = role == ReplicaRole.SECONDARY && live.epoch() > core.log.epoch();
                if (newerEpoch) {
                    awaitNewPrimary(live);
                } else {
                    newerPrimarySinceNanos = 0;
                    if (role == ReplicaRole.SECONDARY
                            && (live.logEnd() > core.log.lastLsn() || live.version() > core.applied)
                            && System.nanoTime() - lastFromPrimaryNanos > TimeUnit.MILLISECONDS.toNanos(2 * ackTimeoutMillis)) {
                        // the primary is ahead (in its log or its commit point) yet sent nothing for twice the ack
                        // timeout: it excluded this replica, and its "demote" did not arrive or came too early
                        stepDown(ReplicaRole.RECOVERING, live.node() + " is at " + live.logEnd() + " (applied " + live.version()
                                + ") but sent nothing for " + 2 * ackTimeoutMillis + " ms");
                    }
                }
                if (role == ReplicaRole.RECOVERING && core.storageFailedAt() != 0 && !core.applyUpTo(commitLsn)) {
                    logger.debug("{}: storage still fails at LSN {}; not joining yet", name, core.storageFailedAt());
                } else if (role == ReplicaRole.RECOVERING && core.snapshots().installing()) {
                    core.snapshots().tick(live.node());
                } else if (role == ReplicaRole.RECOVERING) {
                    join(live.node());
                } else if (priority > live.priority() && !newerEpoch) {
                    maybeHandover(live);
                }
            } else if (role == ReplicaRole.SECONDARY && !newPrimaryNotAnnouncedYet(view) && !handingOver()) {
                if (core.log.lostTailEnd() == 0) { // its log lacks records its service applied: it cannot lead
                    elect(view, false);
                }
            } else if (view.stream().noneMatch(r -> r.role() == ReplicaRole.SECONDARY && !r.node().equals(core.self))
                    && view.size() >= configuredReplicas && core.storageFailedAt() == 0) {
                if (core.log.lostTailEnd() == 0) {
                    elect(view, true); // catastrophic: every replica was down and all configured ones are back
                }
            }
            publish();
        });
    }

    /**
     * A primary is announced at a newer epoch than this secondary's. If it counted this replica
     * among its followers, its first {@code replicate} (which brings the epoch) is on its way, and
     * the announcement merely came first; if it left this replica out, nothing comes, and after
     * twice the ack timeout this replica recovers through a join. Stepping down at once would turn
     * every fail-over into a round of joins, with reads refused meanwhile.
     */
    private void awaitNewPrimary(Replica live) {
        long now = System.nanoTime();
        if (newerPrimarySinceNanos == 0) {
            newerPrimarySinceNanos = now;
        } else if (now - newerPrimarySinceNanos > TimeUnit.MILLISECONDS.toNanos(2 * ackTimeoutMillis)) {
            newerPrimarySinceNanos = 0;
            stepDown(ReplicaRole.RECOVERING, live.node() + " leads epoch " + live.epoch() + " without this replica");
        }
    }

    private @Nullable Replica livePrimary(List<Replica> view) {
        Replica best = null;
        for (Replica r : view) {
            if (r.role() == ReplicaRole.PRIMARY && !r.node().equals(core.self) && r.epoch() >= core.log.epoch()
                    && (best == null || r.epoch() > best.epoch())) {
                best = r;
            }
        }
        return best;
    }

    /**
     * Whether the replica this one last heard from as primary is still in the yellow page with an
     * announcement older than the epoch it sent: it took over a moment ago and its announcement is
     * on its way. Electing now would depose a working primary (its writes in flight would fail).
     * If it died instead, it leaves the view (or its announcement expires) and the election goes on.
     */
    private boolean newPrimaryNotAnnouncedYet(List<Replica> view) {
        NodeId last = primary;
        return last != null && !last.equals(core.self)
                && view.stream().anyMatch(r -> r.node().equals(last) && r.epoch() < core.log.epoch());
    }

    private boolean outranks(long epoch, long lsn, int prio, String node) {
        return Election.compare(epoch, lsn, prio, node, core.log.lastEpoch(), core.log.lastLsn(), priority,
                core.self.value()) > 0;
    }

    private void elect(List<Replica> view, boolean catastrophic) {
        if (electing) {
            return;
        }
        // Every candidate asks its rivals; finishElection compares their fresh (last epoch, log end). An
        // announcement carries a replica's current epoch, which runs ahead of its last record's epoch
        // when the epoch has no writes yet, so ruling candidates out on it could leave no one to elect.
        // Every live replica is asked, whatever it announces: an announcement lags, and a replica that just
        // finished joining still looks RECOVERING (or a new primary right after a handover does). Left out, it
        // could hold an election of its own at the same epoch; its fresh status tells what it is.
        ReplicaRole roleAtStart = role;
        long epochAtStart = core.log.epoch();
        List<Replica> rivals = new ArrayList<>();
        for (Replica r : view) {
            if (!r.node().equals(core.self)) {
                rivals.add(r);
            }
        }
        electing = true;
        List<CompletableFuture<ReplicaStatus>> statuses = new ArrayList<>();
        for (Replica r : rivals) {
            statuses.add(core.peers.call(r.node(), core.service, core.partition, "status",
                    new StatusRequest(core.service, core.partition), ReplicaStatus.class)
                    .orTimeout(1, TimeUnit.SECONDS).exceptionally(e -> null));
        }
        CompletableFuture.allOf(statuses.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> core.exec.execute(
                () -> finishElection(statuses.stream().map(CompletableFuture::join).toList(), catastrophic,
                        roleAtStart, epochAtStart)));
    }

    private void finishElection(List<@Nullable ReplicaStatus> statuses, boolean catastrophic, ReplicaRole roleAtStart,
            long epochAtStart) {
        electing = false;
        if (role != roleAtStart || core.log.epoch() != epochAtStart || closed
                || livePrimary(core.peers.replicas(core.service, core.partition)) != null) {
            // Things changed while the statuses were on their way: another replica took over (its first replicate
            // brought a new epoch before its announcement did), and the statuses, older than this log, are stale.
            return;
        }
        long maxEpoch = core.log.epoch();
        List<ReplicaStatus> followers = new ArrayList<>();
        for (ReplicaStatus s : statuses) {
            if (s == null) {
                return; // a rival did not answer: its log may be more complete; try again at the next tick
            }
            boolean candidate = s.role().equals(ReplicaRole.SECONDARY.name())
                    || (catastrophic && s.role().equals(ReplicaRole.RECOVERING.name()));
            if (s.role().equals(ReplicaRole.PRIMARY.name())
                    || (candidate && outranks(s.lastEpoch(), s.logEnd(), s.priority(), s.node()))) {
                return; // fresher information says someone else should lead
            }
            maxEpoch = Math.max(maxEpoch, s.epoch());
            if (s.role().equals(ReplicaRole.SECONDARY.name())) {
                followers.add(s);
            }
        }
        becomePrimary(maxEpoch + 1, followers, catastrophic ? "all configured replicas are back" : "primary lost");
    }

    /**
     * Takes the primary role at {@code epoch}, with {@code followers} as its in-sync secondaries
     * ({@link PrimaryPipeline#lead}).
     */
    private void becomePrimary(long epoch, List<ReplicaStatus> followers, String why) {
        adoptEpoch(epoch);
        role = ReplicaRole.PRIMARY;
        primary = core.self;
        epochLeader = core.self;
        handingOverTo = null;
        pipeline.lead(followers);
        logger.info("{}: became primary at epoch {} ({}); log end {}, applied {}, followers {}", name, epoch, why,
                core.log.lastLsn(), core.applied, pipeline.secondaries());
        publish();
        pipeline.catchUp();
    }

    private void promoteByOperator(Consumer<Object> reply) {
        if (role == ReplicaRole.PRIMARY) {
            reply.accept(new PromoteReply(true, "already primary", core.log.epoch()));
            return;
        }
        List<Replica> view = core.peers.replicas(core.service, core.partition);
        Replica live = livePrimary(view);
        if (live != null) {
            reply.accept(new PromoteReply(false, "a live primary exists: " + live.node(), core.log.epoch()));
            return;
        }
        logger.warn("{}: promoted by an operator with log end {}", name, core.log.lastLsn());
        becomePrimary(core.log.epoch() + 1, List.of(), "operator");
        reply.accept(new PromoteReply(true, "", core.log.epoch()));
    }

    /** Recovery phase 2: fetch what this replica missed from the primary, truncating any divergent tail. */
    private void join(NodeId target) {
        if (joining) {
            return;
        }
        joining = true;
        joinedTo = null;
        Join request = new Join(core.service, core.partition, core.self.value(), core.log.lastLsn(),
                core.log.lastEpoch());
        core.peers.call(target, core.service, core.partition, "join", request, JoinReply.class)
                .whenComplete((r, e) -> core.exec.execute(() -> onJoinReply(target, r, e)));
    }

    private void onJoinReply(NodeId target, @Nullable JoinReply reply, @Nullable Throwable error) {
        if (error != null || reply == null || !reply.accepted() || role != ReplicaRole.RECOVERING || demotedWhileJoining) {
            joining = false;
            demotedWhileJoining = false;
            return;
        }
        if (reply.epoch() > core.log.epoch()) {
            adoptEpoch(reply.epoch());
        }
        if (!sameRecordAt(reply.keepUpTo(), reply.keepEpoch(), reply.keepOrigin())) {
            // Same LSN, another write: a primary that died before anyone saw its epoch left records here under an
            // epoch number its successor reused. Drop that run of records and join again from before it.
            long mineEpoch = core.log.epochOf(reply.keepUpTo());
            String mineOrigin = core.log.originOf(reply.keepUpTo());
            long runStart = Math.max(core.log.startLsn(), epochStarts.getOrDefault(mineEpoch, reply.keepUpTo()));
            joining = false;
            if (runStart - 1 < core.applied) {
                logger.error("{}: [NEP-REPL-001] applied writes up to {}, but from LSN {} on this log differs from {}'s"
                        + " (epoch {} by {} here, epoch {} by {} there); this replica diverged and needs to be rebuilt",
                        name, core.applied, runStart, target, mineEpoch, mineOrigin, reply.keepEpoch(),
                        reply.keepOrigin());
                return;
            }
            logger.warn("{}: records {}..{} (epoch {} by {}) are not {}'s (epoch {} by {} at {}); truncating them and"
                    + " joining again", name, runStart, core.log.lastLsn(), mineEpoch, mineOrigin, target,
                    reply.keepEpoch(), reply.keepOrigin(), reply.keepUpTo());
            core.truncateAfter(runStart - 1);
            rebuildEpochStarts();
            return;
        }
        if (reply.keepUpTo() < core.log.lastLsn()) {
            if (reply.keepUpTo() < core.applied) {
                logger.error("{}: [NEP-REPL-001] applied writes up to {} that the primary's log does not have past {};"
                        + " this replica diverged and needs to be rebuilt", name, core.applied, reply.keepUpTo());
                joining = false;
                return;
            }
            logger.info("{}: truncating uncommitted log tail {}..{} (not in the primary's log)", name,
                    reply.keepUpTo() + 1, core.log.lastLsn());
            core.truncateAfter(reply.keepUpTo());
            rebuildEpochStarts();
        }
        primary = target;
        epochLeader = target;
        if (reply.joined()) {
            joinedTo = target; // its replicate messages may now arrive before this replica is a secondary
        }
        List<CompletableFuture<Void>> appends = new ArrayList<>();
        for (Entry entry : reply.entries()) {
            if (entry.lsn() == core.log.lastLsn() + 1) {
                epochStarts.putIfAbsent(entry.epoch(), entry.lsn());
                appends.add(core.append(entry.toRecord(entry.lsn())));
            }
        }
        commitLsn = Math.max(commitLsn, reply.commitLsn());
        CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> core.exec.execute(() -> {
            joining = false;
            if (role != ReplicaRole.RECOVERING) {
                demotedWhileJoining = false; // it led (or followed) meanwhile: this join no longer concerns it
                return;
            }
            if (demotedWhileJoining) {
                demotedWhileJoining = false; // excluded before this join finished: join again at the next tick
                core.applyUpTo(commitLsn);
                return;
            }
            if (e == null && !reply.joined()) {
                join(target); // the next batch travels and is logged while this one is applied
            }
            boolean applied = core.applyUpTo(commitLsn);
            if (!applied) {
                logger.debug("{}: stays recovering: the write at LSN {} failed in storage", name, core.storageFailedAt());
            } else if (e == null && reply.joined()) {
                role = ReplicaRole.SECONDARY; // recovery phase 3: resume
                lastFromPrimaryNanos = System.nanoTime();
                publish();
            }
        }));
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

    private void maybeHandover(Replica live) {
        if (core.log.lostTailEnd() > 0 || core.draining.getAsBoolean()) {
            return; // its log lacks records its service applied: it cannot lead
        }
        long now = System.nanoTime();
        if (now - lastHandoverNanos < HANDOVER_INTERVAL_NANOS || core.log.lastLsn() < live.logEnd()
                || core.applied < core.log.lastLsn()) {
            return;
        }
        lastHandoverNanos = now;
        core.peers.call(live.node(), core.service, core.partition, "handover",
                new Handover(core.service, core.partition, core.self.value(), core.durable), HandoverReply.class)
                .whenComplete((r, e) -> core.exec.execute(() -> {
                    if (r != null && r.accepted() && role == ReplicaRole.SECONDARY && core.log.lastLsn() >= r.logEnd()) {
                        takeOverFrom(live, r, "took over by priority");
                    }
                }));
    }

    /** Takes the primary role from {@code live}, which handed it over with {@code r}. */
    private void takeOverFrom(Replica live, HandoverReply r, String why) {
        List<ReplicaStatus> followers = new ArrayList<>();
        for (Replica other : core.peers.replicas(core.service, core.partition)) {
            if (!other.node().equals(core.self) && other.role() != ReplicaRole.RECOVERING) {
                followers.add(new ReplicaStatus(other.node().value(), ReplicaRole.SECONDARY.name(), other.epoch(),
                        other.lastEpoch(), Math.min(other.logEnd(), core.log.lastLsn()), other.version(),
                        other.priority(), ""));
            }
        }
        followers.removeIf(f -> f.node().equals(live.node().value()));
        followers.add(new ReplicaStatus(live.node().value(), ReplicaRole.SECONDARY.name(), r.epoch(), r.epoch(),
                r.logEnd(), r.logEnd(), live.priority(), ""));
        becomePrimary(Math.max(core.log.epoch(), r.epoch()) + 1, followers, why);
    }

    private void adoptEpoch(long epoch) {
        if (epoch > core.log.epoch()) {
            core.log.persistEpoch(epoch);
            epochLeader = null;
        }
    }

    private void stepDown(ReplicaRole next, String why) {
        if (role == ReplicaRole.PRIMARY) {
            pinned = false;
            logger.warn("{}: stepping down as primary: {}", name, why);
            pipeline.abandon(requestId -> ResponseMessage.error(requestId, Status.IN_DOUBT, core.self
                    + " stopped being the primary of " + core.service + "#" + core.partition + " (" + why
                    + ") before the write committed; the next primary may still commit it"));
        } else {
            logger.warn("{}: {} -> {}: {}", name, role, next, why);
        }
        if (next == ReplicaRole.RECOVERING) {
            joinedTo = null;
        }
        role = next;
        publish();
    }

    private void sampleVersion() {
        if (stalenessNanos == 0) {
            return;
        }
        long now = System.nanoTime();
        versionSamples.addLast(new long[] {now, core.applied});
        while (versionSamples.size() > 2 && now - versionSamples.peekFirst()[0] > stalenessNanos * 2) {
            versionSamples.pollFirst();
        }
    }

    /** The primary's version {@code staleness} ago: the highest sample at least that old. */
    private long boundVersion() {
        if (role != ReplicaRole.PRIMARY || stalenessNanos == 0) {
            return 0;
        }
        long cutoff = System.nanoTime() - stalenessNanos;
        long bound = 0;
        for (long[] sample : versionSamples) {
            if (sample[0] <= cutoff) {
                bound = sample[1];
            }
        }
        return bound;
    }

    private void publish() {
        core.publish(role, boundVersion());
    }

    @Override
    public ReplicaState state() {
        return core.state();
    }

    @Override
    public long readVersion() {
        return core.readVersion();
    }

    @Override
    public CompletableFuture<Boolean> awaitVersion(long version, long timeoutMillis) {
        return core.awaitVersion(version, timeoutMillis);
    }

    @Override
    public void close() {
        core.exec.execute(() -> {
            closed = true;
            pipeline.abandon(requestId -> ResponseMessage.error(requestId, Status.IN_DOUBT, core.self
                    + " is shutting down before the write committed; it may still commit under the next primary"));
        });
    }
}
