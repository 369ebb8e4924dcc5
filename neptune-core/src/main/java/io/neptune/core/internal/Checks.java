package io.neptune.core.internal;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/** Argument checks that produce the house message format {@code "name: value (expected: ...)"}. */
public final class Checks {
    private Checks() {}

    /** Throws unless {@code port} is a valid port number (0 picks a free one). */
    public static void port(String name, int port) {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException(name + ": " + port + " (expected: 0..65535)");
        }
    }

    /** Throws unless {@code value >= min}. */
    public static int atLeast(String name, int value, int min) {
        if (value < min) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: >= " + min + ")");
        }
        return value;
    }

    /**
     * The longest duration {@link #positive} accepts: timeouts travel as 32-bit milliseconds, and
     * longer ones overflow the nanosecond clocks they are measured on.
     */
    public static final Duration MAX_DURATION = Duration.ofDays(24);

    /** Throws unless {@code value} is a positive duration of at most {@link #MAX_DURATION}. */
    public static void positive(String name, Duration value) {
        requireNonNull(value, name);
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: > 0)");
        }
        if (value.compareTo(MAX_DURATION) > 0) {
            throw new IllegalArgumentException(name + ": " + value + " (expected: at most " + MAX_DURATION.toDays()
                    + " days)");
        }
    }
}
