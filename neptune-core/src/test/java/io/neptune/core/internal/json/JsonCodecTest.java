package io.neptune.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The codec must be indistinguishable from {@link Json#mapper()}: the same bytes out, the same
 * values in, the same exceptions, payload after payload on one thread, and after failures.
 */
class JsonCodecTest {
    public record Post(String author, String text, List<String> tags, long at, byte[] attachment) {}

    public record Topic(int id, Post first, Map<String, Integer> votes, BigDecimal score, boolean open) {}

    public record Empty() {}

    public record Ping(String text) {}

    private static final Topic TOPIC = new Topic(7, new Post("ann", "héllo \"wörld\" \n ✓", List.of("a", "b"),
            1_700_000_000_000L, new byte[] {1, 2, 3, -1}), new LinkedHashMap<>(Map.of("x", 1)), new BigDecimal("1.50"),
            true);

    private static final JavaType TOPIC_TYPE = Json.mapper().constructType(Topic.class);

    @Test
    void encodesTheBytesTheMapperWrites() throws Exception {
        List<Object> values = new ArrayList<>(List.of(TOPIC, new Empty(), new Ping(""), List.of(1, 2, 3), Map.of(),
                "text", 42, 1.5, true, new int[] {1, 2}, "x"));
        values.add(null);
        for (int round = 0; round < 3; round++) { // again and again on this thread's generator
            for (Object value : values) {
                assertThat(new String(JsonCodec.encode(value), StandardCharsets.UTF_8)).as("%s", value)
                        .isEqualTo(Json.mapper().writeValueAsString(value));
            }
        }
    }

    @Test
    void decodesTheValuesTheMapperReads() throws Exception {
        byte[] topic = Json.mapper().writeValueAsBytes(TOPIC);
        for (int i = 0; i < JsonCodec.PAYLOADS_PER_PARSER * 2 + 10; i++) { // through parser replacements
            Topic decoded = JsonCodec.decode(topic, Topic.class);
            assertThat(decoded.first().attachment()).containsExactly(1, 2, 3, -1);
            assertThat(decoded).usingRecursiveComparison().isEqualTo(TOPIC);
            assertThat(JsonCodec.<Ping>decode(bytes(" {\"text\" : \"p" + i + "\"}\n"), Ping.class))
                    .isEqualTo(new Ping("p" + i));
        }
        JavaType listOfMaps = Json.mapper().constructType(new TypeReference<List<Map<String, Long>>>() {});
        assertThat(JsonCodec.<List<Map<String, Long>>>decode(bytes("[{\"a\":1},{\"b\":2}]"), listOfMaps))
                .isEqualTo(List.of(Map.of("a", 1L), Map.of("b", 2L)));
        assertThat(JsonCodec.<List<?>>decode(bytes("[]"), Json.mapper().constructType(List.class))).isEqualTo(List.of());
        assertThat(JsonCodec.decode(bytes("{}"), Empty.class)).isEqualTo(new Empty());
        // scalars and null go to the mapper: a root number is only over when the input is
        assertThat(JsonCodec.decode(bytes("42"), Integer.class)).isEqualTo(42);
        assertThat(JsonCodec.decode(bytes("\"s\""), String.class)).isEqualTo("s");
        assertThat(JsonCodec.decode(bytes("null"), Ping.class)).isNull();
        assertThat(JsonCodec.decode(bytes("17"), Long.class)).isEqualTo(17L); // not 4217 after "42" above
    }

    @Test
    void failsAsTheMapperFailsAndRecovers() throws Exception {
        List<String> bad = List.of(
                "{\"author\":\"a\"", // cut short
                "{\"first\":{\"author\":\"a\"}", // cut short, but ends in a brace
                "{\"id\":1}{\"id\":2}", // two values
                "{\"id\":1} x",
                "{\"id\": tru}",
                "{\"nope\":1}", // unknown property
                "[1,2]", // an array for a record
                "{\"id\":null}", // null for a primitive
                "[".repeat(Json.MAX_NESTING_DEPTH + 2) + "]".repeat(Json.MAX_NESTING_DEPTH + 2),
                "",
                "   ");
        for (String payload : bad) {
            Throwable expected = catchThrowable(() -> Json.mapper().readValue(bytes(payload), TOPIC_TYPE));
            assertThat(expected).as("the mapper refuses %s", payload).isNotNull();
            Throwable actual = catchThrowable(() -> JsonCodec.decode(bytes(payload), TOPIC_TYPE));
            assertThat(actual).as("codec on %s", payload).isNotNull().hasSameClassAs(expected)
                    .hasMessage(expected.getMessage());
            assertThat(JsonCodec.<Ping>decode(bytes("{\"text\":\"after\"}"), Ping.class)).isEqualTo(new Ping("after"));
        }
    }

    /** A newer server's answer, with a field this client's type lacks: skipped, small or large; requests stay strict. */
    @Test
    void aReplySkipsFieldsItsTypeDoesNotHaveWhereARequestIsRefused() throws Exception {
        JavaType ping = Json.mapper().constructType(Ping.class);
        for (String text : List.of("small", "x".repeat(JsonCodec.MAX_REUSED_BYTES))) { // reused parser, then the mapper
            byte[] newer = ("{\"text\":\"" + text + "\",\"addedLater\":{\"a\":[1,2]}}").getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < 3; i++) {
                assertThat(JsonCodec.<Ping>decodeReply(newer, ping)).isEqualTo(new Ping(text));
                assertThatThrownBy(() -> JsonCodec.decode(newer, Ping.class))
                        .hasMessageContaining("Unrecognized field \"addedLater\"");
            }
        }
        assertThatThrownBy(() -> JsonCodec.decodeReply("{\"text\":\"a\"} {}".getBytes(StandardCharsets.UTF_8), ping))
                .as("trailing tokens are still refused").isInstanceOf(IOException.class);
    }

    @Test
    void aSerializerThatThrowsLeavesTheNextPayloadWhole() throws Exception {
        assertThatThrownBy(() -> JsonCodec.encode(List.of(new Ping("before"), new Exploding())))
                .isInstanceOf(IOException.class).hasMessageContaining("boom");
        assertThat(new String(JsonCodec.encode(new Ping("next")), StandardCharsets.UTF_8))
                .isEqualTo("{\"text\":\"next\"}");
    }

    @Test
    void nestedUseOnOneThreadGoesToTheMapper() throws Exception {
        Wrapper wrapper = new Wrapper(new Ping("inner"));
        byte[] encoded = JsonCodec.encode(wrapper);
        assertThat(new String(encoded, StandardCharsets.UTF_8)).isEqualTo(Json.mapper().writeValueAsString(wrapper));
        assertThat(JsonCodec.<Wrapper>decode(encoded, Wrapper.class)).isEqualTo(wrapper);
    }

    /**
     * The point of the codec: reusing the generator and parser must allocate well under half of
     * what the mapper does per payload (the thread's own allocation counter, not a timing).
     */
    @Test
    void allocatesLessThanTheMapper() throws Exception {
        Ping ping = new Ping("0123456789abcdefghijklmnopqr");
        byte[] payload = Json.mapper().writeValueAsBytes(ping);
        long mapper = bytesPerRound(() -> Json.mapper().readValue(Json.mapper().writeValueAsBytes(ping), Ping.class));
        long codec = bytesPerRound(() -> JsonCodec.decode(JsonCodec.encode(ping), Ping.class));
        assertThat(JsonCodec.<Ping>decode(payload, Ping.class)).isEqualTo(ping);
        assertThat(codec).as("bytes per encode + decode: codec %d, mapper %d", codec, mapper).isLessThan(mapper / 2);
    }

    private interface Round {
        void run() throws Exception;
    }

    private static long bytesPerRound(Round round) throws Exception {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        for (int i = 0; i < 20_000; i++) { // let the JIT settle for both alike
            round.run();
        }
        int rounds = 10_000;
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < rounds; i++) {
            round.run();
        }
        return (threads.getCurrentThreadAllocatedBytes() - before) / rounds;
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    @JsonSerialize(using = ExplodingSerializer.class)
    public static final class Exploding {}

    public static final class ExplodingSerializer extends JsonSerializer<Exploding> {
        @Override
        public void serialize(Exploding value, JsonGenerator gen, SerializerProvider serializers) throws IOException {
            gen.writeStartObject();
            throw new IOException("boom");
        }
    }

    /** Holds a ping that its serializer and deserializer encode and decode with the codec again, nested. */
    @JsonSerialize(using = WrapperSerializer.class)
    @JsonDeserialize(using = WrapperDeserializer.class)
    public record Wrapper(Ping inner) {}

    public static final class WrapperSerializer extends JsonSerializer<Wrapper> {
        @Override
        public void serialize(Wrapper value, JsonGenerator gen, SerializerProvider serializers) throws IOException {
            gen.writeStartObject();
            gen.writeStringField("inner", new String(JsonCodec.encode(value.inner()), StandardCharsets.UTF_8));
            gen.writeEndObject();
        }
    }

    public static final class WrapperDeserializer extends JsonDeserializer<Wrapper> {
        @Override
        public Wrapper deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
            Map<?, ?> fields = p.readValueAs(Map.class);
            return new Wrapper(JsonCodec.decode(bytes((String) fields.get("inner")), Ping.class));
        }
    }
}
