package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.replication.runtime.PeerMessages.Demote;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.protocol.CommitWaiters;
import io.neptune.server.internal.replication.protocol.InSyncLeader;
import io.neptune.server.internal.replication.protocol.Ready;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongFunction;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary's side of a fail-stop level-2/3 partition ({@code docs/protocols/replication.md}),
 * carried out: its {@link InSyncLeader} decides what to log, send, commit and exclude; this driver
 * does it against the partition's log, its peers and its service, feeds the secondaries' answers
 * and this node's forces back, applies what commits a slice at a time and answers the client
 * requests waiting for it. Only a primary uses it; stepping down {@linkplain #abandon abandons} it.
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
    private final Host host;
    private final InSyncLeader leader;
    /** Carries out what {@link #leader} decides, handing this mode's own effects to {@link #carryOutOwn}. */
    private final LeaderEffects effects;
    /** The requests waiting for the pending writes: each write and any retry of it that arrived meanwhile. */
    private final CommitWaiters waiters = new CommitWaiters();
    /** Committing a slice at a time: a {@link #commitReady} that did not finish queues the next. */
    private final ApplySlices slices;
    /** Who waits for this primary to be announced ({@link #whenAnnounced}): true once it is, false if it stepped down first. */
    private final List<Consumer<Boolean>> announcing = new ArrayList<>();

    PrimaryPipeline(ReplicaCore core, long ackTimeoutMillis, Host host) {
        this.core = core;
        this.host = host;
        this.leader = new InSyncLeader(core.self, core.logView, TimeUnit.MILLISECONDS.toNanos(ackTimeoutMillis),
                PrimaryBackupReplica.PAUSE_NANOS);
        // a message names the origin of its record at prev: the secondaries compare it with their own
        ReplicateSender sender = new ReplicateSender(core, core.log::epoch, true,
                (node, sentNanos, ack, e) -> onAck(node, ack, e));
        // each record that is durable here is reported to the leader (InSyncLeader#logged)
        this.effects = new LeaderEffects(core, logger, sender, new LeaderEffects.Reported(leader::logged),
                this::carryOutOwn);
        this.slices = new ApplySlices(core, host::leads, this::commitReady);
    }

    /**
     * Takes a client write: a retry is answered from what this log knows, a new write is logged,
     * sent to every in-sync secondary and answered once committed. A retry of a write an earlier
     * primary logged but did not commit is answered IN_DOUBT: only the next primary decides it.
     */
    void write(RequestMessage request, Consumer<ResponseMessage> reply) {
        LogRecord record = core.nextWrite(request, core.log.epoch(), reply, logged -> {
            if (leader.pending(logged)) {
                waiters.add(logged, request.requestId(), reply);
            } else {
                reply.accept(ResponseMessage.error(request.requestId(), Status.IN_DOUBT, core.name + ": the write is"
                        + " logged here at LSN " + logged + " by an earlier primary and not committed; the"
                        + " next primary decides it"));
            }
        });
        if (record != null) {
            waiters.add(record.lsn(), request.requestId(), reply);
            host.assigned(record.epoch(), record.lsn());
            effects.carryOut(leader.write(record, core.local()));
            host.publish();
        }
    }

    /** Periodic work (every tick of a primary): resends what may have been lost, excludes who did not keep up. */
    void tick() {
        effects.carryOut(leader.tick(core.local()));
    }

    /** Notes a tick of the replica (every 100 ms, whatever its role): a long gap since the last means a pause. */
    void ticked() {
        effects.carryOut(leader.ticked(core.clock.getAsLong()));
    }

    /**
     * Starts leading with {@code followers} in sync up to their log ends, and the replicas of
     * {@code others} to be told its epoch ({@link InSyncLeader#lead}).
     */
    void lead(Map<NodeId, Long> followers, List<NodeId> others) {
        waiters.clear();
        leader.lead(followers, new LinkedHashSet<>(others), core.local());
    }

    /** Sends every follower what it lacks and commits what is ready (after {@link #lead}). */
    void catchUp() {
        effects.carryOut(leader.catchUp(core.local()));
    }

    /** The in-sync secondaries, in an order that is the same from one run to the next. */
    List<NodeId> secondaries() {
        return leader.secondaries();
    }

    /** Whether no write waits to commit. */
    boolean idle() {
        return leader.idle();
    }

    /** Whether the secondaries it leads hold its epoch, so that it may be announced ({@link InSyncLeader#epochHeld}). */
    boolean epochHeld() {
        return leader.epochHeld();
    }

    /** Counts {@code node}, which joined with its log equal to this one up to {@code keep}, as in sync. */
    void follow(NodeId node, long keep) {
        leader.follow(node, keep);
    }

    /** Whether {@code node} is in sync, noting that it has logged up to {@code lsn}. */
    boolean acknowledged(NodeId node, long lsn) {
        return leader.acknowledged(node, lsn);
    }

    /** Excludes the in-sync secondaries that left {@code view}. */
    void excludeAbsent(List<Replica> view) {
        Set<NodeId> present = view.stream().map(Replica::node).collect(Collectors.toSet());
        effects.carryOut(leader.excludeAbsent(present, core.local()));
    }

    /** Stops counting {@code secondary} as in sync: writes no longer wait for it. */
    void forget(NodeId secondary) {
        effects.carryOut(leader.forget(secondary));
    }

    /** Answers every pending write with {@code answer} (by request id) and forgets all state. */
    void abandon(LongFunction<ResponseMessage> answer) {
        waiters.abandon(answer);
        leader.clear();
        announced(false);
    }

    private void onAck(NodeId secondary, @Nullable Ack ack, @Nullable Throwable error) {
        if (!host.leads()) {
            return;
        }
        if (error != null || ack == null) {
            String why = error == null ? "no reply" : String.valueOf(error.getMessage());
            effects.carryOut(leader.lost(secondary, why, core.local()));
        } else {
            effects.carryOut(leader.acked(secondary, ack, core.local()));
        }
    }

    /**
     * Calls {@code then} with true once this primary is announced, which is once its secondaries hold its
     * epoch ({@link #epochHeld}; at once if they do), or with false if it steps down before.
     */
    void whenAnnounced(Consumer<Boolean> then) {
        if (leader.epochHeld()) {
            then.accept(true);
        } else {
            announcing.add(then);
        }
    }

    /** Tells who waits for this primary to be announced that it {@code was}, or that it stepped down before. */
    private void announced(boolean was) {
        List<Consumer<Boolean>> waiting = List.copyOf(announcing);
        announcing.clear();
        waiting.forEach(then -> then.accept(was));
    }

    /** Carries out an effect that is fail-stop mode's own ({@link LeaderEffects.Own}). */
    private void carryOutOwn(Ready.Effect effect) {
        if (effect instanceof Ready.ApplyReady) {
            commitReady();
        } else if (effect instanceof Ready.Demote d) {
            core.peers.call(d.to(), core.request("demote",
                    new Demote(core.service, core.partition, core.log.epoch())), Ack.class);
        } else if (effect instanceof Ready.StepDown s) {
            host.stepDown(s.why());
        } else if (effect instanceof Ready.Announce) {
            host.publish();
            announced(true);
        } else {
            throw new IllegalStateException("a fail-stop primary decided " + effect);
        }
    }

    /**
     * Applies and answers the pending writes that are ready to commit, in LSN order, a slice
     * ({@value ApplySlices#APPLY_SLICE_MILLIS} ms) at a time: a new primary's unapplied tail must not
     * hold a pool thread for long.
     */
    void commitReady() {
        boolean any = false;
        long start = core.clock.getAsLong();
        while (!leader.idle()) {
            if (any && slices.spent(start)) {
                slices.next();
                break;
            }
            long lsn = leader.committable(core.local());
            if (lsn < 0) {
                break;
            }
            if (!core.applyUpTo(lsn)) {
                // its followers applied (or will apply) this write: one of them serves while this one cannot
                host.stepDown("the write at LSN " + core.storageFailedAt() + " failed in storage");
                return;
            }
            LogRecord write = leader.committed(lsn);
            waiters.answer(lsn, core.cached(write.requestId()));
            any = true;
        }
        if (any) {
            host.committed();
            effects.carryOut(leader.announce(core.local()));
            host.publish();
        }
    }
}
