package io.neptune.examples.gateway.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import io.neptune.core.internal.json.Json;
import java.io.IOException;
import java.util.Optional;

/**
 * A request body that must be a JSON object, read field by field with strict types: a string
 * field takes only a JSON string, an integer field only a JSON integer within
 * &plusmn;{@value #MAX_SAFE_INTEGER} (2<sup>53</sup>-1, the largest integer a JavaScript number
 * holds exactly, so the web UI never shows a rounded amount or id). Every violation is a 400 naming
 * the field. Unknown fields are ignored.
 *
 * <p>Thread-safety: immutable once parsed.
 */
public final class JsonBody {
    /** The largest magnitude an integer field may have: 2<sup>53</sup>-1 ({@code Number.MAX_SAFE_INTEGER}). */
    public static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

    private final JsonNode root;

    private JsonBody(JsonNode root) {
        this.root = root;
    }

    /**
     * Parses {@code body}.
     *
     * @throws HttpStatusException 400 if it is empty, malformed or not an object
     */
    public static JsonBody parse(byte[] body) {
        if (body.length == 0) {
            throw HttpStatusException.badRequest("body: empty (expected: a JSON object)");
        }
        JsonNode root;
        try {
            root = Json.mapper().readTree(body);
        } catch (JsonProcessingException e) {
            throw HttpStatusException.badRequest("malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw HttpStatusException.badRequest("malformed JSON: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw HttpStatusException.badRequest("body: " + (root == null ? "empty" : root.getNodeType().name()
                    .toLowerCase(java.util.Locale.ROOT)) + " (expected: a JSON object)");
        }
        return new JsonBody(root);
    }

    /** The string field {@code name}; 400 if missing, null or not a string. */
    public String text(String name) {
        JsonNode value = root.get(name);
        if (value == null || value.isNull()) {
            throw HttpStatusException.badRequest(name + ": missing (expected: a string)");
        }
        if (!value.isTextual()) {
            throw HttpStatusException.badRequest(name + ": " + describe(value) + " (expected: a string)");
        }
        return value.textValue();
    }

    /** The integer field {@code name}; 400 if missing, null, not an integer or beyond &plusmn;{@link #MAX_SAFE_INTEGER}. */
    public long integer(String name) {
        return optionalInteger(name).orElseThrow(() -> HttpStatusException.badRequest(name
                + ": missing (expected: an integer)"));
    }

    /** The optional integer field {@code name}: empty if missing or null; 400 if present but not an integer. */
    public Optional<Long> optionalInteger(String name) {
        JsonNode value = root.get(name);
        if (value == null || value.isNull()) {
            return Optional.empty();
        }
        if (!value.isIntegralNumber()) {
            throw HttpStatusException.badRequest(name + ": " + describe(value) + " (expected: an integer)");
        }
        boolean safe = value.canConvertToLong() && value.longValue() >= -MAX_SAFE_INTEGER
                && value.longValue() <= MAX_SAFE_INTEGER;
        if (!safe) {
            throw HttpStatusException.badRequest(name + ": " + describe(value) + " (expected: an integer of at most "
                    + MAX_SAFE_INTEGER + " in magnitude)");
        }
        return Optional.of(value.longValue());
    }

    private static String describe(JsonNode value) {
        String text = value.toString();
        String shown = text.length() > 40 ? text.substring(0, 40) + "..." : text;
        return value.getNodeType().name().toLowerCase(java.util.Locale.ROOT) + " " + shown;
    }
}
