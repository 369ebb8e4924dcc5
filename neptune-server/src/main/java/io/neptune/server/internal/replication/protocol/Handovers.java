package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import org.jspecify.annotations.Nullable;

/**
 * Whether a primary asked to hand its role over may start to, in either fail-over mode
 * ({@code docs/protocols/replication.md}, "Moving the primary role"): a replica of higher priority
 * asks once it caught up, an operator's move-primary or drain asks through the replica it names.
 * No state, no I/O: unit-tested on its own.
 */
public final class Handovers {
    private Handovers() {}

    /**
     * Why the replica refuses to hand the primary role over, or null if it may go ahead (a handover by
     * priority then still waits for the asker to have caught up).
     *
     * @param leads whether the replica asked is the primary
     * @param handingOffTo the replica an operator's handover under way gives the role to, or null
     * @param pinned whether it leads by an operator's move-primary, which a handover by priority must not undo
     * @param operator whether an operator asks, rather than a replica of higher priority
     */
    public static @Nullable String refusal(boolean leads, @Nullable NodeId handingOffTo, boolean pinned,
            boolean operator) {
        if (!leads) {
            return "not the primary";
        }
        if (handingOffTo != null) {
            return "a handover to " + handingOffTo + " is under way";
        }
        if (pinned && !operator) {
            return "primary by an operator's move-primary";
        }
        return null;
    }
}
