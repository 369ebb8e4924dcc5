package io.neptune.server.internal.replication;

import io.neptune.core.NodeId;
import io.neptune.server.internal.replication.PeerMessages.Entry;
import io.neptune.server.internal.replication.PeerMessages.Replicate;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.protocol.Ready;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * A leader's {@code replicate} messages to its followers, for both leaders ({@link QuorumLeader},
 * {@link PrimaryPipeline}): a {@link Ready.Send} its leader decided (and noted in its progress) is
 * built into a message and sent, and the follower's {@link Ack} (or the failed call) comes back to
 * the leader on the partition's executor.
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

    private final ReplicaCore core;
    private final Acks acks;

    ReplicateSender(ReplicaCore core, Acks acks) {
        this.core = core;
        this.acks = acks;
    }

    /**
     * Sends {@code send} as a leader of {@code epoch}; {@code prevOrigin} names the primary that logged
     * the record at {@code send.prev()}, for a follower that checks it (null: not checked).
     */
    void send(Ready.Send send, long epoch, @Nullable String prevOrigin) {
        Replicate message = new Replicate(core.service, core.partition, core.self.value(), epoch, send.commitLsn(),
                send.records().stream().map(Entry::of).toList(), send.prev(), core.log.epochOf(send.prev()),
                prevOrigin);
        answerOnExecutor(send.to(), send.sentNanos(),
                core.peers.call(send.to(), core.service, core.partition, "replicate", message, Ack.class));
    }

    /** Hands {@code node}'s answer to a message sent at {@code sentNanos} to the leader, on the partition's executor. */
    void answerOnExecutor(NodeId node, long sentNanos, CompletableFuture<Ack> answer) {
        answer.whenComplete((ack, e) -> core.exec.execute(() -> acks.onAck(node, sentNanos, ack, e)));
    }
}
