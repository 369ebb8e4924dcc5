package io.neptune.server.internal.replication.protocol;

/**
 * The grace a replica woken from a pause gives the others. A replica whose ticks stopped for half an
 * election timeout (SIGSTOP, a long GC pause, a machine too starved to run it) heard nothing in that
 * time because it listened to nothing. As the yellow page does for its expiry, it then gives the
 * others one election timeout to be heard before it judges them by their silence: a primary does not
 * step down for want of answers, and a follower does not stand, within that grace. On a machine-wide
 * stall every replica of every partition would otherwise stand or step down at once when it wakes.
 * Safety does not depend on it: a primary deposed meanwhile learns the higher epoch from the first
 * answer, and fresh reads keep their own lease. The grace is given at most once per three election
 * timeouts, so a process that stays starved still fails over, one timeout late at most.
 *
 * <p>Thread-safety: confined to the partition's executor, like the replica that owns it.
 */
public final class WakeGrace {
    private final long timeoutNanos;
    /** When the last tick ran; {@link Long#MIN_VALUE} before the first. */
    private long lastTickNanos = Long.MIN_VALUE;
    private long untilNanos = Long.MIN_VALUE;
    private long lastGraceNanos = Long.MIN_VALUE;

    public WakeGrace(long electionTimeoutNanos) {
        this.timeoutNanos = electionTimeoutNanos;
    }

    /** Notes a tick at {@code now}; true if it ends a pause, and a grace starts. */
    public boolean tick(long now) {
        long last = lastTickNanos;
        lastTickNanos = now;
        if (last == Long.MIN_VALUE || now - last <= timeoutNanos / 2
                || lastGraceNanos != Long.MIN_VALUE && now - lastGraceNanos < 3 * timeoutNanos) {
            return false;
        }
        lastGraceNanos = now;
        untilNanos = now + timeoutNanos;
        return true;
    }

    /** Whether a grace runs at {@code now}. */
    public boolean active(long now) {
        return untilNanos != Long.MIN_VALUE && now - untilNanos < 0;
    }
}
