package io.neptune.core.internal.wire;

import java.security.SecureRandom;
import java.util.SplittableRandom;

/**
 * The identity of one client request across retries and replicas: 128 random bits, so a retried
 * write can be recognized and not executed twice (DESIGN §6.5). Immutable and value-based.
 *
 * @param high the upper 64 bits
 * @param low the lower 64 bits
 */
public record RequestId(long high, long low) {
    /** The id of requests that carry none (reads, peer messages). */
    public static final RequestId NONE = new RequestId(0, 0);

    private static final SecureRandom SEEDS = new SecureRandom();

    /**
     * Each thread draws from two fast generators with independent {@link SecureRandom} seeds, one
     * per half. A {@link SplittableRandom} built from a seed walks the same 2^64 cycle as every other
     * one, so a single generator for both halves would make two threads' ids collide whenever their
     * starting points are close; with two generators both halves would have to line up.
     */
    private static final ThreadLocal<Source> SOURCE = ThreadLocal.withInitial(Source::new);

    /** Returns a new random id, never {@link #NONE}; cheap, and safe to call from any thread. */
    public static RequestId random() {
        Source source = SOURCE.get();
        RequestId id = new RequestId(source.high.nextLong(), source.low.nextLong());
        return id.isNone() ? random() : id;
    }

    /**
     * Parses the form {@link #toString()} returns.
     *
     * @throws IllegalArgumentException naming the problem if {@code hex} is not 32 hex digits, or is all zeros
     */
    public static RequestId parse(String hex) {
        if (hex.length() != 32 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
            throw new IllegalArgumentException("request id: '" + hex + "' (expected: 32 hex digits)");
        }
        RequestId id = new RequestId(Long.parseUnsignedLong(hex, 0, 16, 16), Long.parseUnsignedLong(hex, 16, 32, 16));
        if (id.isNone()) {
            throw new IllegalArgumentException("request id: '" + hex + "' (expected: not all zeros)");
        }
        return id;
    }

    /**
     * The id of the {@code rank}-th write (1, 2, ...) that the request with this id makes as part of its
     * own call (an inner call): the same for every run of this request (a retry, a replica applying it),
     * so those runs send their inner writes with the same ids and each runs once. Ids derived from
     * different ids or ranks differ (up to the 2^-128 chance of any two ids); a fresh random id if this
     * is {@link #NONE}, whose runs cannot be told apart.
     *
     * @throws IllegalArgumentException if {@code rank} is not positive
     */
    public RequestId derived(int rank) {
        if (rank < 1) {
            throw new IllegalArgumentException("rank: " + rank + " (expected: >= 1)");
        }
        if (isNone()) {
            return random();
        }
        // two rounds of SplitMix64's finalizer over both halves and the rank: each output bit depends on every input bit
        long h = mix(high ^ mix(low + rank * 0x9E3779B97F4A7C15L));
        long l = mix(low ^ mix(h + rank));
        RequestId id = new RequestId(h, l);
        return id.isNone() ? new RequestId(h, 1) : id;
    }

    private static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    /** Whether this is {@link #NONE}. */
    public boolean isNone() {
        return high == 0 && low == 0;
    }

    /** Returns the 32 lower-case hex digits of {@code high} then {@code low}. */
    @Override
    public String toString() {
        char[] hex = new char[32];
        fill(hex, 0, high);
        fill(hex, 16, low);
        return new String(hex);
    }

    private static void fill(char[] hex, int start, long value) {
        for (int i = 15; i >= 0; i--) {
            hex[start + i] = Character.forDigit((int) (value & 0xf), 16);
            value >>>= 4;
        }
    }

    private static final class Source {
        final SplittableRandom high;
        final SplittableRandom low;

        Source() {
            high = new SplittableRandom(SEEDS.nextLong());   // SecureRandom is thread-safe
            low = new SplittableRandom(SEEDS.nextLong());
        }
    }
}
