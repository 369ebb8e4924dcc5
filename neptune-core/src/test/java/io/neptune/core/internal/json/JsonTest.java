package io.neptune.core.internal.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DatabindException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The shared mapper reads what a remote peer sends: it must never let the payload choose a Java
 * class (DESIGN §8). Default typing stays off, a class-name type id is refused without the class
 * being initialized, and a closed set of named subtypes keeps working.
 */
class JsonTest {
    /** Counts the instances made: a payload naming this class must never make one. */
    public static final class Tripwire {
        static final AtomicInteger made = new AtomicInteger();

        public Tripwire() {
            made.incrementAndGet();
        }
    }

    /** Initializations of {@link LoadTripwire}, kept outside it: reading them must not load it. */
    private static final AtomicInteger LOADS = new AtomicInteger();

    /** Counts its initializations: a payload naming this class must not even load it. */
    public static final class LoadTripwire {
        static {
            LOADS.incrementAndGet();
        }
    }

    /** An untyped field: whatever a payload puts there is plain data. */
    public record Envelope(Object payload) {}

    /** A field that takes its class from the payload, as a careless service type might declare. */
    public record ClassTyped(@JsonTypeInfo(use = JsonTypeInfo.Id.CLASS) Object payload) {}

    /** The same with the shortened class name. */
    public record MinimalClassTyped(@JsonTypeInfo(use = JsonTypeInfo.Id.MINIMAL_CLASS) Object payload) {}

    /** A closed set of subtypes chosen by name: allowed. */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "kind")
    @JsonSubTypes({@JsonSubTypes.Type(value = Circle.class, name = "circle"),
            @JsonSubTypes.Type(value = Square.class, name = "square")})
    public sealed interface Shape permits Circle, Square {}

    /** A named subtype. */
    public record Circle(double radius) implements Shape {}

    /** Another named subtype. */
    public record Square(double side) implements Shape {}

    /** Named subtypes inside a record and a list. */
    public record Drawing(String title, Shape main, List<Shape> others) {}

    @Test
    void defaultTypingIsOff() {
        ObjectMapper mapper = Json.mapper();
        for (Class<?> type : List.of(Object.class, Envelope.class, List.class, Map.class)) {
            JavaType javaType = mapper.constructType(type);
            assertThat(mapper.getDeserializationConfig().getDefaultTyper(javaType)).as("reading %s", type).isNull();
            assertThat(mapper.getSerializationConfig().getDefaultTyper(javaType)).as("writing %s", type).isNull();
        }
    }

    @Test
    void streamReadConstraintsAreSet() {
        StreamReadConstraints constraints = Json.mapper().getFactory().streamReadConstraints();
        assertThat(constraints.getMaxNestingDepth()).isEqualTo(Json.MAX_NESTING_DEPTH);
        assertThat(constraints.getMaxStringLength()).isEqualTo(Json.MAX_STRING_LENGTH);
        assertThat(constraints.getMaxNumberLength()).isEqualTo(100);
    }

    @Test
    void classNamesInAnUntypedFieldAreReadAsPlainData() throws Exception {
        String tripwire = Tripwire.class.getName();
        int before = Tripwire.made.get();
        for (int i = 0; i < 2; i++) { // the codec's reused parser, then again
            Envelope array = JsonCodec.decode(bytes("{\"payload\":[\"" + tripwire + "\",{}]}"), Envelope.class);
            assertThat(array.payload()).isEqualTo(List.of(tripwire, Map.of()));
            Envelope url = JsonCodec.decode(bytes("{\"payload\":[\"java.net.URL\",\"http://example.com\"]}"),
                    Envelope.class);
            assertThat(url.payload()).isEqualTo(List.of("java.net.URL", "http://example.com"));
            Envelope property = JsonCodec.decode(bytes("{\"payload\":{\"@class\":\"" + tripwire + "\"}}"),
                    Envelope.class);
            assertThat(property.payload()).isEqualTo(Map.of("@class", tripwire));
        }
        assertThat(Json.mapper().readValue("{\"@class\":\"" + tripwire + "\"}", Object.class))
                .isEqualTo(Map.of("@class", tripwire));
        assertThat(Tripwire.made.get()).as("instances made").isEqualTo(before);
    }

    @Test
    void aClassNameTypeIdIsRefusedAndItsClassNeverInitialized() {
        int made = Tripwire.made.get();
        String tripwire = "{\"payload\":{\"@class\":\"" + Tripwire.class.getName() + "\"}}";
        assertThatThrownBy(() -> JsonCodec.decode(bytes(tripwire), ClassTyped.class))
                .isInstanceOf(DatabindException.class).hasMessageContaining("PolymorphicTypeValidator");
        assertThatThrownBy(() -> Json.mapper().readValue(tripwire, ClassTyped.class))
                .isInstanceOf(DatabindException.class).hasMessageContaining("PolymorphicTypeValidator");
        assertThat(Tripwire.made.get()).as("instances made").isEqualTo(made);

        String loaded = "{\"payload\":{\"@c\":\"" + LoadTripwire.class.getName() + "\"}}";
        assertThatThrownBy(() -> JsonCodec.decode(bytes(loaded), MinimalClassTyped.class))
                .isInstanceOf(DatabindException.class).hasMessageContaining("PolymorphicTypeValidator");
        assertThatThrownBy(() -> Json.mapper().readValue(
                "{\"payload\":{\"@class\":\"" + LoadTripwire.class.getName() + "\"}}", ClassTyped.class))
                .isInstanceOf(DatabindException.class);
        assertThat(LOADS.get()).as("initializations").isZero();
    }

    @Test
    void namedSubtypesGoThroughTheCodecBothWays() throws Exception {
        Drawing drawing = new Drawing("d", new Circle(1.5), List.of(new Square(2), new Circle(0.5)));
        byte[] encoded = JsonCodec.encode(drawing);
        assertThat(new String(encoded, StandardCharsets.UTF_8)).contains("\"kind\":\"circle\"", "\"kind\":\"square\"");
        for (int i = 0; i < 2; i++) { // the codec's reused parser, then again
            assertThat(JsonCodec.decode(encoded, Drawing.class)).isEqualTo(drawing);
            assertThat(JsonCodec.<Drawing>decodeReply(encoded, Json.mapper().constructType(Drawing.class)))
                    .isEqualTo(drawing);
        }
        assertThat(Json.mapper().readValue(encoded, Drawing.class)).isEqualTo(drawing);
        assertThatThrownBy(() -> JsonCodec.decode(bytes("{\"kind\":\"" + Tripwire.class.getName() + "\"}"),
                Shape.class)).as("a name outside the set").isInstanceOf(DatabindException.class);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
