package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.server.internal.replication.runtime.PeerMessages.Entry;
import io.neptune.server.internal.replication.runtime.PeerMessages.Replicate;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.protocol.Ready;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
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
    /** The epoch the leader leads, as of each message. */
    private final LongSupplier epoch;
    /** Whether a message names the primary that logged its record at {@code prev}, for followers that check it. */
    private final boolean namesOrigins;
    private final Acks acks;

    /**
     * Sends as the leader of {@code epoch} (read for each message) and hands the answers to {@code acks};
     * {@code namesOrigins}: each message names the primary that logged its record at {@code prev}, for a
     * follower that checks it (fail-stop's), else it names none.
     */
    ReplicateSender(ReplicaCore core, LongSupplier epoch, boolean namesOrigins, Acks acks) {
        this.core = core;
        this.epoch = epoch;
        this.namesOrigins = namesOrigins;
        this.acks = acks;
    }

    /** Sends {@code send}, which its leader decided. */
    void send(Ready.Send send) {
        String prevOrigin = namesOrigins && send.prev() != 0 ? core.log.originOf(send.prev()) : null;
        Replicate message = new Replicate(core.service, core.partition, core.self.value(), epoch.getAsLong(),
                send.commitLsn(), send.records().stream().map(Entry::of).toList(), send.prev(),
                core.log.epochOf(send.prev()), prevOrigin);
        PeerRequest request = new PeerRequest(core.service, core.partition, "replicate", message,
                core.traces.of(send.records()));
        answerOnExecutor(send.to(), send.sentNanos(), send.records().isEmpty()
                ? core.peers.callBatched(send.to(), request, Ack.class)   // a heartbeat: it travels with the others of this tick
                : core.peers.call(send.to(), request, Ack.class));
    }

    /** Hands {@code node}'s answer to a message sent at {@code sentNanos} to the leader, on the partition's executor. */
    void answerOnExecutor(NodeId node, long sentNanos, CompletableFuture<Ack> answer) {
        answer.whenComplete((ack, e) -> core.exec.execute(() -> acks.onAck(node, sentNanos, ack, e)));
    }
}
