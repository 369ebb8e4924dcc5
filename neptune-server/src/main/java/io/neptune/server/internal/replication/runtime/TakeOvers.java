package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.replication.runtime.PeerMessages.Handover;
import io.neptune.server.internal.replication.runtime.PeerMessages.HandoverReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.PromoteReply;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The answers a replica asked to take the primary role over ({@link PeerMessages.TakeOver}) gives,
 * shared by both fail-over modes, so that an operator reads the same words whichever mode a service
 * runs in.
 */
final class TakeOvers {
    /** The reason of an accepted take-over by a replica that already leads. */
    static final String ALREADY_PRIMARY = "already primary";

    private TakeOvers() {}

    /**
     * Why the replica cannot start taking over: {@link #ALREADY_PRIMARY} if it leads, a refusal, or
     * null if it may go ahead and ask {@code primary} for a handover.
     */
    static @Nullable String refusal(boolean leads, boolean behind, boolean electing, @Nullable NodeId primary) {
        if (leads) {
            return ALREADY_PRIMARY;
        }
        if (behind) {
            return "not caught up: it is recovering (catching up with the primary) or out of service";
        }
        if (electing) {
            return "an election is under way";
        }
        return primary == null ? "no live primary to take over from (after an outage, use promote)" : null;
    }

    /**
     * Answers {@code reply} if {@code refusal} (from {@link #refusal}) ends the take-over before it
     * starts, at this replica's {@code epoch}; returns whether it did. A replica that already leads
     * answers that it accepted.
     */
    static boolean answeredRefusal(@Nullable String refusal, @Nullable NodeId primary, long epoch,
            Consumer<Object> reply) {
        if (refusal == null && primary != null) {
            return false;
        }
        reply.accept(new PromoteReply(ALREADY_PRIMARY.equals(refusal), String.valueOf(refusal), epoch));
        return true;
    }

    /**
     * Asks {@code primary} to hand its role over to this replica, as an operator's handover (it waits
     * for this replica to catch up). Once it did, this replica's log reaches the primary's end, and
     * {@code stillFit} holds (nothing changed this replica meanwhile), {@code take} runs on the
     * executor with the primary's answer and answers {@code reply} itself; otherwise {@code reply}
     * gets why the take-over ended.
     */
    static void askHandover(ReplicaCore core, NodeId primary, Consumer<Object> reply, BooleanSupplier stillFit,
            Consumer<HandoverReply> take) {
        core.peers.call(primary, core.request("handover", new Handover(core.service, core.partition,
                core.self.value(), core.durable, true)), HandoverReply.class).whenComplete((r, e) -> core.exec.execute(() -> {
                    if (r == null || !r.accepted() || !stillFit.getAsBoolean() || core.log.lastLsn() < r.logEnd()) {
                        reply.accept(new PromoteReply(false, refused(primary, r, e), core.log.epoch()));
                    } else {
                        take.accept(r);
                    }
                }));
    }

    /**
     * The in-sync secondaries of a fail-stop replica that took the primary role over from
     * {@code primary}, which handed it over with {@code reply}, with their log ends: every other replica
     * of {@code view} not announced RECOVERING, assumed to have logged up to its announced log end (at
     * most {@code lastLsn}, this replica's), and the former primary, which has logged what it said.
     */
    static Map<NodeId, Long> followers(List<Replica> view, NodeId self, long lastLsn, Replica primary,
            HandoverReply reply) {
        Map<NodeId, Long> followers = new LinkedHashMap<>();
        for (Replica other : view) {
            if (!other.node().equals(self) && !other.node().equals(primary.node())
                    && other.role() != ReplicaRole.RECOVERING) {
                followers.put(other.node(), Math.min(other.logEnd(), lastLsn));
            }
        }
        followers.put(primary.node(), reply.logEnd());
        return followers;
    }

    /** Why the primary's answer (or its absence) ended the take-over. */
    static String refused(NodeId primary, @Nullable HandoverReply reply, @Nullable Throwable error) {
        if (reply == null) {
            return primary + " did not answer the handover: " + (error == null ? "no reply" : error.getMessage());
        }
        return reply.accepted() ? "the replica's state changed while " + primary + " handed over; ask again"
                : primary + " refused the handover: " + reply.reason();
    }
}
