package io.neptune.examples.discussion;

import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/** Validation of user-supplied text, shared by the example services. */
public final class Texts {
    /** Longest text field, in UTF-8 bytes. */
    public static final int MAX_TEXT_BYTES = 64 * 1024;
    /** Longest short field (names, titles, topics), in characters. */
    public static final int MAX_NAME_LENGTH = 200;

    private Texts() {}

    /** Checks a short, non-blank field such as an author or a topic. */
    public static String name(String field, @Nullable String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + ": missing (expected: 1.." + MAX_NAME_LENGTH + " characters)");
        }
        if (value.length() > MAX_NAME_LENGTH) {
            throw new IllegalArgumentException(field + ": " + value.length() + " characters (expected: 1.."
                    + MAX_NAME_LENGTH + ")");
        }
        return value;
    }

    /** Checks a text field of at most {@value #MAX_TEXT_BYTES} bytes (may be empty). */
    public static String text(String field, @Nullable String value) {
        if (value == null) {
            throw new IllegalArgumentException(field + ": missing (expected: text of at most " + MAX_TEXT_BYTES + " bytes)");
        }
        int bytes = value.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_TEXT_BYTES) {
            throw new IllegalArgumentException(field + ": " + bytes + " bytes (expected: at most " + MAX_TEXT_BYTES + ")");
        }
        return value;
    }
}
