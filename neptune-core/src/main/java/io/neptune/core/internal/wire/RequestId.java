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
