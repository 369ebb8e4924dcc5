package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.util.regex.Pattern;

/**
 * The cluster-wide name of a node. Immutable and value-based.
 *
 * @param value letters, digits, {@code '-'}, {@code '_'} and {@code '.'}; 1 to 64 characters
 */
public record NodeId(String value) {
    private static final Pattern VALID = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    /** Validates the name. */
    public NodeId {
        requireNonNull(value, "value");
        if (!VALID.matcher(value).matches()) {
            throw new IllegalArgumentException(
                    "node id: '" + value + "' (expected: 1-64 of letters, digits, '.', '_', '-')");
        }
    }

    /** Returns the node id named {@code value}. */
    public static NodeId of(String value) {
        return new NodeId(value);
    }

    @Override
    public String toString() {
        return value;
    }
}
