package io.neptune.benchmarks.nemesis.history;

import java.util.Locale;

/** The kind of one history entry: an invocation, or how it completed. */
public enum OpType {
    /** A client process started the operation. */
    INVOKE,
    /** The operation took effect, and the client knows it. */
    OK,
    /** The operation definitely did not take effect. */
    FAIL,
    /**
     * The outcome is unknown: the operation may or may not have taken effect, now or later (a
     * timeout after the request was sent, an {@code OutcomeUnknownException}, a crashed client).
     */
    INFO;

    /** The name written in history files: {@code invoke}, {@code ok}, {@code fail} or {@code info}. */
    public String jsonName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The type named {@code name} in history files.
     *
     * @throws IllegalArgumentException naming the value and the accepted ones
     */
    public static OpType fromJsonName(String name) {
        for (OpType type : values()) {
            if (type.jsonName().equals(name)) {
                return type;
            }
        }
        throw new IllegalArgumentException("type: '" + name + "' (expected: invoke, ok, fail or info)");
    }
}
