package io.neptune.server.internal.replication;

import io.neptune.core.NodeId;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.replication.PeerMessages.Ack;
import io.neptune.server.internal.replication.PeerMessages.Entry;
import io.neptune.server.internal.replication.PeerMessages.Replicate;
import io.neptune.server.internal.replication.protocol.LeaderProgress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A leader's {@code replicate} messages to its followers, for both leaders ({@link QuorumLeader},
 * {@link PrimaryPipeline}): a send is noted in the leader's {@link LeaderProgress} first, which tells
 * the record before the entries (for the follower's log-matching check), then the message is built
 * from the log and sent, and the follower's {@link Ack} (or the failed call) comes back to the
 * leader on the partition's executor. In two steps, {@link #prepare} and {@link #send}, so that a
 * leader can refuse a send in between (a fail-stop primary excludes a secondary whose log ends
 * below its log's start).
 *
 * <p>Thread-safety: confined to the partition's serial executor, like its leader.
 */
final class ReplicateSender {
    /** The leader's side of a follower's answer. */
    @FunctionalInterface
    interface Acks {
        /**
         * {@code node} answered the message sent at {@code sentNanos} (the replica's clock) with
         * {@code ack}, or the call failed with {@code error}; on the partition's executor.
         */
        void onAck(NodeId node, long sentNanos, @Nullable Ack ack, @Nullable Throwable error);
    }

    /**
     * A {@code replicate} the leader's progress noted: {@code records} (none for a heartbeat) go to
     * {@code node}, after the record at {@code prev}, at {@code sentNanos}.
     */
    record Outgoing(NodeId node, List<LogRecord> records, long prev, long sentNanos) {}

    private final ReplicaCore core;
    private final LeaderProgress progress;
    private final Acks acks;

    ReplicateSender(ReplicaCore core, LeaderProgress progress, Acks acks) {
        this.core = core;
        this.progress = progress;
        this.acks = acks;
    }

    /** Notes in the leader's progress that {@code records} (none: a heartbeat) go to {@code node} now. */
    Outgoing prepare(NodeId node, List<LogRecord> records) {
        long from = records.isEmpty() ? progress.next(node) : records.get(0).lsn();
        long to = records.isEmpty() ? from - 1 : records.get(records.size() - 1).lsn();
        long sentNanos = core.clock.getAsLong();
        long prev = progress.sent(node, from, to, core.log.lastLsn(), sentNanos);
        return new Outgoing(node, records, prev, sentNanos);
    }

    /**
     * Sends {@code out} as a leader of {@code epoch} whose commit point is {@code commitLsn};
     * {@code prevOrigin} names the primary that logged the record at {@code out.prev()}, for a
     * follower that checks it (null: not checked).
     */
    void send(Outgoing out, long epoch, long commitLsn, @Nullable String prevOrigin) {
        Replicate message = new Replicate(core.service, core.partition, core.self.value(), epoch, commitLsn,
                out.records().stream().map(Entry::of).toList(), out.prev(), core.log.epochOf(out.prev()), prevOrigin);
        answerOnExecutor(out.node(), out.sentNanos(),
                core.peers.call(out.node(), core.service, core.partition, "replicate", message, Ack.class));
    }

    /** Hands {@code node}'s answer to a message sent at {@code sentNanos} to the leader, on the partition's executor. */
    void answerOnExecutor(NodeId node, long sentNanos, CompletableFuture<Ack> answer) {
        answer.whenComplete((ack, e) -> core.exec.execute(() -> acks.onAck(node, sentNanos, ack, e)));
    }
}
