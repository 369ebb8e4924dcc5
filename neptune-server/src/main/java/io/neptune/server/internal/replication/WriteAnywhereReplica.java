package io.neptune.server.internal.replication;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.LogException;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.PeerMessages.Ack;
import io.neptune.server.internal.replication.PeerMessages.Entry;
import io.neptune.server.internal.replication.PeerMessages.Gossip;
import io.neptune.server.internal.replication.PeerMessages.Pull;
import io.neptune.server.internal.replication.PeerMessages.PullReply;
import io.neptune.server.internal.replication.PeerMessages.ReplicaStatus;
import io.neptune.server.internal.replication.PeerMessages.StatusRequest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
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
    private static final int MAX_PULL = 2_000;
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
    /** Per origin, the highest sequence durably logged here: a pull asks for the writes after it. */
    private final Map<String, Long> seen = new HashMap<>();
    /**
     * Per origin, the highest sequence the log took, durable or not yet: the next write of that
     * origin to log here is the one after it. A record the log refuses is not taken, so the
     * origin's later writes wait for it (they are gaps the next pull fills).
     */
    private final Map<String, Long> logged = new HashMap<>();
    /** Per origin, the local LSN of each of its writes, by sequence: a pull reads only what the puller lacks. */
    private final Map<String, LsnsBySeq> byOrigin = new HashMap<>();
    private ReplicaRole role = ReplicaRole.RECOVERING;
    /** Why this replica cannot take records until the node restarts or is rebuilt, or null. */
    private @Nullable String outOfService;
    private long lastPullNanos;
    private int pullsInFlight;
    private long startedNanos;

    WriteAnywhereReplica(ReplicaCore core, int priority, int configuredReplicas) {
        this.core = core;
        this.priority = priority;
        this.configuredReplicas = configuredReplicas;
    }

    @Override
    public void start() {
        core.exec.execute(() -> {
            startedNanos = core.clock.getAsLong();
            core.internalSync();
            core.forEachRecord(r -> {
                seen.merge(r.origin(), r.originSeq(), Math::max);
                logged.merge(r.origin(), r.originSeq(), Math::max);
                index(r);
            });
            long lost = core.log.lostTailEnd();
            if (lost > 0) {
                leaveService("NEP-L1-001", "its service applied writes up to LSN " + lost + " that its REDO log lost"
                        + " (log end " + core.log.lastLsn() + "); level-1 LSNs are this replica's own, so no peer's"
                        + " record can be shown to be one of those writes: rebuild this replica from its peers"
                        + " (docs/OPERATIONS.md, 'Machine crashes')");
            }
            apply(core.log.lastLsn()); // every logged level-1 write is final where it was logged
            core.publish(role, 0);
        });
    }

    @Override
    public void write(RequestMessage request, Consumer<ResponseMessage> reply) {
        core.exec.execute(() -> {
            ResponseMessage cached = core.cached(request.id());
            if (cached != null) {
                reply.accept(ReplicaCore.reply(cached, request.requestId()));
                return;
            }
            // A retry of a write logged here before a restart, or logged elsewhere and gossiped here.
            OptionalLong known = core.log.lsnOf(request.id());
            if (known.isPresent()) {
                reply.accept(known.getAsLong() <= core.applied
                        ? new ResponseMessage(request.requestId(), Status.ALREADY_APPLIED, known.getAsLong(), new byte[0])
                        : ResponseMessage.error(request.requestId(), Status.IN_DOUBT, core.name + ": the write is"
                                + " logged at LSN " + known.getAsLong() + " and not applied yet"));
                return;
            }
            if (role != ReplicaRole.SECONDARY) {
                // Until its first full round it may lack writes of its own that a crash took from its log, whose
                // sequence numbers the peers hold: a new write must not get one of them.
                reply.accept(ResponseMessage.error(request.requestId(), Status.UNAVAILABLE, core.name + " is "
                        + role + (outOfService != null ? " (" + outOfService + ")" : "") + "; the write did not run"));
                return;
            }
            long seq = logged.getOrDefault(core.self.value(), 0L) + 1;
            LogRecord record = new LogRecord(core.log.lastLsn() + 1, 0, RecordKind.WRITE, request.id(),
                    core.self.value(), seq, request.method(), request.payload());
            CompletableFuture<Void> appended = append(record);
            boolean took = noteIfTaken(record);
            appended.whenComplete((v, e) -> core.exec.execute(() -> {
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
                seen.merge(record.origin(), record.originSeq(), Math::max);
                apply(record.lsn());
                ResponseMessage response = core.cached(record.requestId());
                reply.accept(response == null
                        ? ResponseMessage.error(request.requestId(), Status.IN_DOUBT,
                                core.name + ": the write was logged at LSN " + record.lsn() + " and reaches the other"
                                        + " replicas, but storage failed here before it could be applied")
                        : ReplicaCore.reply(response, request.requestId()));
                core.publish(role, 0);
                push(record);
            }));
        });
    }

    private void push(LogRecord record) {
        Gossip gossip = new Gossip(core.service, core.partition, List.of(Entry.of(record)));
        for (Replica peer : core.peers.replicas(core.service, core.partition)) {
            if (!peer.node().equals(core.self)) {
                core.peers.call(peer.node(), core.service, core.partition, "gossip", gossip, Ack.class);
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
        if (outOfService != null) {
            return outOfService;
        }
        List<Entry> sorted = new ArrayList<>(entries);
        sorted.sort(Comparator.comparing(Entry::origin).thenComparingLong(Entry::originSeq));
        for (Entry entry : sorted) {
            long have = logged.getOrDefault(entry.origin(), 0L);
            if (entry.originSeq() != have + 1) {
                continue; // already logged, or a gap (also after a write the log refused) the next pull fills
            }
            // A client retried this write at a second replica before the first one's gossip got there, so
            // both ran it. Each replica runs whichever copy it logged first and logs the other as a repeat.
            boolean repeat = core.log.lsnOf(new RequestId(entry.idHigh(), entry.idLow())).isPresent();
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
            if (took && repeat) {
                logger.info("{}: write {} from {} (sequence {}) already ran here; logged as a repeat", core.name,
                        record.requestId(), entry.origin(), entry.originSeq());
            }
            appended.whenComplete((v, e) -> core.exec.execute(() -> {
                if (e != null) {
                    appendFailed(record, took, e);
                    return;
                }
                seen.merge(record.origin(), record.originSeq(), Math::max);
                apply(record.lsn());
                core.publish(role, 0);
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
        logged.merge(record.origin(), record.originSeq(), Math::max);
        index(record);
        return true;
    }

    /**
     * A write whose append failed is not applied and not seen. If the log took it and then failed
     * to write it, the log refuses every change from then on (until a restart rebuilds this state
     * from it), so the origin's writes after it fail too: none of them counts as logged any more.
     */
    private void appendFailed(LogRecord record, boolean took, Throwable e) {
        if (took) {
            logged.computeIfPresent(record.origin(), (origin, seq) -> Math.min(seq, record.originSeq() - 1));
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
        if (outOfService == null) {
            outOfService = reason;
            logger.error("{}: [{}] {} -> {}: {}", core.name, code, role, ReplicaRole.RECOVERING, reason);
        }
        role = ReplicaRole.RECOVERING;
        core.publish(role, 0);
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
            default -> throw new IllegalArgumentException("method: '" + method + "' (expected: gossip, pull, status)");
        };
    }

    @Override
    public void onPeerMessage(String method, Object message, Consumer<Object> reply) {
        core.exec.execute(() -> {
            if (message instanceof Gossip gossip) {
                String stopped = accept(gossip.entries());
                reply.accept(stopped == null ? new Ack(true, core.log.lastLsn(), 0, "")
                        : new Ack(false, core.durable, 0, stopped)); // the sender's next pull brings the rest
            } else if (message instanceof Pull pull) {
                reply.accept(missing(pull.seen()));
            } else {
                reply.accept(new ReplicaStatus(core.self.value(), role.name(), 0, 0, core.log.lastLsn(), core.applied, priority,
                        core.app.digest().orElse(""), core.log.startLsn()));
            }
        });
    }

    /**
     * The durable writes the puller has not seen. Only durable ones: a write of this origin that is
     * still in the log's queue is lost if this node crashes, and its sequence is then reused for
     * another write, which a peer that already has the lost one would never take.
     */
    private PullReply missing(Map<String, Long> theirs) {
        List<Entry> out = new ArrayList<>();
        long bytes = 0;
        for (Map.Entry<String, LsnsBySeq> origin : byOrigin.entrySet()) {
            LsnsBySeq lsns = origin.getValue();
            for (long seq = theirs.getOrDefault(origin.getKey(), 0L) + 1; seq <= lsns.size(); seq++) {
                if (out.size() >= MAX_PULL) {
                    return new PullReply(out, true);
                }
                long lsn = lsns.lsn(seq);
                if (lsn > core.durable) {
                    break; // an origin's writes are logged in sequence: the later ones are not durable either
                }
                LogRecord r = core.log.record(lsn).orElse(null);
                if (r == null) {
                    continue;
                }
                bytes += ReplicaCore.wireBytes(r);
                if (bytes > core.maxBatchBytes && !out.isEmpty()) {
                    return new PullReply(out, true); // the rest in the next pull: one reply must fit in a frame
                }
                out.add(Entry.of(r));
            }
        }
        return new PullReply(out, false);
    }

    private void index(LogRecord record) {
        byOrigin.computeIfAbsent(record.origin(), o -> new LsnsBySeq()).put(record.originSeq(), record.lsn());
    }

    /** A growable map from an origin's write sequence (1, 2, ...) to the local LSN it was logged at. */
    private static final class LsnsBySeq {
        private long[] lsns = new long[16];
        private int size;

        void put(long seq, long lsn) {
            if (seq < 1 || seq > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("seq: " + seq + " (expected: 1.." + Integer.MAX_VALUE + ")");
            }
            int index = (int) seq - 1;
            if (index >= lsns.length) {
                lsns = Arrays.copyOf(lsns, Math.max(index + 1, lsns.length * 2));
            }
            lsns[index] = lsn;
            size = Math.max(size, index + 1);
        }

        int size() {
            return size;
        }

        long lsn(long seq) {
            return lsns[(int) seq - 1];
        }
    }

    /** Applies up to {@code lsn}; a write failing in storage takes this replica out of service until it applies. */
    private void apply(long lsn) {
        if (!core.applyUpTo(lsn) && role != ReplicaRole.RECOVERING) {
            logger.warn("{}: {} -> {}: the write at LSN {} failed in storage", core.name, role, ReplicaRole.RECOVERING,
                    core.storageFailedAt());
            role = ReplicaRole.RECOVERING;
        }
    }

    @Override
    public void tick() {
        core.exec.execute(() -> {
            if (outOfService != null) {
                return; // its log takes nothing until the node restarts: pulling would only fetch what it refuses
            }
            if (core.storageFailedAt() != 0) {
                apply(core.log.lastLsn()); // retry; the next anti-entropy round puts it back in service
            }
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
            Pull pull = new Pull(core.service, core.partition, Map.copyOf(seen));
            Round round = new Round();
            List<CompletableFuture<@Nullable PullReply>> replies = new ArrayList<>();
            for (Replica peer : peers) {
                pullsInFlight++;
                replies.add(core.peers.call(peer.node(), core.service, core.partition, "pull", pull, PullReply.class)
                        .orTimeout(5, TimeUnit.SECONDS).exceptionally(e -> null)
                        .whenComplete((r, e) -> core.exec.execute(() -> {
                            pullsInFlight--;
                            round.add(r, core.self.value());
                            if (r != null && accept(r.entries()) != null) {
                                round.complete = false;
                            }
                        })));
            }
            CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> core.exec.execute(
                    () -> ready(round.complete && logged.getOrDefault(core.self.value(), 0L) >= round.ownSeq)));
        });
    }

    /** What one anti-entropy round learned: whether every peer answered in full, and its highest own-origin write. */
    private static final class Round {
        boolean complete = true;
        long ownSeq;

        void add(@Nullable PullReply reply, String self) {
            if (reply == null || reply.truncated()) {
                complete = false;
                return;
            }
            for (Entry entry : reply.entries()) {
                if (entry.origin().equals(self)) {
                    ownSeq = Math.max(ownSeq, entry.originSeq());
                }
            }
        }
    }

    /**
     * Recovery ends with the first anti-entropy round in which every peer answered in full and this
     * replica logged every write of its own origin they hold ({@code caughtUp}): from then on it
     * serves, and numbers its new writes after those.
     */
    private void ready(boolean caughtUp) {
        if (role == ReplicaRole.RECOVERING && caughtUp && core.storageFailedAt() == 0 && outOfService == null) {
            logger.info("{}: caught up with its peers; serving", core.name);
            role = ReplicaRole.SECONDARY;
        }
        core.publish(role, 0);
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
        // nothing pending: level-1 writes are answered once applied locally
    }

    @Override
    public String toString() {
        return core.name + "[L1 " + role + "]";
    }

    NodeId node() {
        return core.self;
    }
}
