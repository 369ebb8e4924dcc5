package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.internal.replication.runtime.PeerMessages.HandoverReply;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The primary's side of a handover an operator asked for ({@code admin move-primary}, {@code admin
 * drain}; {@code docs/protocols/replication.md}, "Moving the primary role"). Under a steady write
 * load a primary is rarely idle with its target caught up, which a handover by priority waits for;
 * so from the moment the target asks, the primary assigns no new LSN and holds the writes that
 * arrive. Once every logged write committed and the target logged them all, the primary steps down
 * and the target is told to take over; the held writes, which never ran, are answered
 * {@code NOT_PRIMARY} naming the target, where the client sends them next. If that does not happen
 * within {@link #TIMEOUT_MILLIS}, the held writes run here as usual and the target is refused: no
 * write waits longer than that, and none is lost either way.
 *
 * <p>Thread-safety: confined to the partition's serial executor.
 */
final class Handoff {
    /** What a handoff asks of the primary's replica, in its mode's terms. */
    interface Host {
        /** Whether the replica still leads as it did when the handoff started. */
        boolean leads();

        /** Whether no write waits to commit and {@code target} logged every record of this log. */
        boolean caughtUp(NodeId target);

        /** Steps the replica down in favour of {@code target}. */
        void stepDownFor(NodeId target);

        /** Runs a write the handoff held, as the replica runs any write. */
        void write(RequestMessage request, Consumer<ResponseMessage> reply);
    }

    /**
     * The longest the primary holds writes for a handover: below the shortest peer-call timeout
     * (1 s), so the target still hears the answer.
     */
    static final long TIMEOUT_MILLIS = 800;
    private static final long CHECK_MILLIS = 5;
    private static final Logger logger = LoggerFactory.getLogger(Handoff.class);

    private record Held(RequestMessage request, Consumer<ResponseMessage> reply) {}

    private final ReplicaCore core;
    private final NodeId target;
    private final Host host;
    private final Consumer<Object> reply;
    private final long deadlineNanos;
    private final List<Held> held = new ArrayList<>();
    private boolean done;

    /**
     * Starts handing {@code host}'s primary role to {@code target}; {@code reply} gets the
     * {@link HandoverReply} for the target.
     */
    Handoff(ReplicaCore core, NodeId target, Host host, Consumer<Object> reply) {
        this.core = core;
        this.target = target;
        this.host = host;
        this.reply = reply;
        this.deadlineNanos = core.clock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(TIMEOUT_MILLIS);
        logger.info("{}: {} asks for the primary role (operator); holding new writes until it has every logged one",
                core.name, target);
        check();
    }

    /** Whether the handoff is over (either way). */
    boolean done() {
        return done;
    }

    /** The node the role goes to. */
    NodeId target() {
        return target;
    }

    /** Holds a write that arrived meanwhile and returns true; false once the handoff is over. */
    boolean hold(RequestMessage request, Consumer<ResponseMessage> answer) {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (done) {
            return false;
        }
        held.add(new Held(request, answer));
        return true;
    }

    private void check() {
        assert core.exec.inExecutor() : "off the partition's executor";
        if (done) {
            return;
        }
        if (!host.leads()) {
            finish(false, core.self + " stopped being the primary meanwhile");
        } else if (host.caughtUp(target)) {
            logger.info("{}: handing the primary role to {} (operator) at {}", core.name, target, core.log.lastLsn());
            host.stepDownFor(target);
            finish(true, "");
        } else if (core.clock.getAsLong() - deadlineNanos >= 0) {
            finish(false, target + " did not catch up within " + TIMEOUT_MILLIS + " ms (the primary's log ends at "
                    + core.log.lastLsn() + ")");
        } else {
            try {
                core.timer.schedule(() -> core.exec.execute(this::check), CHECK_MILLIS, TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) { // the node is stopping
                finish(false, core.self + " is shutting down");
            }
        }
    }

    private void finish(boolean accepted, String reason) {
        done = true;
        if (!accepted) {
            logger.info("{}: handover to {} refused: {}", core.name, target, reason);
        }
        reply.accept(new HandoverReply(accepted, reason, core.log.epoch(), core.log.lastLsn()));
        for (Held h : held) {
            if (accepted) {
                h.reply().accept(core.notPrimary(h.request().requestId(), target));
            } else {
                host.write(h.request(), h.reply());
            }
        }
        held.clear();
    }
}
