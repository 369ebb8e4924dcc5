package io.neptune.server.internal.replication.protocol;

import org.jspecify.annotations.Nullable;

/**
 * Whether a {@code majority}-mode primary is still followed by a majority at {@code nowNanos} (Raft's
 * check quorum, §6.2 of the dissertation): only while a majority answered it within the last
 * {@code timeoutNanos} (its driver's check-quorum period, two election timeouts). A primary that
 * lost it refuses writes ({@code NO_MAJORITY}: they could not commit) and steps down, so a primary
 * cut off from the others does not hold clients forever. The voters, which refuse votes for one
 * election timeout after they last heard from it, may elect another before that; it learns so from
 * the first answer that carries the newer epoch.
 *
 * <p>The check is about liveness, not safety: a deposed primary commits nothing, and fresh reads
 * count from the send times of the messages a majority answered ({@link MajorityLeader#majoritySince}).
 * So here an answer counts when it arrives, however long ago its message was sent: a loaded follower
 * that answers late still follows, and a primary whose votes took most of a timeout to come back is
 * not deposed before its first heartbeat could be answered.
 *
 * <p>{@code answeredAt} is when the latest answer of a majority arrived (the primary's own is now;
 * {@link Long#MIN_VALUE}: never), {@code heardFrom} how many counted replicas (the primary included)
 * answered within the timeout. Pure.
 */
public record MajorityLease(long answeredAt, int heardFrom, long nowNanos, long timeoutNanos) {
    /**
     * The check-quorum period for an election timeout of {@code electionTimeoutNanos}: two of them (the
     * ack timeout), the longest etcd's check quorum waits. Deposing a primary is liveness only, and a
     * follower too starved to answer for one timeout (a loaded host, a long GC pause) is back within
     * two far more often than it is cut off; each needless step-down costs an election, whose
     * persisted votes load that host further.
     */
    public static long periodFor(long electionTimeoutNanos) {
        return 2 * electionTimeoutNanos;
    }

    /** Whether a majority answered the primary within the last {@code timeoutNanos}. */
    public boolean holds() {
        return answeredAt != Long.MIN_VALUE && nowNanos - answeredAt < timeoutNanos;
    }

    /**
     * Why the primary steps down now, or null: it lost the majority, unless it is {@code woken} from
     * a pause ({@link WakeGrace}: it listened to nothing meanwhile, so the others' silence means nothing).
     */
    public @Nullable String stepDown(boolean woken) {
        if (holds() || woken) {
            return null;
        }
        return "no majority answered within " + timeoutNanos / 1_000_000 + " ms";
    }

    /**
     * Why primary {@code replica} refuses a client write with {@code NO_MAJORITY}, or null if it holds
     * the majority; {@code replicas} is how many count towards it, {@code quorum} how many make one.
     */
    public @Nullable String writeRefusal(String replica, int replicas, int quorum) {
        if (holds()) {
            return null;
        }
        return replica + " has no majority: heard from " + heardFrom + " of " + replicas + " replicas (" + quorum
                + " needed) within " + timeoutNanos / 1_000_000 + " ms; the write did not run";
    }
}
