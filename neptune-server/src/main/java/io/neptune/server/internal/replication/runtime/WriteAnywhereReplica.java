package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.LogBoundary;
import io.neptune.server.internal.log.LogException;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.OriginBase;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.runtime.PeerMessages.Entry;
import io.neptune.server.internal.replication.runtime.PeerMessages.Gossip;
import io.neptune.server.internal.replication.runtime.PeerMessages.Pull;
import io.neptune.server.internal.replication.runtime.PeerMessages.PullReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.ReplicaStatus;
import io.neptune.server.internal.replication.runtime.PeerMessages.StatusRequest;
import io.neptune.server.internal.replication.runtime.WriteAnywherePhase.Closed;
import io.neptune.server.internal.replication.runtime.WriteAnywherePhase.Installing;
import io.neptune.server.internal.replication.runtime.WriteAnywherePhase.OutOfService;
import io.neptune.server.internal.replication.runtime.WriteAnywherePhase.Recovering;
import io.neptune.server.internal.replication.runtime.WriteAnywherePhase.Serving;
import io.neptune.server.internal.replication.protocol.WriteDedup;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Level 1 write-anywhere replication of one partition (DESIGN §6.1): a write runs at whichever
 * replica the client picked, is logged and applied there, answered, and then pushed to the other
 * replicas, which apply it once, in any order (the writes commute). Each replica tracks, per
 * origin, the highest origin sequence it applied; a periodic pull from every peer (anti-entropy)
 * fetches whatever a push missed, which is also how a restarted replica catches up.
 *
 * <p>A write is identified by its client's request id across replicas. A retry that reaches a
 * replica which already logged that id is answered from there. A retry that reaches a second
 * replica before the gossip does runs there too. Then each replica runs the copy it logs first and
 * logs the other as a {@link RecordKind#REPEAT}, so every replica runs the write once. The log
 * remembers the last {@value io.neptune.server.internal.log.RedoLog#REQUEST_ID_CAPACITY} request
 * ids per partition; a retry later than that runs again.
 *
 * <p>A replica takes client writes only while it serves (SECONDARY). It serves after a round of
 * anti-entropy in which every peer answered in full and it logged every write of its own origin a
 * peer holds: a restart after a machine crash can take back the tail of a log written with
 * {@code log-sync: none}, and its own writes there, which peers may have, come back from them
 * before it numbers a new write (a reused origin sequence would be a write the peers never take).
 * It leaves service for good (until the node restarts, or is rebuilt) when its log failed, and when
 * its service applied writes the log lost ({@link io.neptune.server.internal.log.RedoLog#lostTailEnd()}):
 * level-1 LSNs are each replica's own order of arrival, so no peer's record can be shown to be the
 * write applied at one of those LSNs, and logging any there would skip a write or run one twice.
 *
 * <p>Thread-safety: all state is confined to the partition's serial executor.
 */
final class WriteAnywhereReplica implements PartitionReplica {
    private static final Logger logger = LoggerFactory.getLogger(WriteAnywhereReplica.class);
    private static final long PULL_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * How long a replica of a partition configured with peers waits to hear of one before it serves
     * alone: as long as a yellow-page entry lives unheard. A restarted node's yellow page starts
     * empty and fills within an announcement interval; serving at once would take it for a lone
     * replica before it could fetch its own writes a crash took from its log.
     */
    private static final long ALONE_AFTER_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final ReplicaCore core;
    private final int priority;
    private final int configuredReplicas;
    /** What this replica holds of each origin's writes. */
    private final OriginIndex origins = new OriginIndex();
    /** Per peer, what it has durably seen, from its latest pull: a checkpoint drops only writes every peer has. */
    private final Map<String, Map<String, Long>> peerSeen = new HashMap<>();
    /** Per peer, when its latest pull found nothing here that it lacked (or null): a snapshot comes only from such a peer. */
    private final Map<String, Long> pulledAllAt = new HashMap<>();
    /** Where this replica stands, with the install under way or why it left service; written only by {@link #enter}. */
    private WriteAnywherePhase phase = new Recovering();
    private long lastPullNanos;
    private int pullsInFlight;
    private long startedNanos;
    /** Bumped by each install: an append's completion from before an install is stale (the log restarted). */
    private long installs;
    /**
     * The highest own sequence given out before the last install: the snapshot may predate some of
     * them, which its source holds in its log; this replica serves (and numbers new writes) only once
     * it logged them again, or it would give their sequences out twice. Kept in the log directory
     * ({@link OriginBase#writeOwnFloor}), written before an install restarts the log.
     */
    private long ownFloor;

    WriteAnywhereReplica(ReplicaCore core, ReplicaSettings settings) {
        this.core = core;
        this.priority = settings.priority();
        this.configuredReplicas = settings.configuredReplicas();
        core.attach(new ModeCallbacks() {
            @Override
            public String snapshotMembers(long lsn) {
                return OriginBase.encode(origins.seenAt(lsn));
            }

            @Override
            public void installedMembers(String members) {
                installedSnapshot(members);
            }

            @Override
            public LogBoundary continueAfter(LogBoundary offered) {
                // Above everything the log and the service hold: after a crash during the install the service
                // applied less than the log's boundary, and the replica installs again.
                return new LogBoundary(Math.max(Math.max(core.log.lastLsn(), core.applied) + 1, offered.lsn()),
                        offered.epoch(), offered.origin());
            }
        });
    }

    @Override
    public void start() {
        core.exec.execute(() -> {
            startedNanos = core.clock.getAsLong();
            core.internalSync();
            origins.restore(OriginBase.read(core.directory));
            ownFloor = OriginBase.readOwnFloor(core.directory);
            core.forEachRecord(origins::recovered);
            long lost = core.log.lostTailEnd();
            if (lost > 0) {
                leaveService("NEP-L1-001", "its service applied writes up to LSN " + lost + " that its REDO log lost"
                        + " (log end " + core.log.lastLsn() + "); level-1 LSNs are this replica's own, so no peer's"
                        + " record can be shown to be one of those writes: rebuild this replica from its peers"
                        + " (docs/OPERATIONS.md, 'Machine crashes')");
            }
            if (core.needsSnapshot && phase instanceof Recovering) {
                enter(new Installing(null, false));
                logger.error("{}: [NEP-L1-003] its service lost writes its log no longer holds (dropped after a"
                        + " checkpoint); it installs a snapshot from a peer before it serves", core.name);
            } else {
                apply(core.log.lastLsn()); // every logged level-1 write is final where it was logged
            }
            publish();
        });
    }

    @Override
    public void write(RequestMessage request, Consumer<ResponseMessage> reply) {
        core.exec.execute(() -> {
            // A retry of a write answered here, logged here before a restart, or logged elsewhere and gossiped here.
            WriteDedup known = core.seen(request);
            if (known instanceof WriteDedup.Answer answer) {
                reply.accept(answer.response());
                return;
            }
            if (known instanceof WriteDedup.Logged logged) {
                reply.accept(ResponseMessage.error(request.requestId(), Status.IN_DOUBT, core.name + ": the write is"
                        + " logged at LSN " + logged.lsn() + " and not applied yet"));
                return;
            }
            if (!(phase instanceof Serving)) {
                // Until its first full round it may lack writes of its own that a crash took from its log, whose
                // sequence numbers the peers hold: a new write must not get one of them.
                String why = phase instanceof OutOfService out ? " (" + out.reason() + ")" : "";
                reply.accept(ResponseMessage.error(request.requestId(), Status.UNAVAILABLE, core.name + " is "
                        + phase.role() + why + "; the write did not run"));
                return;
            }
            if (core.refusedUndecodable(request, reply)) {
                return;
            }
            long seq = origins.logged(core.self.value()) + 1;
            LogRecord record = new LogRecord(core.log.lastLsn() + 1, 0, RecordKind.WRITE, request.id(),
                    core.self.value(), seq, request.method(), request.payload());
            CompletableFuture<Void> appended = append(record);
            boolean took = noteIfTaken(record);
            long generation = installs;
            appended.whenComplete((v, e) -> core.exec.execute(() -> {
                if (generation != installs) {
                    reply.accept(ResponseMessage.error(request.requestId(), Status.IN_DOUBT, core.name
                            + ": a snapshot replaced the log while the write was being logged"));
                    return;
                }
                if (phase instanceof Closed) {
                    reply.accept(ResponseMessage.error(request.requestId(), Status.IN_DOUBT, core.name + " closed while"
                            + " the write at LSN " + record.lsn() + " was being logged; if it reached the disk it runs"
                            + " when this node starts again: retry with the same request id"));
                    return;
                }
                if (e != null) {
                    appendFailed(record, took, e);
                    reply.accept(took
                            ? ResponseMessage.error(request.requestId(), Status.IN_DOUBT, core.name + ": the REDO log"
                                    + " took the write at LSN " + record.lsn() + " but failed writing it (" + e.getMessage()
                                    + "); it did not run here and reached no other replica, but if its record reached"
                                    + " the disk it runs when this node restarts: retry with the same request id")
                            : ResponseMessage.error(request.requestId(), Status.UNAVAILABLE, core.name + ": the REDO log"
                                    + " refused the write (" + e.getMessage() + "); it did not run"));
                    return;
                }
                origins.durable(record);
                apply(record.lsn());
                ResponseMessage response = core.cached(record.requestId());
                reply.accept(response == null
                        ? ResponseMessage.error(request.requestId(), Status.IN_DOUBT,
                                core.name + ": the write was logged at LSN " + record.lsn() + " and reaches the other"
                                        + " replicas, but storage failed here before it could be applied")
                        : WriteDedup.readdressed(response, request.requestId()));
                publish();
                push(record);
            }));
        });
    }

    private void push(LogRecord record) {
        Gossip gossip = new Gossip(core.service, core.partition, List.of(Entry.of(record)));
        for (Replica peer : core.peers.replicas(core.service, core.partition)) {
            if (!peer.node().equals(core.self)) {
                core.peers.call(peer.node(), core.request("gossip", gossip), Ack.class);
            }
        }
    }

    /**
     * Appends and applies remote writes not logged yet; each origin's writes only in sequence. A
     * write counts as seen once durable; one the log refuses is neither applied nor seen, and holds
     * back its origin's later writes, so the next pull fetches them all again. Writes of this
     * replica's own origin come back this way after a crash took them from its log: every write it
     * numbered since it started is logged already, so one with the next sequence is one it lost.
     *
     * <p>The batch stops at the first record the log does not take at once (refused, or the log
     * threw): the rest comes with the next pull.
     *
     * @return null if every entry was logged or already known, else why the batch stopped
     */
    private @Nullable String accept(List<Entry> entries) {
        if (phase instanceof OutOfService out) {
            return out.reason();
        }
        if (installing()) {
            return "installing a snapshot";
        }
        List<Entry> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparing(Entry::origin).thenComparingLong(Entry::originSeq));
        for (Entry entry : sorted) {
            long have = origins.logged(entry.origin());
            if (entry.originSeq() != have + 1) {
                continue; // already logged, or a gap (also after a write the log refused) the next pull fills
            }
            // A client retried this write at a second replica before the first one's gossip got there, so
            // both ran it. Each replica runs whichever copy it logged first and logs the other as a repeat.
            // The response cache remembers the latest writes that ran here after a checkpoint dropped their records.
            RequestId id = new RequestId(entry.idHigh(), entry.idLow());
            boolean repeat = core.log.lsnOf(id).isPresent() || core.cached(id) != null;
            LogRecord record;
            try {
                record = entry.toRecord(core.log.lastLsn() + 1, repeat ? RecordKind.REPEAT : RecordKind.WRITE);
            } catch (IllegalArgumentException e) {
                logger.warn("{}: write {}/{} from {} (sequence {}) is not a valid record; stopping the batch there: {}",
                        core.name, entry.idHigh(), entry.idLow(), entry.origin(), entry.originSeq(), e.toString());
                return "invalid record: " + e.getMessage();
            }
            CompletableFuture<Void> appended = append(record);
            boolean took = noteIfTaken(record);
            long generation = installs;
            if (took && repeat) {
                logger.info("{}: write {} from {} (sequence {}) already ran here; logged as a repeat", core.name,
                        record.requestId(), entry.origin(), entry.originSeq());
            }
            appended.whenComplete((v, e) -> core.exec.execute(() -> {
                if (phase instanceof Closed || generation != installs) {
                    return; // its log is closed: it applies what it logged when the node starts again
                }
                if (e != null) {
                    appendFailed(record, took, e);
                    return;
                }
                origins.durable(record);
                apply(record.lsn());
                publish();
            }));
            if (appended.isCompletedExceptionally()) {
                return "the REDO log did not take record " + record.lsn() + ": "
                        + appended.handle((v, e) -> causeOf(e).getMessage()).join();
            }
        }
        return null;
    }

    /**
     * {@link ReplicaCore#append}, with an exception the log throws (rather than reports through the
     * future) turned into a failed append: a {@link LogException} so thrown means the log failed.
     */
    private CompletableFuture<Void> append(LogRecord record) {
        try {
            return core.append(record);
        } catch (LogException e) {
            leaveService("NEP-L1-002", "its REDO log failed on record " + record.lsn() + " (" + e.getMessage()
                    + ") and cannot be trusted with more until the node restarts");
            return CompletableFuture.failedFuture(e);
        } catch (IllegalArgumentException | IllegalStateException e) {
            // out of sequence, a field too large, or the log closed: not a record this log can take now
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Whether the log took {@code record}, just appended (it is then readable at its LSN); if so,
     * notes it as its origin's latest write logged here. A record the log refused is not in it: its
     * LSN and its origin's sequence number stay free for it.
     */
    private boolean noteIfTaken(LogRecord record) {
        if (core.log.lastLsn() != record.lsn()) {
            return false;
        }
        origins.took(record);
        return true;
    }

    /**
     * A write whose append failed is not applied and not seen. If the log took it and then failed
     * to write it, the log refuses every change from then on (until a restart rebuilds this state
     * from it), so the origin's writes after it fail too: none of them counts as logged any more.
     */
    private void appendFailed(LogRecord record, boolean took, Throwable e) {
        if (took) {
            origins.failed(record);
        }
        if (took || core.log.hasFailed()) {
            leaveService("NEP-L1-002", "its REDO log failed writing record " + record.lsn() + " ("
                    + causeOf(e).getMessage() + ") and refuses every change until the node restarts");
        }
        logger.debug("{}: REDO log append of write {} from {} (sequence {}) failed; not applied, the next pull"
                + " fetches it again: {}", core.name, record.requestId(), record.origin(), record.originSeq(),
                e.toString());
    }

    /** Takes this replica out of service until the node restarts (or is rebuilt), saying why once, at ERROR. */
    private void leaveService(String code, String reason) {
        if (phase instanceof OutOfService || phase instanceof Closed) {
            return; // said once, with the first reason
        }
        logger.error("{}: [{}] {} -> {}: {}", core.name, code, phase.role(), ReplicaRole.RECOVERING, reason);
        enter(new OutOfService(reason));
        publish();
    }

    /** Moves to {@code next}, the only way the phase changes ({@link WriteAnywherePhase} has the table). */
    private void enter(WriteAnywherePhase next) {
        assert core.exec.inExecutor() : "off the partition's executor";
        assert phase.mayBecome(next) : core.name + ": " + phase + " -> " + next;
        phase = next;
    }

    private void publish() {
        core.publish(phase.role(), 0);
    }

    private static Throwable causeOf(Throwable e) {
        return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
    }

    @Override
    public Class<?> messageType(String method) {
        return switch (method) {
            case "gossip" -> Gossip.class;
            case "pull" -> Pull.class;
            case "status" -> StatusRequest.class;
            case "snapshot", "chunk" -> Snapshots.messageType(method);
            default -> throw new IllegalArgumentException("method: '" + method
                    + "' (expected: gossip, pull, status, snapshot, chunk)");
        };
    }

    @Override
    public void onPeerMessage(String method, Object message, Consumer<Object> reply) {
        core.exec.execute(() -> {
            if (phase instanceof Closed) {
                return; // the caller times out, as with a node that stopped
            }
            if (core.snapshots().onPeerMessage(message, reply)) {
                return;
            }
            if (message instanceof Gossip gossip) {
                String stopped = accept(gossip.entries());
                reply.accept(stopped == null ? new Ack(true, core.log.lastLsn(), 0, "")
                        : new Ack(false, core.durable, 0, stopped)); // the sender's next pull brings the rest
            } else if (message instanceof Pull pull) {
                PullReply answer = origins.missing(pull.seen(), core.durable, core.log::record, core.maxBatchBytes);
                if (pull.from() != null) {
                    peerSeen.put(pull.from(), Map.copyOf(pull.seen()));
                    if (answer.entries().isEmpty() && !answer.truncated() && answer.gone() == null
                            && core.durable >= core.log.lastLsn()) {
                        pulledAllAt.put(pull.from(), core.clock.getAsLong());
                    } else {
                        pulledAllAt.remove(pull.from());
                    }
                }
                reply.accept(answer);
            } else if (message instanceof StatusRequest m) {
                reply.accept(new ReplicaStatus(core.self.value(), phase.role().name(), 0, 0, core.log.lastLsn(),
                        core.applied, priority, core.digestFor(m), core.log.startLsn()));
            }
        });
    }

    /** Applies up to {@code lsn}; a write failing in storage takes this replica out of service until it applies. */
    private void apply(long lsn) {
        if (!core.applyUpTo(lsn) && phase instanceof Serving) {
            logger.warn("{}: {} -> {}: the write at LSN {} failed in storage", core.name, phase.role(),
                    ReplicaRole.RECOVERING, core.storageFailedAt());
            enter(new Recovering());
        }
    }

    @Override
    public void tick() {
        core.exec.runNowOrQueue(() -> {
            if (phase instanceof Closed || phase instanceof OutOfService) {
                return; // its log takes nothing until the node restarts: pulling would only fetch what it refuses
            }
            if (installing()) {
                installTick();
                return;
            }
            if (core.storageFailedAt() != 0) {
                apply(core.log.lastLsn()); // retry; the next anti-entropy round puts it back in service
            }
            checkpoint();
            long now = core.clock.getAsLong();
            if (pullsInFlight > 0 || now - lastPullNanos < PULL_INTERVAL_NANOS) {
                return;
            }
            lastPullNanos = now;
            List<Replica> peers = new ArrayList<>(core.peers.replicas(core.service, core.partition));
            peers.removeIf(r -> r.node().equals(core.self));
            if (peers.isEmpty()) {
                ready(configuredReplicas <= 1 || now - startedNanos >= ALONE_AFTER_NANOS);
                return;
            }
            Pull pull = new Pull(core.service, core.partition, origins.seen(), core.self.value());
            Round round = new Round();
            List<CompletableFuture<@Nullable PullReply>> replies = new ArrayList<>();
            for (Replica peer : peers) {
                pullsInFlight++;
                replies.add(core.within(core.peers.call(peer.node(), core.request("pull", pull),
                        PullReply.class), TimeUnit.SECONDS.toMillis(5)).exceptionally(e -> null)
                        .whenComplete((r, e) -> core.exec.execute(() -> {
                            pullsInFlight--;
                            round.add(r, core.self.value(), peer.node());
                            if (r != null && accept(r.entries()) != null) {
                                round.complete = false;
                            }
                        })));
            }
            CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> core.exec.execute(
                    () -> roundDone(round)));
        });
    }

    private void roundDone(Round round) {
        if (round.complete) {
            for (Map.Entry<String, Long> gone : round.gone.entrySet()) {
                if (origins.logged(gone.getKey()) < gone.getValue() && !installing()) {
                    NodeId from = round.goneAt.get(gone.getKey());
                    logger.error("{}: [NEP-L1-003] it lacks writes of origin {} up to sequence {} that {} dropped after"
                            + " a checkpoint and no peer sent; it installs a snapshot from {} before it serves again",
                            core.name, gone.getKey(), gone.getValue(), from, from);
                    enter(new Installing(from, false));
                    pulledAllAt.clear(); // only a pull after this replica stopped taking writes tells the source has them
                }
            }
        }
        ready(round.complete && origins.logged(core.self.value()) >= round.ownSeq);
    }

    /**
     * What one anti-entropy round learned: whether every peer answered in full, its highest
     * own-origin write, and per origin whose writes a peer dropped before what this replica has,
     * the highest dropped sequence and a peer that said so.
     */
    private static final class Round {
        boolean complete = true;
        long ownSeq;
        final Map<String, Long> gone = new HashMap<>();
        final Map<String, NodeId> goneAt = new HashMap<>();

        void add(@Nullable PullReply reply, String self, NodeId peer) {
            if (reply == null || reply.truncated()) {
                complete = false;
                return;
            }
            for (Entry entry : reply.entries()) {
                if (entry.origin().equals(self)) {
                    ownSeq = Math.max(ownSeq, entry.originSeq());
                }
            }
            if (reply.gone() != null) {
                reply.gone().forEach((origin, seq) -> {
                    if (seq > gone.getOrDefault(origin, 0L)) {
                        gone.put(origin, seq);
                        goneAt.put(origin, peer);
                    }
                });
            }
        }
    }

    /** Whether this replica must install a snapshot before it takes writes again. */
    private boolean installing() {
        return phase instanceof Installing || core.needsSnapshot || core.snapshots().installing();
    }

    /**
     * Progress of a snapshot install. It starts only once the source's latest pull found nothing here
     * it lacked (the snapshot then holds every write this replica had, its own among them, or the
     * source's log after the snapshot does); it ends when the service holds the snapshot, and the
     * replica serves again after its next full anti-entropy round.
     */
    private void installTick() {
        if (!(phase instanceof Installing)) {
            enter(new Installing(null, false)); // the service lost writes its log no longer holds
        }
        Installing install = (Installing) phase;
        if (install.started() && !core.snapshots().installing()) {
            logger.info("{}: installed a snapshot from {}; serving after the next full round of anti-entropy", core.name,
                    install.from());
            enter(new Recovering());
            lastPullNanos = 0;
            publish();
            return;
        }
        List<Replica> peers = new ArrayList<>(core.peers.replicas(core.service, core.partition));
        peers.removeIf(r -> r.node().equals(core.self) || r.role() != ReplicaRole.SECONDARY);
        NodeId from = install.from();
        if (from == null || !serves(peers, from)) {
            if (peers.isEmpty()) {
                publish();
                return; // no peer serves: wait for one (the install resumes where it stopped)
            }
            from = peers.get(0).node();
            enter(new Installing(from, false));
        }
        if (!((Installing) phase).started()) {
            Long pulledAll = pulledAllAt.get(from.value());
            if (pulledAll == null || core.clock.getAsLong() - pulledAll > 2 * PULL_INTERVAL_NANOS) {
                publish();
                return; // the source has not pulled everything this replica holds yet
            }
            // durable before the install restarts the log, which then no longer shows the own writes given out
            ownFloor = Math.max(ownFloor, origins.logged(core.self.value()));
            OriginBase.writeOwnFloor(core.directory, ownFloor);
            core.needsSnapshot = true;
            enter(new Installing(from, true));
        }
        core.snapshots().installFrom(from);
        publish();
    }

    private static boolean serves(List<Replica> peers, NodeId node) {
        return peers.stream().anyMatch(r -> r.node().equals(node));
    }

    /** The service now holds a snapshot that has each origin's writes up to {@code text}'s ({@link OriginBase}) sequence. */
    private void installedSnapshot(String text) {
        Map<String, Long> installed = OriginBase.parse(text);
        installs++;
        OriginBase.write(core.directory, installed);
        origins.installed(installed);
    }

    /**
     * Drops the log records every peer has durably seen, once enough can go ({@link Snapshots#checkpoint}):
     * a peer that has not pulled since this node started holds back everything, up to {@code log-retention}.
     * This replica's own writes that a peer lacks stay whatever the retention says: they are nowhere
     * else, and if every replica dropped writes the others lack, each would need a snapshot that holds
     * all of them, which none has (the nemesis bench found three replicas of a partition all waiting so,
     * after a three-way split, with {@code --log-retention 40}).
     */
    private void checkpoint() {
        if (!(phase instanceof Serving)) {
            return;
        }
        boolean everyPeerHeard = peerSeen.size() >= configuredReplicas - 1;
        // a peer not heard from since this node started may lack any write: nothing goes then
        long neededFrom = everyPeerHeard ? origins.firstNeeded(peerSeen.values()) : core.log.startLsn();
        // this replica's own writes a peer lacks are nowhere else: they stay whatever the retention says
        long keepAnyway = origins.firstUnseen(core.self.value(), peerSeen.values(), everyPeerHeard);
        long start = core.log.startLsn();
        core.snapshots().checkpoint(neededFrom, keepAnyway, keepFrom -> {
            Map<String, Long> dropped = origins.seenAt(keepFrom - 1);
            OriginBase.write(core.directory, dropped);
            origins.rebase(dropped);
        });
        if (core.log.startLsn() != start) {
            origins.forgetDropped();
        }
    }

    /**
     * Recovery ends with the first anti-entropy round in which every peer answered in full and this
     * replica logged every write of its own origin they hold ({@code caughtUp}): from then on it
     * serves, and numbers its new writes after those.
     */
    private void ready(boolean caughtUp) {
        if (phase instanceof Recovering && caughtUp && origins.logged(core.self.value()) >= ownFloor
                && core.storageFailedAt() == 0 && !installing()) {
            logger.info("{}: caught up with its peers; serving", core.name);
            enter(new Serving());
        }
        publish();
    }

    @Override
    public ReplicaCore core() {
        return core;
    }

    @Override
    public void close() {
        // Nothing is pending (level-1 writes are answered once applied here), but a completion or message that
        // comes after must not touch the log, which the node closes next.
        core.exec.execute(() -> {
            if (!(phase instanceof Closed)) {
                enter(new Closed());
            }
        });
    }

    @Override
    public String toString() {
        return core.name + "[L1 " + phase + "]";
    }

    NodeId node() {
        return core.self;
    }
}
