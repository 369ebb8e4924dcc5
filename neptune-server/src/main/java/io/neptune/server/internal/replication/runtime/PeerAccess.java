package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.Principal.Role;
import io.neptune.server.internal.replication.runtime.PeerMessages.Handover;
import io.neptune.server.internal.replication.runtime.PeerMessages.InstallSnapshot;
import io.neptune.server.internal.replication.runtime.PeerMessages.Join;
import io.neptune.server.internal.replication.runtime.PeerMessages.Pull;
import io.neptune.server.internal.replication.runtime.PeerMessages.Replicate;
import io.neptune.server.internal.replication.runtime.PeerMessages.TakeOver;
import io.neptune.server.internal.replication.runtime.PeerMessages.Vote;
import io.neptune.server.internal.security.Caller;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Who may send which peer message (docs/SECURITY.md): replication, votes, joins, hand-overs and
 * snapshot transfers only a node, and only in its own name; {@code status} a node or an operator;
 * {@code promote}, {@code reconfigure} and a pinned {@code takeOver} ({@code move-primary}) only an
 * operator. A refusal is decided before the message changes anything.
 *
 * <p>Thread-safety: stateless.
 */
final class PeerAccess {
    /** What an operator may send. */
    private static final Set<String> OPERATOR_METHODS = Set.of("status", "promote", "reconfigure", "takeOver");

    /** What only an operator may send (a node's own {@code takeOver} is a drain's hand-off, not pinned). */
    private static final Set<String> OPERATOR_ONLY = Set.of("promote", "reconfigure");

    private PeerAccess() {}

    /** Why {@code caller} may not send {@code method} at all, or null if it may (before decoding). */
    static @Nullable String refusal(String method, Caller caller) {
        boolean node = caller.hasRole(Role.NODE);
        boolean operator = caller.hasRole(Role.OPERATOR);
        if (OPERATOR_ONLY.contains(method) && !operator) {
            return "NEP-SEC-021 peer message '" + method + "' from " + caller + " (expected: an operator,"
                    + " neptune://operator/...)";
        }
        if (!node && !(operator && OPERATOR_METHODS.contains(method))) {
            return "NEP-SEC-021 peer message '" + method + "' from " + caller + " (expected: a node, neptune://node/...)";
        }
        return null;
    }

    /**
     * Why {@code caller} may not send the decoded {@code message}, or null if it may: a message that
     * names its sender must name the caller, and only an operator pins a take-over.
     */
    static @Nullable String refusal(Object message, Caller caller) {
        if (message instanceof TakeOver takeOver && takeOver.pin() && !caller.hasRole(Role.OPERATOR)) {
            return "NEP-SEC-021 a pinned takeOver (move-primary) from " + caller + " (expected: an operator)";
        }
        String sender = sender(message);
        if (sender != null && !caller.mayActAs(NodeId.of(sender))) {
            return "NEP-SEC-022 sender: '" + sender + "' in a " + message.getClass().getSimpleName() + " from " + caller
                    + " (expected: the node its certificate names)";
        }
        return null;
    }

    /**
     * Whether {@code message} is an operator's action (audited): a promote, a reconfiguration or a
     * pinned take-over; a node's own unpinned take-over is a drain's hand-off, audited as the drain.
     */
    static boolean isOperatorAction(Object message) {
        return message instanceof PeerMessages.Promote || message instanceof PeerMessages.Reconfigure
                || message instanceof TakeOver takeOver && takeOver.pin();
    }

    /** The node a message says it comes from, if it says. */
    private static @Nullable String sender(Object message) {
        if (message instanceof Replicate m) {
            return m.from();
        } else if (message instanceof Vote m) {
            return m.node();
        } else if (message instanceof Join m) {
            return m.node();
        } else if (message instanceof Handover m) {
            return m.node();
        } else if (message instanceof InstallSnapshot m) {
            return m.from();
        } else if (message instanceof Pull m) {
            return m.from();
        }
        return null;
    }
}
