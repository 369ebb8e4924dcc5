package io.neptune.server.internal.replication.protocol;

import org.jspecify.annotations.Nullable;

/**
 * Whether a {@code majority}-mode primary still holds a majority at {@code nowNanos} (Raft's check
 * quorum, §6.2 of the dissertation): only while a majority answered a message it sent within the
 * last election timeout ({@code timeoutNanos}). A primary that lost it refuses writes
 * ({@code NO_MAJORITY}: they could not commit) and steps down, so a primary cut off from the others
 * does not hold clients forever; the voters, which refuse votes for a timeout after they last heard
 * from it, let another be elected only after that.
 *
 * <p>{@code majoritySince} is the latest moment from which a majority is known to have followed the
 * primary ({@link Election#majorityContact}; {@link Long#MIN_VALUE}: never), {@code heardFrom} how
 * many counted replicas (the primary included) answered within the timeout. Pure.
 */
public record MajorityLease(long majoritySince, int heardFrom, long nowNanos, long timeoutNanos) {
    /** Whether a majority followed the primary within the last election timeout. */
    public boolean holds() {
        return majoritySince != Long.MIN_VALUE && nowNanos - majoritySince < timeoutNanos;
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
