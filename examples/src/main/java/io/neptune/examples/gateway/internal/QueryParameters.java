package io.neptune.examples.gateway.internal;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The parameters of a URL's query string ({@code ?q=man+pages&k=10}), decoded strictly: {@code +}
 * is a space, {@code %XX} a byte, the bytes must be UTF-8 (other bytes than printable ASCII must be
 * escaped), and every parameter has a name. Routes
 * read a parameter with {@link #single(String)}, which refuses one given twice.
 *
 * <p>Thread-safety: immutable.
 */
public final class QueryParameters {
    /** The most parameters a query string may have. */
    public static final int MAX_PARAMETERS = 64;

    private static final QueryParameters EMPTY = new QueryParameters(Map.of());

    private final Map<String, List<String>> values;

    private QueryParameters(Map<String, List<String>> values) {
        this.values = values;
    }

    /** No parameters. */
    public static QueryParameters empty() {
        return EMPTY;
    }

    /**
     * Parses a raw (still encoded) query string, without its {@code ?}; empty pieces ({@code a=1&&b=2})
     * are ignored.
     *
     * @throws IllegalArgumentException naming the problem: a bad escape, bytes that are not UTF-8, a
     *     parameter without a name, more than {@value #MAX_PARAMETERS} parameters
     */
    public static QueryParameters parse(String rawQuery) {
        if (rawQuery.isEmpty()) {
            return EMPTY;
        }
        Map<String, List<String>> values = new LinkedHashMap<>();
        int count = 0;
        for (String piece : rawQuery.split("&", -1)) {
            if (piece.isEmpty()) {
                continue;
            }
            if (++count > MAX_PARAMETERS) {
                throw new IllegalArgumentException("more than " + MAX_PARAMETERS + " parameters");
            }
            int equals = piece.indexOf('=');
            String name = decode(equals < 0 ? piece : piece.substring(0, equals));
            String value = equals < 0 ? "" : decode(piece.substring(equals + 1));
            if (name.isEmpty()) {
                throw new IllegalArgumentException("a parameter without a name");
            }
            values.computeIfAbsent(name, n -> new ArrayList<>()).add(value);
        }
        Map<String, List<String>> copy = new LinkedHashMap<>();
        values.forEach((name, list) -> copy.put(name, List.copyOf(list)));
        return new QueryParameters(java.util.Collections.unmodifiableMap(copy));
    }

    /** Decodes one name or value: {@code +} is a space, {@code %XX} a byte, and the bytes must be UTF-8. */
    static String decode(String raw) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(raw.length());
        for (int i = 0; i < raw.length(); i++) {
            char c = raw.charAt(i);
            if (c == '+') {
                bytes.write(' ');
            } else if (c == '%') {
                int high = i + 2 < raw.length() ? Character.digit(raw.charAt(i + 1), 16) : -1;
                int low = high >= 0 ? Character.digit(raw.charAt(i + 2), 16) : -1;
                if (low < 0) {
                    throw new IllegalArgumentException("bad escape at '" + raw.substring(i, Math.min(raw.length(), i + 3))
                            + "' (expected: % and two hex digits)");
                }
                bytes.write(high * 16 + low);
                i += 2;
            } else if (c < 0x20 || c > 0x7e) {
                throw new IllegalArgumentException("a raw " + (c < 0x20 || c == 0x7f ? "control" : "non-ASCII")
                        + " character (expected: percent-encoded UTF-8)");
            } else {
                bytes.write(c);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("escaped bytes that are not UTF-8");
        }
    }

    /**
     * The value of parameter {@code name}, if given.
     *
     * @throws HttpStatusException 400 if it was given more than once
     */
    public Optional<String> single(String name) {
        List<String> list = values.get(name);
        if (list == null) {
            return Optional.empty();
        }
        if (list.size() > 1) {
            throw HttpStatusException.badRequest(name + ": given " + list.size() + " times (expected: once)");
        }
        return Optional.of(list.get(0));
    }

    /** Every parameter with its values in the order given. */
    public Map<String, List<String>> asMap() {
        return values;
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
