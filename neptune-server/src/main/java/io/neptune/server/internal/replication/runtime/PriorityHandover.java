package io.neptune.server.internal.replication.runtime;

import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.replication.runtime.PeerMessages.Handover;
import io.neptune.server.internal.replication.runtime.PeerMessages.HandoverReply;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A follower's request for the primary role by priority, shared by both fail-over modes: a replica
 * of higher priority than the live primary, caught up with it and with everything applied, asks it
 * for a {@code handover} at most every {@value #INTERVAL_MILLIS} ms. A replica whose log lacks
 * records its service applied cannot lead, and a draining node's replicas ask for nothing.
 *
 * <p>Thread-safety: confined to the partition's serial executor, like the replica that owns it.
 */
final class PriorityHandover {
    static final long INTERVAL_MILLIS = 500;

    private final ReplicaCore core;
    private long lastAskedNanos;

    PriorityHandover(ReplicaCore core) {
        this.core = core;
    }

    /**
     * Asks {@code live} for the role if this replica may; once it accepts (and this log has all it
     * logged), {@code takeOver} runs on the executor with its answer, unless {@code stillFollows}
     * then says this replica's state changed meanwhile.
     */
    void maybeAsk(Replica live, BooleanSupplier stillFollows, Consumer<HandoverReply> takeOver) {
        assert core.exec.inExecutor() : "off the partition's executor";
        long now = core.clock.getAsLong();
        if (core.log.lostTailEnd() > 0 || core.draining.getAsBoolean()
                || now - lastAskedNanos < TimeUnit.MILLISECONDS.toNanos(INTERVAL_MILLIS)
                || core.log.lastLsn() < live.logEnd() || core.applied < core.log.lastLsn()) {
            return;
        }
        lastAskedNanos = now;
        core.peers.call(live.node(), core.request("handover",
                new Handover(core.service, core.partition, core.self.value(), core.durable)), HandoverReply.class)
                .whenComplete((r, e) -> core.exec.execute(() -> {
                    if (r != null && r.accepted() && stillFollows.getAsBoolean() && core.log.lastLsn() >= r.logEnd()) {
                        takeOver.accept(r);
                    }
                }));
    }
}
