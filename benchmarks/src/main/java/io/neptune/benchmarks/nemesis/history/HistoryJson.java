package io.neptune.benchmarks.nemesis.history;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The JSON of one history line, mapped field by field so the file format stays exactly what the
 * package documentation describes. Thread-safety: stateless; the mapper is shared and thread-safe.
 */
final class HistoryJson {
    /** Reads and writes run files; ignores unknown fields and reads absent lists as empty. */
    static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .withConfigOverride(List.class, o -> o.setSetterInfo(JsonSetter.Value.forValueNulls(Nulls.AS_EMPTY)))
            .build();

    private HistoryJson() {}

    /** {@code op} as one line of JSON, without the line break. */
    static String toLine(Op op) {
        ObjectNode node = MAPPER.createObjectNode()
                .put("index", op.index())
                .put("process", op.process())
                .put("type", op.type().jsonName())
                .put("f", op.f().jsonName())
                .put("key", op.key())
                .put("partition", op.partition());
        if (op.element() != null) {
            node.put("value", op.element());
        }
        if (op.list() != null) {
            ArrayNode values = node.putArray("value");
            op.list().forEach(values::add);
        }
        node.put("time", op.time());
        putIfPresent(node, "node", op.node());
        if (op.version() != null) {
            node.put("version", op.version());
        }
        putIfPresent(node, "session", op.session());
        putIfPresent(node, "error", op.error());
        try {
            return MAPPER.writeValueAsString(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + op, e);
        }
    }

    /**
     * The op a line of JSON describes.
     *
     * @throws IllegalArgumentException if the line is not JSON or breaks the format
     */
    static Op fromLine(String line) {
        JsonNode json;
        try {
            json = MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("line: not JSON (" + e.getOriginalMessage() + ")", e);
        }
        if (json == null || !json.isObject()) {
            throw new IllegalArgumentException("line: " + line + " (expected: a JSON object)");
        }
        OpFunction f = OpFunction.fromJsonName(text(json, "f"));
        JsonNode value = json.get("value");
        Long element = null;
        List<Long> list = null;
        if (value != null && !value.isNull()) {
            if (value.isArray()) {
                list = new ArrayList<>(value.size());
                for (JsonNode v : value) {
                    list.add(integral(v, "value[]"));
                }
            } else {
                element = integral(value, "value");
            }
        }
        return new Op(integral(json.get("index"), "index"), intField(json, "process"),
                OpType.fromJsonName(text(json, "type")), f, text(json, "key"),
                intField(json, "partition"), element, list,
                integral(json.get("time"), "time"), optionalText(json, "node"),
                json.hasNonNull("version") ? integral(json.get("version"), "version") : null,
                optionalText(json, "session"), optionalText(json, "error"));
    }

    private static void putIfPresent(ObjectNode node, String field, @Nullable String value) {
        if (value != null) {
            node.put(field, value);
        }
    }

    private static long integral(@Nullable JsonNode value, String field) {
        if (value == null || !value.canConvertToExactIntegral() || !value.canConvertToLong()) {
            throw new IllegalArgumentException(field + ": " + value + " (expected: an integer)");
        }
        return value.longValue();
    }

    private static int intField(JsonNode json, String field) {
        long value = integral(json.get(field), field);
        if (value != (int) value) {
            throw new IllegalArgumentException(field + ": " + value + " (expected: an int)");
        }
        return (int) value;
    }

    private static String text(JsonNode json, String field) {
        String text = optionalText(json, field);
        if (text == null) {
            throw new IllegalArgumentException(field + ": absent (expected: a string)");
        }
        return text;
    }

    private static @Nullable String optionalText(JsonNode json, String field) {
        JsonNode value = json.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isTextual()) {
            throw new IllegalArgumentException(field + ": " + value + " (expected: a string)");
        }
        return value.textValue();
    }
}
