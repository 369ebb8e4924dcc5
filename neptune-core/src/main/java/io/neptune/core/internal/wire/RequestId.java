package io.neptune.core.internal.wire;

import java.security.SecureRandom;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A 128-bit client request id. A write keeps its id across retries so a replica that already
 * executed it answers from its record instead of executing it twice (DESIGN §6.5).
 *
 * @param high the upper 64 bits
 * @param low the lower 64 bits
 */
public record RequestId(long high, long low) {
    /** The id of requests that carry none (reads). */
    public static final RequestId NONE = new RequestId(0, 0);

    private static final long SEED = new SecureRandom().nextLong();

    /** Returns a fresh random id; never {@link #NONE}. */
    public static RequestId random() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        long high = random.nextLong() ^ SEED;
        long low = random.nextLong() ^ System.nanoTime();
        return high == 0 && low == 0 ? new RequestId(1, 1) : new RequestId(high, low);
    }

    /** Whether this is {@link #NONE}. */
    public boolean isNone() {
        return high == 0 && low == 0;
    }

    @Override
    public String toString() {
        return String.format("%016x%016x", high, low);
    }
}
