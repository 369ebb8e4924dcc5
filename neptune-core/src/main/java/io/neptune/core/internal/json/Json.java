package io.neptune.core.internal.json;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.jsontype.BasicPolymorphicTypeValidator;
import io.neptune.core.ClassStats;

/**
 * The shared, hardened Jackson mapper (DESIGN §8): no default typing, no class names taken from a
 * payload (a polymorphic type validator that allows none), bounded nesting, string and number sizes,
 * trailing tokens rejected. Every mapper that reads bytes from the network is this one. Thread-safe
 * once built; share it.
 */
public final class Json {
    /** Deepest nesting a payload may have. */
    public static final int MAX_NESTING_DEPTH = 64;
    /** Longest string value a payload may have, in characters. */
    public static final int MAX_STRING_LENGTH = 16 * 1024 * 1024;

    private static final ObjectMapper MAPPER = JsonMapper.builder(new JsonFactory().setStreamReadConstraints(
                    StreamReadConstraints.builder()
                            .maxNestingDepth(MAX_NESTING_DEPTH)
                            .maxStringLength(MAX_STRING_LENGTH)
                            .maxNumberLength(100)
                            .build()))
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            // allows nothing: a class-name type id (@JsonTypeInfo(use = CLASS | MINIMAL_CLASS)) is refused, its class
            // never initialized; named subtypes (use = NAME with @JsonSubTypes, a closed set) do not consult it
            .polymorphicTypeValidator(BasicPolymorphicTypeValidator.builder().build())
            // public API records carried in announcements: a newer node may add fields (no Jackson in the API)
            .addMixIn(ClassStats.class, IgnoreUnknown.class)
            .build();

    @JsonIgnoreProperties(ignoreUnknown = true)
    private interface IgnoreUnknown {}

    private Json() {}

    /** The shared mapper. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }
}
