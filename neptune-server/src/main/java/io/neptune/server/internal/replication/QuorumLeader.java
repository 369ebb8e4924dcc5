package io.neptune.server.internal.replication;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.replication.PeerMessages.Ack;
import io.neptune.server.internal.replication.PeerMessages.Entry;
import io.neptune.server.internal.replication.PeerMessages.ReadIndexReply;
import io.neptune.server.internal.replication.PeerMessages.Replicate;
import io.neptune.server.internal.replication.protocol.Election;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
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
 * for every other replica how far its log matches this one ({@code match}) and what to send it next;
 * the writes waiting to commit; the commit point, which is the highest LSN of this epoch that a
 * majority of the configured replicas (this one included) logged durably; and the time from which a
 * majority is known to have followed this primary (its lease). Nobody is excluded: a slow or
 * unreachable replica simply does not count towards the majority until it catches up.
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
    /** How many catch-up batches a follower whose log matches may have in flight. */
    static final int CATCH_UP_IN_FLIGHT = 3;

    private final ReplicaCore core;
    private final Host host;
    private final long epoch;
    /** How many replicas make a majority: asked anew each time, since more replicas may be seen while leading. */
    private final IntSupplier quorum;
    /** Whether a replica's log and contact count towards the majority (a voter of the latest configuration). */
    private final Predicate<NodeId> counts;
    private final Map<NodeId, Follower> followers = new HashMap<>();
    private final TreeMap<Long, List<Waiting>> waiting = new TreeMap<>();
    private final List<ReadIndexWaiter> readIndexWaiters = new ArrayList<>();
    private long commitLsn;
    private boolean applyQueued;

    /** How far one other replica is known to follow. */
    private static final class Follower {
        final NodeId node;
        /** The next LSN to send. */
        long next;
        /** The LSN up to which its log is known to match this one, durably. */
        long match;
        int inFlight;
        /** Its log differs or has a gap somewhere after {@link #match}: one message at a time until it matches. */
        boolean probing = true;
        long lastSendNanos;
        /** The send time of the latest message it answered at this epoch. */
        long contactNanos;
        boolean hasContact;
        /** Why it last refused replication, logged once (a snapshot install is refused for seconds); empty after an accept. */
        String refusal = "";

        Follower(NodeId node, long next) {
            this.node = node;
            this.next = next;
        }
    }

    private record Waiting(long requestId, Consumer<ResponseMessage> reply) {}

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
        this.quorum = quorum;
        this.counts = counts;
        this.commitLsn = core.applied;
        for (NodeId voter : voters) {
            Follower f = follower(voter);
            f.contactNanos = votesSentNanos;
            f.hasContact = true;
        }
    }

    /** Logs the no-op that opens this epoch and sends every replica what it lacks. */
    void start(Set<NodeId> members) {
        members.forEach(this::follower);
        LogRecord noop = new LogRecord(core.log.lastLsn() + 1, epoch, RecordKind.NOOP, RequestId.NONE,
                core.self.value(), 0, "", new byte[0]);
        core.append(noop);
        for (Follower f : followers.values()) {
            sendFrom(f);
        }
    }

    /** Starts tracking {@code node}, a replica of the partition, if it is new. */
    Follower follower(NodeId node) {
        return followers.computeIfAbsent(node, n -> new Follower(n, core.log.lastLsn() + 1));
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
        Follower f = followers.get(node);
        return f == null ? -1 : f.match;
    }

    /**
     * The time (on this node's clock) from which a majority is known to have followed this primary:
     * no other primary committed anything before it. {@link Long#MIN_VALUE} if unknown.
     */
    long majoritySince() {
        List<Long> contacts = new ArrayList<>();
        if (counts.test(core.self)) {
            contacts.add(core.clock.getAsLong());
        }
        for (Follower f : followers.values()) {
            if (f.hasContact && counts.test(f.node)) {
                contacts.add(f.contactNanos);
            }
        }
        return Election.majorityContact(contacts, quorum.getAsInt());
    }

    /** Whether {@code node} is this replica, or a follower that answered a message sent in the last {@code withinNanos}. */
    boolean heardFrom(NodeId node, long withinNanos) {
        if (node.equals(core.self)) {
            return true;
        }
        Follower f = followers.get(node);
        return f != null && f.hasContact && core.clock.getAsLong() - f.contactNanos < withinNanos;
    }

    /**
     * Whether {@code node} can take records now: this replica, or a follower that answered a message
     * sent in the last {@code withinNanos} and did not refuse the last records it was sent (as one
     * whose log fails, that installs a snapshot or that diverged does).
     */
    boolean takesRecords(NodeId node, long withinNanos) {
        Follower f = followers.get(node);
        return node.equals(core.self) || heardFrom(node, withinNanos) && f != null && f.refusal.isEmpty();
    }

    /** How many replicas, this one included, answered a message sent in the last {@code withinNanos}. */
    int inContact(long withinNanos) {
        long now = core.clock.getAsLong();
        int count = counts.test(core.self) ? 1 : 0;
        for (Follower f : followers.values()) {
            if (f.hasContact && now - f.contactNanos < withinNanos && counts.test(f.node)) {
                count++;
            }
        }
        return count;
    }

    /**
     * Takes a client write: a retry is answered from what this log knows, a new write is logged and
     * sent, and answered once committed.
     */
    void write(RequestMessage request, Consumer<ResponseMessage> reply) {
        assert core.exec.inExecutor() : "off the partition's executor";
        ResponseMessage cached = core.cached(request.id());
        if (cached != null) {
            reply.accept(ReplicaCore.reply(cached, request.requestId()));
            return;
        }
        OptionalLong known = core.log.lsnOf(request.id());
        if (known.isPresent()) {
            if (known.getAsLong() <= core.applied) {
                reply.accept(new ResponseMessage(request.requestId(), Status.ALREADY_APPLIED, known.getAsLong(),
                        new byte[0]));
            } else {
                // logged, not yet committed (maybe by an earlier primary): answered when it commits
                waiting.computeIfAbsent(known.getAsLong(), k -> new ArrayList<>(1))
                        .add(new Waiting(request.requestId(), reply));
            }
            return;
        }
        long lsn = core.log.lastLsn() + 1;
        LogRecord record = new LogRecord(lsn, epoch, RecordKind.WRITE, request.id(), core.self.value(), 0,
                request.method(), request.payload());
        waiting.computeIfAbsent(lsn, k -> new ArrayList<>(1)).add(new Waiting(request.requestId(), reply));
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
        waiting.computeIfAbsent(config.lsn(), k -> new ArrayList<>(1)).add(new Waiting(0, answer));
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
        for (Follower f : followers.values()) {
            if (!f.probing && f.next == lsn) {
                send(f, List.of(record));
            }
        }
    }

    /** Each follower as this leader sees it; for diagnostics, on the partition's executor. */
    @Override
    public String toString() {
        long now = core.clock.getAsLong();
        StringBuilder s = new StringBuilder("QuorumLeader[epoch ").append(epoch).append(", commit ").append(commitLsn);
        for (Follower f : followers.values()) {
            s.append("; ").append(f.node).append(" next ").append(f.next).append(" match ").append(f.match)
                    .append(" in flight ").append(f.inFlight).append(f.probing ? " probing" : "")
                    .append(" sent ").append(TimeUnit.NANOSECONDS.toMillis(now - f.lastSendNanos)).append(" ms ago")
                    .append(f.hasContact ? " heard " + TimeUnit.NANOSECONDS.toMillis(now - f.contactNanos) + " ms ago"
                            : " never heard").append(counts.test(f.node) ? "" : " (not counted)");
        }
        return s.append(']').toString();
    }

    /** Periodic work: heartbeats (which carry the commit point and retry what was lost) and timeouts. */
    void tick() {
        assert core.exec.inExecutor() : "off the partition's executor";
        long now = core.clock.getAsLong();
        for (Follower f : followers.values()) {
            if (!(f.probing && f.inFlight > 0) && now - f.lastSendNanos >= HEARTBEAT_NANOS) {
                sendFrom(f);
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

    private void sendFrom(Follower f) {
        if (f.next < core.log.startLsn()) {
            installSnapshot(f);
            return;
        }
        send(f, f.next > core.log.lastLsn() ? List.of() : core.batch(f.next));
    }

    /**
     * {@code f} needs records below the log's start: it is told to install a snapshot from here, and
     * answers like a refused {@code replicate} (its log end once it has installed it: a gap).
     */
    private void installSnapshot(Follower f) {
        long sentNanos = core.clock.getAsLong();
        f.lastSendNanos = sentNanos;
        f.inFlight++;
        core.snapshots().tell(f.node).whenComplete((ack, e) -> core.exec.execute(() -> onAck(f, sentNanos, ack, e)));
    }

    private void send(Follower f, List<LogRecord> records) {
        long prev = records.isEmpty() ? f.next - 1 : records.get(0).lsn() - 1;
        if (prev > core.log.lastLsn()) {
            prev = core.log.lastLsn(); // the log was cut back (cannot happen while leading; be safe)
            f.next = prev + 1;
        }
        long sentNanos = core.clock.getAsLong();
        f.lastSendNanos = sentNanos;
        f.inFlight++;
        if (!records.isEmpty()) {
            f.next = records.get(records.size() - 1).lsn() + 1;
        }
        Replicate message = new Replicate(core.service, core.partition, core.self.value(), epoch, commitLsn,
                records.stream().map(Entry::of).toList(), prev, core.log.epochOf(prev), null);
        core.peers.call(f.node, core.service, core.partition, "replicate", message, Ack.class)
                .whenComplete((ack, e) -> core.exec.execute(() -> onAck(f, sentNanos, ack, e)));
    }

    private void onAck(Follower f, long sentNanos, @Nullable Ack ack, @Nullable Throwable error) {
        assert core.exec.inExecutor() : "off the partition's executor";
        f.inFlight--;
        if (!host.leads(epoch)) {
            return;
        }
        if (error != null || ack == null) {
            f.probing = true; // a message may be lost: go on from what it surely has
            f.next = f.match + 1;
            return;
        }
        if (ack.epoch() > epoch) {
            host.newerEpoch(ack.epoch(), f.node);
            return;
        }
        if (ack.epoch() == epoch && (!f.hasContact || sentNanos - f.contactNanos > 0)) {
            f.contactNanos = sentNanos; // it answered as a follower of this epoch: counts for the lease
            f.hasContact = true;
        }
        if (ack.accepted()) {
            f.refusal = "";
            f.match = Math.max(f.match, ack.lastLsn());
            f.probing = false;
            f.next = Math.max(f.next, f.match + 1);
        } else if (ack.reason().equals("gap")) {
            // Its log ends before what it acknowledged: only a log written without fsync that lost its tail in a
            // machine crash. Believe the log end it names, or this primary would resend past its end forever.
            f.probing = true;
            f.match = Math.min(f.match, ack.lastLsn());
            f.next = ack.lastLsn() + 1;
        } else if (ack.reason().equals("mismatch")) {
            f.probing = true;
            f.next = Math.max(f.match, ack.lastLsn()) + 1;
        } else {
            if (!ack.reason().equals(f.refusal)) {   // once per reason, not at every heartbeat
                logger.warn("{}: {} refused replication: {}", core.name, f.node, ack.reason());
                f.refusal = ack.reason();
            }
            f.probing = true;
            f.next = f.match + 1;
            return; // the next heartbeat retries
        }
        // Catch it up: one message at a time while probing, else up to CATCH_UP_IN_FLIGHT batches in flight, so the
        // next batch travels and is logged while the follower applies the one before.
        while (f.next <= core.log.lastLsn() && f.inFlight < (f.probing ? 1 : CATCH_UP_IN_FLIGHT)) {
            sendFrom(f);
        }
        advance();
    }

    /** Moves the commit point to what a majority has of this epoch, applies it, and answers read indexes. */
    void advance() {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (!host.leads(epoch)) {
            return;
        }
        List<Long> positions = new ArrayList<>();
        if (counts.test(core.self)) {
            positions.add(core.durable);
        }
        for (Follower f : followers.values()) {
            if (counts.test(f.node)) {
                positions.add(f.match);
            }
        }
        long majority = Math.min(Election.majorityPosition(positions, quorum.getAsInt()), core.log.lastLsn());
        // Only a record of this epoch commits by counting; older ones commit with it (Raft §5.4.2).
        if (majority > commitLsn && core.log.epochOf(majority) == epoch) {
            commitLsn = majority;
            applyCommitted();
            for (Follower f : followers.values()) {
                if (f.inFlight == 0 && !f.probing) {
                    sendFrom(f); // carries the new commit point
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

    /** Applies committed writes a slice at a time and answers their clients. */
    private void applyCommitted() {
        boolean ok = core.applyUpTo(commitLsn, TimeUnit.MILLISECONDS.toNanos(PrimaryBackupReplica.APPLY_SLICE_MILLIS));
        while (!waiting.isEmpty() && waiting.firstKey() <= core.applied) {
            Map.Entry<Long, List<Waiting>> first = waiting.pollFirstEntry();
            LogRecord record = core.log.record(first.getKey()).orElseThrow();
            ResponseMessage response = core.cached(record.requestId());
            for (Waiting w : first.getValue()) {
                w.reply.accept(response != null ? ReplicaCore.reply(response, w.requestId)
                        : new ResponseMessage(w.requestId, Status.ALREADY_APPLIED, record.lsn(), new byte[0]));
            }
        }
        if (!ok) {
            host.stepDown("the write at LSN " + core.storageFailedAt() + " failed in storage");
            return;
        }
        host.publish();
        // Only what is durable here applies; the rest waits for this node's force, whose completion advances again.
        if (core.applied < Math.min(commitLsn, core.durable) && !applyQueued) {
            applyQueued = true;
            core.exec.execute(() -> {
                applyQueued = false;
                if (host.leads(epoch)) {
                    applyCommitted();
                }
            });
        }
    }

    /** Answers every waiting write with {@code answer} (by request id) and every read index with a refusal. */
    void abandon(LongFunction<ResponseMessage> answer) {
        for (List<Waiting> ws : waiting.values()) {
            for (Waiting w : ws) {
                w.reply.accept(answer.apply(w.requestId));
            }
        }
        waiting.clear();
        for (ReadIndexWaiter w : readIndexWaiters) {
            w.reply.accept(new ReadIndexReply(false, epoch, 0));
        }
        readIndexWaiters.clear();
    }
}
