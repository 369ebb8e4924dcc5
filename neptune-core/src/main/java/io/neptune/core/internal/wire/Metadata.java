package io.neptune.core.internal.wire;

import static java.util.Objects.requireNonNull;

import io.netty.buffer.ByteBufUtil;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The metadata a REQUEST carries since wire version 2 ({@code docs/protocols/wire.md}): a small,
 * bounded set of key/value pairs that travel with a call across hops, such as the W3C trace
 * context ({@code traceparent}, {@code tracestate}) and {@code baggage}. Keys are 1 to
 * {@value #MAX_KEY_BYTES} characters of {@code a-z 0-9 - _ .}; values are UTF-8 of at most
 * {@value #MAX_VALUE_BYTES} bytes; at most {@value #MAX_ENTRIES} pairs and {@value #MAX_BYTES} bytes
 * of keys and values together. Immutable, in the order given.
 *
 * @param entries the pairs, in wire order
 */
public record Metadata(Map<String, String> entries) {
    /** No metadata: the request is written as a version-1 frame. */
    public static final Metadata NONE = new Metadata(Map.of());
    /** Most pairs on one request. */
    public static final int MAX_ENTRIES = 16;
    /** Longest key, in bytes. */
    public static final int MAX_KEY_BYTES = 64;
    /** Longest value, in UTF-8 bytes. */
    public static final int MAX_VALUE_BYTES = 1024;
    /** Most bytes of keys and values together. */
    public static final int MAX_BYTES = 4096;

    /**
     * Validates the pairs and copies them.
     *
     * @throws IllegalArgumentException naming the key or limit that is not met
     */
    public Metadata {
        requireNonNull(entries, "entries");
        if (entries.size() > MAX_ENTRIES) {
            throw new IllegalArgumentException("metadata: " + entries.size() + " entries (expected: <= " + MAX_ENTRIES
                    + ")");
        }
        int bytes = 0;
        for (Map.Entry<String, String> entry : entries.entrySet()) {
            String key = requireNonNull(entry.getKey(), "metadata key");
            String value = requireNonNull(entry.getValue(), () -> "metadata value of " + key);
            String wrong = invalidKey(key);
            if (wrong != null) {
                throw new IllegalArgumentException(wrong);
            }
            int valueBytes = ByteBufUtil.utf8Bytes(value);
            if (valueBytes > MAX_VALUE_BYTES) {
                throw new IllegalArgumentException("metadata value of '" + key + "': " + valueBytes
                        + " bytes (expected: <= " + MAX_VALUE_BYTES + ")");
            }
            bytes += key.length() + valueBytes;
        }
        if (bytes > MAX_BYTES) {
            throw new IllegalArgumentException("metadata: " + bytes + " bytes of keys and values (expected: <= "
                    + MAX_BYTES + ")");
        }
        entries = entries.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(entries));
    }

    private static @Nullable String invalidKey(String key) {
        if (key.isEmpty() || key.length() > MAX_KEY_BYTES) {
            return "metadata key '" + key + "': " + key.length() + " characters (expected: 1.." + MAX_KEY_BYTES + ")";
        }
        for (int i = 0; i < key.length(); i++) {
            char c = key.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.')) {
                return "metadata key '" + key + "': character '" + c + "' at " + i + " (expected: a-z 0-9 - _ .)";
            }
        }
        return null;
    }

    /** The value of {@code key}, if the request carries it. */
    public Optional<String> get(String key) {
        return Optional.ofNullable(entries.get(key));
    }

    /** Whether there is no pair (a version-1 request). */
    public boolean isEmpty() {
        return entries.isEmpty();
    }

    /** A copy with {@code key} set to {@code value} (replacing a value it had). */
    public Metadata with(String key, String value) {
        Map<String, String> copy = new LinkedHashMap<>(entries);
        copy.put(key, value);
        return new Metadata(copy);
    }

    /** The bytes the section takes in a frame: the count, then each key and value with its 2-byte length. */
    int wireBytes() {
        int bytes = 1;
        for (Map.Entry<String, String> entry : entries.entrySet()) {
            bytes += 2 + entry.getKey().length() + 2 + ByteBufUtil.utf8Bytes(entry.getValue());
        }
        return bytes;
    }
}
