package io.neptune.benchmarks.nemesis.history;

import java.util.Locale;

/**
 * What an operation does to its key. Every key is an append-only list of longs (Jepsen's
 * list-append workload), which makes lost, duplicated and reordered writes decidable from reads.
 */
public enum OpFunction {
    /** Appends one long, unique per key, to the key's list. */
    APPEND,
    /** Reads the key's whole list, in order. */
    READ;

    /** The name written in history files: {@code append} or {@code read}. */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The function named {@code name} in history files.
     *
     * @throws IllegalArgumentException naming the value and the accepted ones
     */
    public static OpFunction fromJsonName(String name) {
        for (OpFunction f : values()) {
            if (f.jsonName().equals(name)) {
                return f;
            }
        }
        throw new IllegalArgumentException("f: '" + name + "' (expected: append or read)");
    }
}
