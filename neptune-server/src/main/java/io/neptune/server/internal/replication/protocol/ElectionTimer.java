package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import java.time.Duration;
import java.util.Collection;
import java.util.function.LongUnaryOperator;
import org.jspecify.annotations.Nullable;

/**
 * When a {@code majority}-mode follower stands for election, and what it remembers of its primary's
 * voice (Raft §5.2). Hearing from the primary (or granting a vote) restarts the timer; it runs out an
 * election timeout later, plus a delay for every live replica of higher priority
 * ({@link Election.StandDelay}) and a random jitter, so replicas stand in priority order and rarely
 * split a vote. When the primary leaves the yellow page, the timer is cut short to a fraction of that.
 *
 * <p>It also keeps when the replica last heard from a primary other than itself, from which a
 * fail-over is timed, and when it last had contact at all, which refuses the votes of a replica that
 * would depose a primary still heard ({@link Election#voteRefusal}).
 *
 * <p>Pure: the time comes in as an argument, the jitter from the function it is given (the
 * replica's generator, which a simulation seeds).
 */
public final class ElectionTimer {
    private static final long NANOS_PER_MILLI = 1_000_000;
    private static final long FAST_BASE_NANOS = Duration.ofMillis(50).toNanos();
    private static final long FAST_STEP_NANOS = Duration.ofMillis(150).toNanos();
    private static final long FAST_JITTER_NANOS = Duration.ofMillis(100).toNanos();

    private final long timeoutNanos;
    private final NodeId self;
    private final int priority;
    /** Draws a jitter below the bound it is given. */
    private final LongUnaryOperator jitter;
    private long deadlineNanos;
    private long lastContactNanos;
    /** When this replica last heard from another replica as its primary; {@link Long#MIN_VALUE} if never. */
    private long lastPrimaryNanos = Long.MIN_VALUE;

    /**
     * A timer of {@code timeoutNanos} for replica {@code self} of {@code priority}; {@code jitter}
     * draws a random delay below the bound it is given (from the replica's seeded generator).
     */
    public ElectionTimer(long timeoutNanos, NodeId self, int priority, LongUnaryOperator jitter) {
        this.timeoutNanos = timeoutNanos;
        this.self = self;
        this.priority = priority;
        this.jitter = jitter;
    }

    /** Notes contact at {@code now} with {@code primary} (a replicate from it), and restarts the timer. */
    public void heard(long now, NodeId primary, Collection<Replica> view) {
        lastContactNanos = now;
        if (!primary.equals(self)) {
            lastPrimaryNanos = now;
        }
        restart(now, view);
    }

    /** Notes contact at {@code now} that names no primary (a vote granted, a start, a step-down), and restarts the timer. */
    public void heardFromNobody(long now, Collection<Replica> view) {
        lastContactNanos = now;
        restart(now, view);
    }

    /**
     * Moves the deadline to a timeout (plus the priority delay) from {@code now}, without counting as
     * contact: a replica whose own candidacy failed has heard from nobody, and if it said it had, it
     * would refuse the pre-votes of a replica that can win for a whole timeout.
     */
    public void restart(long now, Collection<Replica> view) {
        deadlineNanos = now + delay(view, timeoutNanos, timeoutNanos / 2, timeoutNanos / 4);
    }

    /** The primary left the yellow page (its node's failure was seen): the timer runs out soon, still in priority order. */
    public void hurry(long now, Collection<Replica> view) {
        if (deadlineNanos - now > 0) {
            deadlineNanos = Math.min(deadlineNanos, now + delay(view, FAST_BASE_NANOS, FAST_STEP_NANOS,
                    FAST_JITTER_NANOS));
        }
    }

    /** Whether the timer ran out at {@code now}. */
    public boolean due(long now) {
        return now - deadlineNanos >= 0;
    }

    /** How long before {@code now} this replica last had contact. */
    public long sinceContact(long now) {
        return now - lastContactNanos;
    }

    /**
     * The primary a voter heard from lately, as {@link Election#voteRefusal} weighs it: {@code primary},
     * the primary of its epoch (null: none heard), if this replica had contact within an election timeout
     * before {@code now} and {@code primary} is still in {@code view}, the yellow page; else null.
     */
    public Election.@Nullable Heard heardLately(long now, @Nullable NodeId primary, Collection<Replica> view) {
        long ago = sinceContact(now);
        if (primary == null || ago >= timeoutNanos || Election.replicaOf(view, primary) == null) {
            return null;
        }
        return new Election.Heard(primary.toString(), ago / NANOS_PER_MILLI);
    }

    /** Stepping down at {@code now}: its own last word as primary starts the next fail-over. */
    public void steppedDown(long now, Collection<Replica> view) {
        heardFromNobody(now, view);
        lastPrimaryNanos = now;
    }

    /** How long before {@code now} this replica last heard from a primary, or -1 if it never followed one. */
    public long sincePrimary(long now) {
        return lastPrimaryNanos == Long.MIN_VALUE ? -1 : now - lastPrimaryNanos;
    }

    private long delay(Collection<Replica> view, long baseNanos, long stepNanos, long jitterBoundNanos) {
        return new Election.StandDelay(baseNanos, stepNanos).of(view, self, priority, jitter.applyAsLong(jitterBoundNanos));
    }
}
