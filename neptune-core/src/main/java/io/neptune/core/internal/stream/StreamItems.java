package io.neptune.core.internal.stream;

import com.fasterxml.jackson.databind.JavaType;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.json.JsonCodec;
import io.neptune.core.internal.wire.StreamData;
import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * How stream items travel in DATA frames: as their JSON, except a {@code byte[]} item, which goes as
 * its own bytes (flag {@code 0x02}) instead of Jackson's base64, a third larger and costly to code
 * for big items. A receiver whose items are {@code byte[]} takes the bytes as they are; one expecting
 * another type refuses raw bytes.
 *
 * <p>Thread-safety: stateless.
 */
public final class StreamItems {
    private StreamItems() {}

    /** One encoded item. */
    public record Encoded(byte[] bytes, boolean raw) {}

    /**
     * Encodes {@code item}: a copy of a {@code byte[]} (the producer may reuse its array once it
     * handed it over), JSON otherwise.
     *
     * @throws IOException if Jackson cannot encode it
     */
    public static Encoded encode(Object item) throws IOException {
        if (item instanceof byte[] bytes) {
            return new Encoded(bytes.clone(), true);
        }
        return new Encoded(Json.mapper().writeValueAsBytes(item), false);
    }

    /**
     * Decodes one item of {@code type}.
     *
     * @throws IOException if the JSON does not map to {@code type}, or raw bytes came for items that
     *     are not {@code byte[]}
     */
    public static <T> T decode(StreamData data, JavaType type) throws IOException {
        return data.raw() ? raw(data, type) : notNull(Json.mapper().readValue(data.payload(), type));
    }

    /**
     * Decodes one item of a server's output stream, as {@link #decode}, but skipping fields
     * {@code type} does not have, as {@link JsonCodec#decodeReply} does for an answer.
     */
    public static <T> T decodeReply(StreamData data, JavaType type) throws IOException {
        return data.raw() ? raw(data, type) : notNull(JsonCodec.decodeReply(data.payload(), type));
    }

    /** A stream never carries null (Reactive Streams 2.13): a subscriber must not get onNext(null). */
    private static <T> T notNull(@Nullable T item) throws IOException {
        if (item == null) {
            throw new IOException("the item is null (expected: an item; Reactive Streams 2.13 forbids null)");
        }
        return item;
    }

    @SuppressWarnings("unchecked")
    private static <T> T raw(StreamData data, JavaType type) throws IOException {
        if (type.getRawClass() != byte[].class) {
            throw new IOException("the item is raw bytes (flag 0x02), but the stream's items are " + type);
        }
        return (T) data.payload();
    }
}
