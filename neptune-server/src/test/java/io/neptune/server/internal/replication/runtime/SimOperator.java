package io.neptune.server.internal.replication.runtime;

import io.neptune.core.ReplicaRole;
import io.neptune.server.internal.replication.runtime.PeerMessages.Handover;
import io.neptune.server.internal.replication.runtime.PeerMessages.HandoverReply;
import io.neptune.server.internal.replication.runtime.PeerMessages.PromoteReply;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The operator of a simulation: what {@code neptune admin} and a draining node ask a replica, as
 * {@code ClusterAdmin} asks it ({@code promote}, and {@code takeOver} for a move-primary or a
 * drain), with the rule each answer must keep: a replica that answers {@code accepted} is the
 * primary at the epoch it names when it answers, and one that refuses says why. A primary an
 * operator's move-primary made (pinned) hands the role over by priority to no one while it leads that
 * epoch (it may still hand it to an operator's choice).
 *
 * <p>A request reaches the replica after a network delay and runs as the node runs it (dropped if the
 * node crashed meanwhile, held while it is paused); the answer reaches the operator after another, or
 * never: the caller's patience is its own.
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class SimOperator {
    /** The primary an operator's move-primary made, and the epoch it leads. */
    private record Pin(SimNode node, long epoch) {}

    private final SimCluster cluster;
    private final Simulator sim;
    private @Nullable Pin pinned;

    SimOperator(SimCluster cluster) {
        this.cluster = cluster;
        this.sim = cluster.sim();
        cluster.network().onAnswer(this::answered);
    }

    /** An operator's {@code admin promote} of {@code node}; {@code answered} gets its reply. */
    void promote(SimNode node, Consumer<PromoteReply> answered) {
        ask(node, "promote", new PeerMessages.Promote(SimNode.SERVICE, 0), answered);
    }

    /**
     * Asks {@code node} to take the primary role over: an operator's {@code admin move-primary}
     * ({@code pin}) or a draining node's hand-off (not pinned); {@code answered} gets its reply.
     */
    void takeOver(SimNode node, boolean pin, Consumer<PromoteReply> answered) {
        ask(node, "takeOver", new PeerMessages.TakeOver(SimNode.SERVICE, 0, pin), answered);
    }

    private void ask(SimNode node, String method, Object request, Consumer<PromoteReply> answered) {
        node.process().schedule(sim.millisBetween(0.05, 1.5), method, () -> node.replica().onPeerMessage(method, request,
                reply -> {
                    PromoteReply answer = (PromoteReply) reply;
                    check(node, method, answer);
                    if (answer.accepted() && request instanceof PeerMessages.TakeOver t && t.pin()) {
                        pinned = new Pin(node, answer.epoch());
                    }
                    sim.schedule(sim.millisBetween(0.05, 1.5), -1, "operator", () -> answered.accept(answer));
                }));
    }

    /** The rule of an answer to {@code promote} or {@code takeOver}, checked when the replica gives it. */
    private void check(SimNode node, String method, PromoteReply answer) {
        String broken = broken(node.replica().state(), answer);
        if (broken != null) {
            cluster.history().violation(node.id() + " answered " + method + " " + answer + ", but " + broken);
        }
    }

    /** A replica answered a peer's call: a pinned primary must refuse a handover by priority. */
    private void answered(SimNode node, String method, Object message, Object reply) {
        Pin pin = pinned;
        if (pin != null && pin.node() == node && message instanceof Handover h && !h.operator()
                && reply instanceof HandoverReply r && r.accepted() && r.epoch() == pin.epoch()) {
            cluster.history().violation(node.id() + " handed the primary role of epoch " + r.epoch() + " to " + h.node()
                    + " by priority, though an operator's move-primary made it primary");
        }
    }

    /** What is wrong with {@code answer} given by a replica in {@code state}, or null if nothing is. */
    static @Nullable String broken(ReplicaState state, PromoteReply answer) {
        if (answer.accepted()) {
            if (state.role() != ReplicaRole.PRIMARY) {
                return "it is " + state.role() + " at epoch " + state.epoch();
            }
            if (state.epoch() != answer.epoch()) {
                return "it leads epoch " + state.epoch();
            }
            return null;
        }
        return answer.reason().isBlank() ? "it gave no reason" : null;
    }
}
