package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.protocol.ReplicateGate;
import io.neptune.server.internal.replication.runtime.PeerMessages.Demote;
import io.neptune.server.internal.replication.runtime.PeerMessages.Entry;
import io.neptune.server.internal.replication.runtime.PeerMessages.Handover;
import io.neptune.server.internal.replication.runtime.PeerMessages.HandoverReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.Join;
import io.neptune.server.internal.replication.runtime.PeerMessages.Promote;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReplicaStatus;
import io.neptune.server.internal.replication.runtime.PeerMessages.Replicate;
import io.neptune.server.internal.replication.runtime.PeerMessages.StatusRequest;
import io.neptune.server.internal.replication.runtime.PeerMessages.TakeOver;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Closed;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Electing;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.HandingOver;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Joining;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Primary;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Recovering;
import io.neptune.server.internal.replication.runtime.PrimaryBackupPhase.Secondary;
import io.neptune.server.internal.replication.protocol.Election;
import io.neptune.server.internal.replication.protocol.FailStopElection;
import io.neptune.server.internal.replication.protocol.Handovers;
import io.neptune.server.internal.replication.protocol.PrimaryWatch;
import io.neptune.server.internal.replication.protocol.Ready;
import io.neptune.server.internal.replication.protocol.VersionSampler;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * dead primary's reused epoch number would otherwise hide ({@link Rejoin}). The primary's side of
 * the write path (pending writes, in-sync secondaries, committing) is its {@link PrimaryPipeline};
 * an operator's handover away from it is a {@link Handoff}; whether and how it takes the role when
 * none leads is its {@link Elections}' (decided by {@code protocol.FailStopElection}).
 *
 * <p>Where the replica stands is its {@link PrimaryBackupPhase}, which carries the data of the
 * operation under way (the join, the successor of a handover, the election round, an operator's
 * handover away from the primary); the role it announces follows from it ({@link #role()}). The
 * transitions ({@link PrimaryBackupPhase.Kind#allowedFrom}; a phase may also stay as it is):
 * <pre>
 * RECOVERING   -&gt; JOINING (a live primary), ELECTING (catastrophic: all configured replicas back, none a secondary)
 * JOINING      -&gt; JOINING (the next batch), SECONDARY (joined and applied), RECOVERING (refused, failed, excluded)
 * SECONDARY    -&gt; ELECTING (no live primary), RECOVERING (excluded, storage failure, a primary leads without it)
 * HANDING_OVER -&gt; SECONDARY (heard from the successor, or its deadline passed), RECOVERING (as a secondary)
 * ELECTING     -&gt; PRIMARY (won), the phase it started from (lost, or a primary appeared), RECOVERING, JOINING
 * PRIMARY      -&gt; HANDING_OVER (a handover), RECOVERING (a newer epoch, a second primary, a log or storage failure)
 * any but PRIMARY and CLOSED -&gt; PRIMARY (an operator's promote; a take-over by priority or by an operator)
 * any          -&gt; CLOSED
 * </pre>
 *
 * <p>Thread-safety: all state is confined to the partition's serial executor; each entry point
 * asserts it.
 */
final class PrimaryBackupReplica implements PartitionReplica {
    private static final Logger logger = LoggerFactory.getLogger(PrimaryBackupReplica.class);
    /** A gap between ticks (every 100 ms) longer than this means the process was paused. */
    static final long PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1000);

    private final ReplicaCore core;
    private final String name;
    private final int priority;
    private final long ackTimeoutMillis;
    private final PrimaryPipeline pipeline;
    private final Rejoin rejoin;
    private final Elections elections;
    private final PriorityHandover priorityHandover;
    private final VersionSampler versions;

    /** Where this replica stands, with the operation under way; assigned by {@link #enter} only. */
    private PrimaryBackupPhase phase = new Recovering(null);
    private @Nullable NodeId primary;
    private long commitLsn;
    /** Applies what the primary committed, a slice at a time, while this replica is not the primary. */
    private final ApplySlices applying;
    /** The one node whose {@code replicate} this replica takes at its current epoch (set by the first). */
    private @Nullable NodeId epochLeader;
    /** Whether the primary it follows still counts it in sync. */
    private final PrimaryWatch watch;

    PrimaryBackupReplica(ReplicaCore core, ReplicaSettings settings) {
        this.core = core;
        this.name = core.name;
        this.priority = settings.priority();
        this.ackTimeoutMillis = settings.ackTimeout().toMillis();
        this.rejoin = new Rejoin(core, () -> phase, () -> commitLsn, this::joinDecided);
        this.priorityHandover = new PriorityHandover(core);
        this.versions = new VersionSampler(settings.stalenessNanos());
        this.watch = new PrimaryWatch(TimeUnit.MILLISECONDS.toNanos(2 * ackTimeoutMillis), core.clock.getAsLong());
        this.pipeline = new PrimaryPipeline(core, ackTimeoutMillis, new PrimaryPipeline.Host() {
            @Override
            public boolean leads() {
                return phase instanceof Primary;
            }

            @Override
            public void stepDown(String why) {
                PrimaryBackupReplica.this.stepDown(why);
            }

            @Override
            public void assigned(long epoch, long lsn) {
                rejoin.noteEpochStart(epoch, lsn);
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
        this.elections = new Elections(core, new FailStopElection(core.self, priority, settings.configuredReplicas()), pipeline,
                new Elections.Host() {
                    @Override
                    public PrimaryBackupPhase phase() {
                        return phase;
                    }

                    @Override
                    public @Nullable NodeId primary() {
                        return primary;
                    }

                    @Override
                    public void decided(Ready.Effect effect) {
                        electionDecided(effect);
                    }
                });
        this.applying = new ApplySlices(core, () -> !(phase instanceof Primary || phase instanceof Closed),
                this::applySlice);
        core.attach(new ModeCallbacks() {
            @Override
            public void durableAdvanced() {
                if (phase instanceof Primary) {
                    pipeline.commitReady();
                }
            }

            @Override
            public void snapshotInstalled() {
                // The epochs of the records the snapshot replaced are gone; the boundary's is where its run is
                // known to reach. Kept, a join answered later measured a joiner against epochs of the old log.
                rejoin.rebuildEpochStarts();
            }
        });
    }

    @Override
    public void start() {
        core.exec.execute(() -> {
            core.internalSync();
            rejoin.rebuildEpochStarts();
            publish();
        });
    }

    /** The role this replica announces in its phase. */
    private ReplicaRole role() {
        return phase.role();
    }

    /** Moves to {@code next}, the only assignment of the phase; the data of the phase it leaves goes with it. */
    private void enter(PrimaryBackupPhase next) {
        assert core.exec.inExecutor() : "off the partition's executor";
        assert next.kind().allowedFrom(phase.kind()) : name + ": " + phase.kind() + " -> " + next.kind();
        phase = next;
    }

    // ---------------------------------------------------------------- client writes (primary)

    @Override
    public void write(RequestMessage request, Consumer<ResponseMessage> reply) {
        core.exec.execute(() -> {
            if (!(phase instanceof Primary leading)) {
                reply.accept(core.notPrimary(request.requestId(), primary));
            } else if (!core.refusedUndecodable(request, reply)
                    && (leading.handoff() == null || !leading.handoff().hold(request, reply))) {
                pipeline.write(request, reply);
            }
        });
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
            if (phase instanceof Closed || core.snapshots().onPeerMessage(message, reply)) {
                return; // closed: silent, as a stopped process is
            }
            if (message instanceof Replicate m) {
                onReplicate(m, reply);
            } else if (message instanceof StatusRequest m) {
                reply.accept(status(m));
            } else if (message instanceof Join m) {
                reply.accept(phase instanceof Primary ? rejoin.answer(m, pipeline)
                        : Rejoin.refused("not the primary", core.log.epoch()));
            } else if (message instanceof Handover m) {
                onHandover(m, reply);
            } else if (message instanceof TakeOver m) {
                takeOver(m, reply);
            } else if (message instanceof Demote m) {
                onDemote(m);
                reply.accept(new Ack(true, core.log.lastLsn(), core.log.epoch(), ""));
            } else if (message instanceof Promote) {
                elections.promote(reply);
            } else {
                throw new IllegalArgumentException(method);
            }
        });
    }

    /** The primary stopped waiting for this replica (it excluded it): it recovers through a join. */
    private void onDemote(Demote m) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (m.epoch() >= core.log.epoch() && role() == ReplicaRole.SECONDARY) {
            stepDown("the primary stopped waiting for this replica");
        } else if (m.epoch() >= core.log.epoch() && phase instanceof Joining joining) {
            // the join it answered no longer holds: join again when this one ends
            enter(new Joining(joining.attempt().exclude()));
        }
    }

    /** Whether this replica handed the primary role over a moment ago and has not heard from its successor yet. */
    private boolean handingOver() {
        return phase instanceof HandingOver handingOver && handingOver.claimsAt(core.clock.getAsLong());
    }

    private ReplicaStatus status(StatusRequest m) {
        assert core.exec.inExecutor() : "off the partition's executor";
        return new ReplicaStatus(core.self.value(), handingOver() ? ReplicaRole.PRIMARY.name() : role().name(),
                core.log.epoch(), core.log.lastEpoch(), core.log.lastLsn(), core.applied, priority,
                core.digestFor(m), core.log.startLsn());
    }

    private void onReplicate(Replicate m, Consumer<Object> reply) {
        assert core.exec.inExecutor() : "off the partition's executor";
        NodeId from = NodeId.of(m.from());
        ReplicateGate.Verdict verdict = ReplicateGate.check(m.epoch(), from, core.log.epoch(), phase instanceof Primary,
                epochLeader);
        if (verdict instanceof ReplicateGate.Refuse refusal) {
            // a second primary of one epoch (each elected without seeing the other, or a race in a fail-over):
            // follow the first, never mix their logs
            logger.info("{}: refused replication from {} at epoch {}: {}", name, from, m.epoch(), refusal.reason());
            reply.accept(new Ack(false, core.log.lastLsn(), core.log.epoch(), refusal.reason()));
            return;
        }
        if (verdict instanceof ReplicateGate.Adopt newer) {
            adoptEpoch(newer.epoch());
            if (phase instanceof Primary) {
                stepDown(from + " is primary at epoch " + newer.epoch());
            }
        }
        if (role() == ReplicaRole.RECOVERING && !from.equals(phase.joinedTo())) {
            reply.accept(new Ack(false, core.log.lastLsn(), core.log.epoch(), "recovering"));
            return;
        }
        epochLeader = from;
        if (phase instanceof HandingOver handingOver && from.equals(handingOver.successor())) {
            enter(new Secondary()); // it leads now
        }
        primary = from;
        watch.heard(core.clock.getAsLong());
        LogMatching.Result result = LogMatching.accept(core, m, true);
        for (Entry entry : m.entries()) {
            rejoin.noteEpochStart(entry.epoch(), entry.lsn());
        }
        if (result.outcome() != LogMatching.Outcome.MATCHED) {
            if (result.outcome() == LogMatching.Outcome.DIVERGED) {
                stepDown("an applied record differs from " + from + "'s");
            }
            rejoin.rebuildEpochStarts();
            // gap: resend from my log end; mismatch: from what is surely the primary's (what I applied)
            reply.accept(new Ack(false, result.match(), core.log.epoch(), "gap"));
            return;
        }
        rejoin.rebuildIfTruncated();
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

    /**
     * Applies committed writes a slice at a time ({@link ApplySlices}), each slice a task of its own:
     * a backlog of slow writes never delays the acknowledgement of a {@code replicate} queued behind
     * it past one slice, so the primary does not take a busy secondary for a failed one. A primary
     * applies through its pipeline's commitReady instead.
     */
    private void applyCommitted() {
        if (!(phase instanceof Primary)) {
            applying.next();
        }
    }

    private void applySlice() {
        boolean ok = applying.apply(commitLsn);
        if (!ok && role() == ReplicaRole.SECONDARY) {
            stepDown("the write at LSN " + core.storageFailedAt() + " failed in storage");
        }
        publish();
        if (ok && core.applied < Math.min(commitLsn, core.durable)) {
            applying.next(); // the next slice, behind whatever arrived meanwhile
        }
    }

    private void onHandover(Handover m, Consumer<Object> reply) {
        assert core.exec.inExecutor() : "off the partition's executor";
        NodeId node = NodeId.of(m.node());
        @Nullable NodeId handingOffTo = phase instanceof Primary leading ? leading.handingOffTo() : null;
        boolean pinned = phase instanceof Primary leading && leading.pinned();
        String refusal = Handovers.refusal(phase instanceof Primary, handingOffTo, pinned, m.operator());
        if (refusal != null) {
            reply.accept(new HandoverReply(false, refusal, core.log.epoch(), core.log.lastLsn()));
        } else if (m.operator()) {
            handOff(node, reply);
        } else if (!pipeline.acknowledged(node, m.lastLsn()) || !pipeline.idle() || m.lastLsn() < core.log.lastLsn()) {
            reply.accept(new HandoverReply(false, "not caught up", core.log.epoch(), core.log.lastLsn()));
        } else {
            logger.info("{}: handing the primary role to {} (higher priority) at {}", name, node, core.log.lastLsn());
            handTo(node);
            reply.accept(new HandoverReply(true, "", core.log.epoch(), core.log.lastLsn()));
        }
    }

    /**
     * Starts an operator's handover to {@code node} ({@link Handoff}), which this primary holds in its
     * phase while it lasts. The handoff ends once this replica no longer leads the epoch it started in;
     * it may also end at once, handing the role over before this returns.
     */
    private void handOff(NodeId node, Consumer<Object> reply) {
        long epoch = core.log.epoch();
        Handoff handoff = new Handoff(core, node, new Handoff.Host() {
            @Override
            public boolean leads() {
                return phase instanceof Primary && core.log.epoch() == epoch;
            }

            @Override
            public boolean caughtUp(NodeId target) {
                return pipeline.idle() && pipeline.secondaries().contains(target);
            }

            @Override
            public void stepDownFor(NodeId target) {
                handTo(target);
            }

            @Override
            public void write(RequestMessage request, Consumer<ResponseMessage> answer) {
                PrimaryBackupReplica.this.write(request, answer);
            }
        }, reply);
        if (phase instanceof Primary leading) { // else it handed over at once
            enter(new Primary(handoff, leading.pinned()));
        }
    }

    /**
     * Steps down for {@code node}, answering status requests as primary until it leads or the
     * deadline passes ({@link HandingOver}).
     */
    private void handTo(NodeId node) {
        long untilNanos = core.clock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(Math.max(1000, 2 * ackTimeoutMillis));
        stepDown(new HandingOver(node, untilNanos), "handover to " + node);
        primary = node;
    }

    /** An operator's move-primary (or a draining node) asks this replica to take the primary role over. */
    private void takeOver(TakeOver m, Consumer<Object> reply) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (phase instanceof Primary) { // answered once announced: killed before, no other replica knows its epoch
            elections.answerOnceAnnounced(core.log.epoch(), TakeOvers.ALREADY_PRIMARY, reply);
            return;
        }
        Replica live = livePrimary(core.peers.replicas(core.service, core.partition));
        NodeId p = live == null ? null : live.node();
        String refusal = TakeOvers.refusal(phase instanceof Primary, role() != ReplicaRole.SECONDARY
                || core.log.lostTailEnd() > 0, phase instanceof Electing, p);
        if (!TakeOvers.answeredRefusal(refusal, p, core.log.epoch(), reply)) {
            Replica from = requireNonNull(live);
            TakeOvers.askHandover(core, from.node(), reply, () -> role() == ReplicaRole.SECONDARY, handedOver -> {
                takeOverFrom(from, handedOver, "took over by an operator's request", m.pin());
                elections.answerOnceAnnounced(core.log.epoch(), "", reply);
            });
        }
    }

    // ---------------------------------------------------------------- election and recovery

    @Override
    public void tick() {
        core.exec.runNowOrQueue(() -> {
            if (phase instanceof Closed) {
                return;
            }
            versions.sample(core.applied, core.clock.getAsLong());
            if (phase instanceof HandingOver && !handingOver()) {
                enter(new Secondary()); // its successor stayed silent until the deadline: an ordinary secondary
            }
            List<Replica> view = core.peers.replicas(core.service, core.partition);
            Replica live = livePrimary(view);
            pipeline.ticked();
            if (role() != ReplicaRole.RECOVERING) {
                core.snapshots().checkpoint(view);
            }
            if (phase instanceof Primary) {
                lead(view, live);
                return;
            }
            if (live != null) {
                follow(live);
            } else {
                elections.tick(view); // a secondary, or a recovering replica in a catastrophe, may stand
            }
            publish();
        });
    }

    /** A primary's tick: fenced by a newer epoch, ranked against a second primary, excludes the absent. */
    private void lead(List<Replica> view, @Nullable Replica live) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (live != null && live.epoch() > core.log.epoch()) {
            stepDown(live.node() + " is primary at epoch " + live.epoch()); // fenced
            return;
        }
        if (live != null && (live.priority() > priority
                || live.priority() == priority && live.node().value().compareTo(core.self.value()) < 0)) {
            // Two primaries of one epoch: a race the election guards against went wrong. Their logs differ,
            // so one must go, and the writes only it acknowledged are lost; both agree which by rank.
            logger.error("{}: [NEP-REPL-002] {} is also primary at epoch {}; stepping down for it (higher"
                    + " priority or node id)", name, live.node(), live.epoch());
            stepDown("a second primary at epoch " + live.epoch());
            return;
        }
        pipeline.excludeAbsent(view); // not right after a pause: its yellow page may have expired meanwhile
        pipeline.tick();
        publish();
    }

    /** A tick of a replica that sees {@code live} as primary: it checks it is followed, joins, or asks for the role. */
    private void follow(Replica live) {
        assert core.exec.inExecutor() : "off the partition's executor";
        primary = live.node();
        String excluded = watch.check(core.clock.getAsLong(), new PrimaryWatch.Announced(live.node().value(),
                live.epoch(), live.logEnd(), live.version()), new PrimaryWatch.Own(role() == ReplicaRole.SECONDARY,
                core.log.epoch(), core.log.lastLsn(), core.applied));
        if (excluded != null) {
            stepDown(excluded);
        }
        if (role() != ReplicaRole.RECOVERING) {
            if (priority > live.priority() && !watch.awaitingNewerPrimary()) {
                priorityHandover.maybeAsk(live, () -> role() == ReplicaRole.SECONDARY,
                        r -> takeOverFrom(live, r, "took over by priority", false));
            }
        } else {
            rejoin.tick(live.node()); // recovery phase 2: fetch what this replica missed from the primary
        }
    }

    private @Nullable Replica livePrimary(List<Replica> view) {
        return Election.livePrimary(view, core.self, core.log.epoch());
    }

    /**
     * Takes the primary role at {@code epoch}, with {@code followers} as its in-sync secondaries and
     * {@code others} (recovering replicas) told the epoch ({@link PrimaryPipeline#lead}); {@code pinned}
     * by an operator's move-primary. It is announced once they all hold the epoch ({@link #publish}).
     */
    private void becomePrimary(long epoch, Map<NodeId, Long> followers, List<NodeId> others, String why,
            boolean pinned) {
        adoptEpoch(epoch);
        enter(new Primary(null, pinned));
        primary = core.self;
        epochLeader = core.self;
        pipeline.lead(followers, others);
        logger.info("{}: became primary at epoch {} ({}); log end {}, applied {}, followers {}", name, epoch, why,
                core.log.lastLsn(), core.applied, pipeline.secondaries());
        publish();
        pipeline.catchUp();
    }

    /** Carries out what the election decided about this replica's phase ({@link Elections} does the rest). */
    private void electionDecided(Ready.Effect effect) {
        if (effect instanceof Ready.Stand stand) {
            enter(new Electing(phase, stand.round()));
        } else if (effect instanceof Ready.RoundOver && phase instanceof Electing electing) {
            enter(electing.from());
        } else if (effect instanceof Ready.BecomePrimary become) {
            becomePrimary(become.epoch(), become.followers(), become.others(), become.why(), false);
        } else {
            throw new IllegalStateException("an election decided " + effect);
        }
    }

    /** Carries out what the join decided about this replica's phase, primary and epoch ({@link Rejoin} does the rest). */
    private void joinDecided(Ready.Effect effect) {
        if (effect instanceof Ready.JoinUnderWay underWay) {
            enter(new Joining(underWay.attempt()));
        } else if (effect instanceof Ready.AdoptEpoch newer) {
            adoptEpoch(newer.epoch());
        } else if (effect instanceof Ready.FollowPrimary follow) {
            primary = follow.primary();
            epochLeader = follow.primary();
            commitLsn = Math.max(commitLsn, follow.commitLsn());
        } else if (effect instanceof Ready.Recover recover) {
            enter(new Recovering(recover.joinedTo()));
        } else if (effect instanceof Ready.Resume) {
            enter(new Secondary()); // recovery phase 3: resume
            watch.heard(core.clock.getAsLong());
            publish();
        } else {
            throw new IllegalStateException("a joining replica decided " + effect);
        }
    }

    /** Takes the primary role from {@code live}, which handed it over with {@code r}; {@code pinned} by an operator. */
    private void takeOverFrom(Replica live, HandoverReply r, String why, boolean pinned) {
        becomePrimary(Math.max(core.log.epoch(), r.epoch()) + 1, TakeOvers.followers(core.peers.replicas(core.service,
                core.partition), core.self, core.log.lastLsn(), live, r), List.of(), why, pinned);
    }

    private void adoptEpoch(long epoch) {
        if (epoch > core.log.epoch()) {
            core.log.persistEpoch(epoch);
            epochLeader = null;
        }
    }

    /** Steps down to RECOVERING, where it takes no primary's {@code replicate} until it joins again. */
    private void stepDown(String why) {
        stepDown(new Recovering(null), why);
    }

    /**
     * Moves to {@code next} (RECOVERING, or HANDING_OVER from PRIMARY), and publishes. A primary's
     * writes waiting to commit are answered IN_DOUBT: the next primary may still commit them.
     */
    private void stepDown(PrimaryBackupPhase next, String why) {
        if (phase instanceof Closed) {
            return;
        }
        if (phase instanceof Primary) {
            logger.warn("{}: stepping down as primary: {}", name, why);
            pipeline.abandon(requestId -> ResponseMessage.error(requestId, Status.IN_DOUBT, core.self
                    + " stopped being the primary of " + core.service + "#" + core.partition + " (" + why
                    + ") before the write committed; the next primary may still commit it"));
        } else {
            logger.warn("{}: {} -> {}: {}", name, phase.kind(), next.kind(), why);
        }
        enter(next);
        publish();
    }

    /**
     * Announces this replica's state, except a new primary's until its secondaries hold its epoch
     * ({@link PrimaryPipeline#epochHeld}): killed before that, no replica left would know the epoch, and
     * the next primary (an operator's promote after a catastrophe) could lead it again. Unannounced, it
     * was never anyone's primary; its status answers rivals as PRIMARY all the same.
     */
    private void publish() {
        if (phase instanceof Closed || phase instanceof Primary && !pipeline.epochHeld()) {
            return;
        }
        core.publish(role(), phase instanceof Primary ? versions.boundVersion(core.clock.getAsLong()) : 0);
    }

    @Override
    public ReplicaCore core() {
        return core;
    }

    @Override
    public void close() {
        core.exec.execute(() -> {
            enter(new Closed());
            pipeline.abandon(requestId -> ResponseMessage.error(requestId, Status.IN_DOUBT, core.self
                    + " is shutting down before the write committed; it may still commit under the next primary"));
        });
    }
}
