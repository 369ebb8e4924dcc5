package io.neptune.client.internal;

import io.neptune.core.NeptuneException;
import io.neptune.core.NoMajorityException;
import io.neptune.core.NoReplicaAvailableException;
import io.neptune.core.NodeId;
import io.neptune.core.OverloadedException;
import io.neptune.core.internal.wire.RequestMessage;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The errors a {@link Call} ends with when it stops trying before its deadline: no replica left to
 * try, or a retry that the client's {@link RetryBudget} holds back. A typed refusal that says why the
 * call never ran (overloaded, no majority) is kept as the error's type either way.
 */
final class Exhaustion {
    private Exhaustion() {}

    /** No replica is left to try: the last typed refusal, else "no replica available" naming those tried. */
    static NeptuneException noReplicaLeft(RequestMessage message, List<NodeId> tried, @Nullable NeptuneException last) {
        if (last instanceof OverloadedException || last instanceof NoMajorityException) {
            return last;
        }
        return new NoReplicaAvailableException(message.service(), message.partition(), detail(tried, last), last);
    }

    /**
     * The call would have retried after {@code last}, but the retry budget is spent: it ends with
     * {@code last}'s type (caused by it) and a message saying the budget held the retry back.
     */
    static NeptuneException budgetSpent(RequestMessage message, List<NodeId> tried, NeptuneException last) {
        String why = "retry budget exhausted: more than the budget's share of this client's recent attempts failed,"
                + " so it retries no more until answers refill it";
        NeptuneException spent;
        if (last instanceof OverloadedException o) {
            spent = new OverloadedException(message.target(), o.node(), why);
        } else if (last instanceof NoMajorityException m) {
            spent = new NoMajorityException(message.target(), m.node(), why);
        } else {
            return new NoReplicaAvailableException(message.service(), message.partition(), why + "; "
                    + detail(tried, last), last);
        }
        spent.initCause(last);
        return spent;
    }

    private static String detail(List<NodeId> tried, @Nullable NeptuneException last) {
        // a replica that answered "not the primary" leaves the tried list (the next attempt may go to it again)
        return !tried.isEmpty() ? "tried " + tried + (last == null ? "" : "; last: " + last.getMessage())
                : last != null ? "last: " + last.getMessage() : "none in the yellow page";
    }
}
