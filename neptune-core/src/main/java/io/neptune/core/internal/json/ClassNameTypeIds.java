package io.neptune.core.internal.json;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.introspect.AnnotatedClass;
import com.fasterxml.jackson.databind.introspect.AnnotatedMember;
import com.fasterxml.jackson.databind.introspect.AnnotatedParameter;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.jsontype.NamedType;
import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Finds where a type, read by {@link Json#mapper()}, would take a class name from the payload:
 * {@code @JsonTypeInfo(use = CLASS)} or {@code MINIMAL_CLASS} on the type or a supertype, on a
 * field, getter, setter or creator parameter (a record component is all of these), in the element
 * and type arguments of those types, and in the subtypes a named set lists. The search follows what
 * Jackson introspects for reading, with the mapper's own configuration (mix-ins included); JDK and
 * Jackson classes are not looked into, only their type arguments.
 *
 * <p>The mapper refuses every class-name id (its polymorphic type validator allows none), so such a
 * type could never be read; service registration uses this to say so up front, naming the place.
 * Named subtypes ({@code use = NAME} with {@code @JsonSubTypes}) are a closed set and are allowed.
 *
 * <p>Thread-safety: stateless; thread-safe.
 */
public final class ClassNameTypeIds {
    private ClassNameTypeIds() {}

    /**
     * The first class-name type id in {@code type} as declared by {@code declaration} (a method
     * parameter or a method, whose own {@code @JsonTypeInfo} counts too), described as
     * {@code "@JsonTypeInfo(use = CLASS) on Order.payload"}; empty if there is none.
     */
    public static Optional<String> find(Type type, AnnotatedElement declaration) {
        requireNonNull(type, "type");
        requireNonNull(declaration, "declaration");
        JsonTypeInfo declared = declaration.getAnnotation(JsonTypeInfo.class);
        if (declared != null && takesClassName(declared)) {
            return Optional.of(describe(declared) + " on " + name(declaration));
        }
        DeserializationConfig config = Json.mapper().getDeserializationConfig();
        return Optional.ofNullable(new Search(config).type(config.getTypeFactory().constructType(type)));
    }

    private static boolean takesClassName(JsonTypeInfo info) {
        return info.use() == JsonTypeInfo.Id.CLASS || info.use() == JsonTypeInfo.Id.MINIMAL_CLASS;
    }

    private static String describe(JsonTypeInfo info) {
        return "@JsonTypeInfo(use = " + info.use() + ")";
    }

    private static String name(AnnotatedElement declaration) {
        if (declaration instanceof Parameter parameter) {
            return "parameter " + parameter.getName() + " of " + parameter.getDeclaringExecutable().getName() + "()";
        }
        if (declaration instanceof Method method) {
            return "method " + method.getName() + "()";
        }
        return declaration.toString();
    }

    /** One depth-first walk; each type is looked into once, so recursive types end. */
    private static final class Search {
        private final DeserializationConfig config;
        private final Set<JavaType> seen = new HashSet<>();

        Search(DeserializationConfig config) {
            this.config = config;
        }

        @Nullable String type(JavaType type) {
            if (!seen.add(type) || type.isPrimitive() || type.isEnumType()) {
                return null;
            }
            List<JavaType> inner = new ArrayList<>();
            if (type.getContentType() != null) {
                inner.add(type.getContentType()); // arrays, collections, map values, Optional and other references
            }
            for (int i = 0; i < type.containedTypeCount(); i++) {
                inner.add(type.containedTypeOrUnknown(i)); // type arguments
            }
            for (JavaType t : inner) {
                String found = type(t);
                if (found != null) {
                    return found;
                }
            }
            return lookedInto(type.getRawClass()) ? declared(type) : null;
        }

        /** The class's own annotation, its named subtypes and its properties. */
        private @Nullable String declared(JavaType type) {
            AnnotatedClass annotated = config.introspectClassAnnotations(type).getClassInfo();
            JsonTypeInfo info = annotated.getAnnotation(JsonTypeInfo.class);
            if (info != null && takesClassName(info)) {
                return describe(info) + " on type " + type.getRawClass().getSimpleName();
            }
            for (NamedType subtype : config.getSubtypeResolver().collectAndResolveSubtypesByClass(config, annotated)) {
                String found = type(config.constructType(subtype.getType()));
                if (found != null) {
                    return found;
                }
            }
            BeanDescription bean = config.introspect(type);
            for (BeanPropertyDefinition property : bean.findProperties()) {
                String found = property(property);
                if (found != null) {
                    return found;
                }
            }
            return null;
        }

        private @Nullable String property(BeanPropertyDefinition property) {
            List<@Nullable AnnotatedMember> members = new ArrayList<>();
            members.add(property.getField());
            members.add(property.getGetter());
            members.add(property.getSetter());
            for (Iterator<AnnotatedParameter> it = property.getConstructorParameters(); it.hasNext(); ) {
                members.add(it.next());
            }
            for (@Nullable AnnotatedMember member : members) {
                JsonTypeInfo info = member == null ? null : member.getAnnotation(JsonTypeInfo.class);
                if (member != null && info != null && takesClassName(info)) {
                    String name = member instanceof AnnotatedParameter ? property.getName() : member.getName();
                    return describe(info) + " on " + member.getDeclaringClass().getSimpleName() + "." + name;
                }
            }
            return type(property.getPrimaryType());
        }

        /** Whether the class may carry Jackson annotations of the application's: not the JDK's or Jackson's. */
        private static boolean lookedInto(Class<?> raw) {
            String name = raw.getName();
            return !raw.isArray() && raw != Object.class && !name.startsWith("java.") && !name.startsWith("javax.")
                    && !name.startsWith("jdk.") && !name.startsWith("sun.")
                    && !name.startsWith("com.fasterxml.jackson.");
        }
    }
}
