package io.neptune.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Flow;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;

/**
 * Registration refuses a service whose request, response or stream item types let a payload name
 * a Java class ({@code @JsonTypeInfo(use = CLASS | MINIMAL_CLASS)}), wherever Jackson would meet
 * the annotation while reading them; named subtypes ({@code use = NAME}, a closed set) stay allowed.
 */
class ServiceTypeIdsTest {
    public record Req(String text) {}

    public record Res(String text) {}

    /** A record component that takes its class from the payload. */
    public record ClassComponent(String id, @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS) Object payload) {}

    /** A type that takes its subclass from the payload. */
    @JsonTypeInfo(use = JsonTypeInfo.Id.MINIMAL_CLASS)
    public abstract static class MinimalClassBase {}

    /** A bean whose setter takes its class from the payload. */
    public static final class ClassSetter {
        private Object value = "";

        /** The value. */
        public Object value() {
            return value;
        }

        @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS)
        public void setValue(Object value) {
            this.value = value;
        }
    }

    /** A bean whose getter carries the annotation: Jackson applies it when reading the property too. */
    public static final class ClassGetter {
        public Object value = "";

        @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS)
        public Object getValue() {
            return value;
        }
    }

    /** Deep inside: a list of maps of optional records. */
    public record Deep(List<Map<String, Optional<ClassComponent>>> items) {}

    /** Through a type argument. */
    public record Page<T>(List<T> items, String next) {}

    /** A closed set chosen by name: allowed. */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
    @JsonSubTypes({@JsonSubTypes.Type(value = Circle.class, name = "circle"),
            @JsonSubTypes.Type(value = Labelled.class, name = "labelled")})
    public interface Shape {}

    /** A named subtype. */
    public record Circle(double radius) implements Shape {}

    /** A named subtype that itself lets the payload name a class: found through the set. */
    public record Labelled(@JsonTypeInfo(use = JsonTypeInfo.Id.CLASS) Object label) implements Shape {}

    /** Named subtypes only, and a cycle. */
    @JsonTypeInfo(use = JsonTypeInfo.Id.NAME)
    @JsonSubTypes({@JsonSubTypes.Type(value = Leaf.class, name = "leaf"),
            @JsonSubTypes.Type(value = Branch.class, name = "branch")})
    public interface Tree {}

    /** A leaf. */
    public record Leaf(String value) implements Tree {}

    /** A branch, recursive. */
    public record Branch(List<Tree> children, Map<String, Tree> named) implements Tree {}

    @NeptuneService(name = "named-subtypes", partitions = 1)
    public static final class NamedSubtypes {
        @Write
        public Tree put(RequestContext context, Tree request) {
            return request;
        }

        @Read
        public Flow.Publisher<Tree> walk(RequestContext context, Flow.Publisher<Branch> request) {
            return subscriber -> {};
        }

        @Read
        public Page<Map<String, List<Object>>> list(RequestContext context, Req request) {
            return new Page<>(List.of(), "");
        }
    }

    @Test
    void namedSubtypesRecursionAndPlainObjectsAreAllowed() {
        assertThat(ServiceDescriptor.of(NamedSubtypes.class).methods()).containsOnlyKeys("put", "walk", "list");
    }

    @NeptuneService(name = "component", partitions = 1)
    public static final class OnARecordComponent {
        @Write
        public Res put(RequestContext context, ClassComponent request) {
            return new Res("");
        }
    }

    @Test
    void onARecordComponentOfTheRequest() {
        assertRejected(OnARecordComponent.class).hasMessage(OnARecordComponent.class.getName()
                + ": service 'component' method put() request type " + ClassComponent.class.getTypeName()
                + ": @JsonTypeInfo(use = CLASS) on ClassComponent.payload (expected: no type id that names a class,"
                + " which a caller could set to any class on the classpath; use = NAME with @JsonSubTypes)");
    }

    @NeptuneService(name = "type", partitions = 1)
    public static final class OnTheResponseType {
        @Read
        public MinimalClassBase get(RequestContext context, Req request) {
            return new MinimalClassBase() {};
        }
    }

    @Test
    void onTheResponseTypeItself() {
        assertRejected(OnTheResponseType.class).hasMessageContaining("service 'type' method get() response type "
                + MinimalClassBase.class.getTypeName()
                + ": @JsonTypeInfo(use = MINIMAL_CLASS) on type MinimalClassBase");
    }

    @NeptuneService(name = "setter", partitions = 1)
    public static final class OnASetter {
        @Write
        public Res put(RequestContext context, ClassSetter request) {
            return new Res("");
        }
    }

    @NeptuneService(name = "getter", partitions = 1)
    public static final class OnAGetter {
        @Write
        public Res put(RequestContext context, ClassGetter request) {
            return new Res("");
        }
    }

    @Test
    void onASetterOrAGetter() {
        assertRejected(OnASetter.class).hasMessageContaining("@JsonTypeInfo(use = CLASS) on ClassSetter.setValue");
        assertRejected(OnAGetter.class).hasMessageContaining("@JsonTypeInfo(use = CLASS) on ClassGetter.");
    }

    @NeptuneService(name = "parameter", partitions = 1)
    public static final class OnTheMethodParameter {
        @Write
        public Res put(RequestContext context, @JsonTypeInfo(use = JsonTypeInfo.Id.CLASS) Object request) {
            return new Res("");
        }
    }

    @Test
    void onTheServiceMethodsParameter() {
        assertRejected(OnTheMethodParameter.class).hasMessageContaining(
                "method put() request type java.lang.Object: @JsonTypeInfo(use = CLASS) on parameter");
    }

    @NeptuneService(name = "deep", partitions = 1)
    public static final class DeepInside {
        @Read
        public Res get(RequestContext context, Deep request) {
            return new Res("");
        }
    }

    @NeptuneService(name = "generic", partitions = 1)
    public static final class InATypeArgument {
        @Read
        public Page<ClassComponent> get(RequestContext context, Req request) {
            return new Page<>(List.of(), "");
        }
    }

    @Test
    void throughCollectionsOptionalsAndTypeArguments() {
        assertRejected(DeepInside.class).hasMessageContaining("method get() request type " + Deep.class.getTypeName()
                + ": @JsonTypeInfo(use = CLASS) on ClassComponent.payload");
        assertRejected(InATypeArgument.class).hasMessageContaining("method get() response type "
                + Page.class.getTypeName() + "<" + ClassComponent.class.getTypeName()
                + ">: @JsonTypeInfo(use = CLASS) on ClassComponent.payload");
    }

    @NeptuneService(name = "subtype", partitions = 1)
    public static final class InANamedSubtype {
        @Write
        public Res put(RequestContext context, Shape request) {
            return new Res("");
        }
    }

    @Test
    void insideANamedSubtype() {
        assertRejected(InANamedSubtype.class).hasMessageContaining("@JsonTypeInfo(use = CLASS) on Labelled.label");
    }

    @NeptuneService(name = "stream-out", partitions = 1)
    public static final class InAnOutputStreamItem {
        @Read
        public Flow.Publisher<ClassComponent> watch(RequestContext context, Req request) {
            return subscriber -> {};
        }
    }

    @NeptuneService(name = "stream-in", partitions = 1)
    public static final class InAnInputStreamItem {
        @Read
        public Flow.Publisher<Res> chat(RequestContext context, Flow.Publisher<ClassComponent> request) {
            return subscriber -> {};
        }
    }

    @Test
    void inStreamItems() {
        String publisher = "java.util.concurrent.Flow$Publisher<" + ClassComponent.class.getTypeName() + ">";
        assertRejected(InAnOutputStreamItem.class).hasMessageContaining("service 'stream-out' method watch() response"
                + " type " + publisher + ": @JsonTypeInfo");
        assertRejected(InAnInputStreamItem.class).hasMessageContaining("service 'stream-in' method chat() request"
                + " type " + publisher + ": @JsonTypeInfo");
    }

    private static AbstractThrowableAssert<?, ? extends Throwable> assertRejected(Class<?> serviceClass) {
        return assertThatThrownBy(() -> ServiceDescriptor.of(serviceClass))
                .isInstanceOf(ServiceDefinitionException.class)
                .hasMessageStartingWith(serviceClass.getName() + ": ");
    }
}
