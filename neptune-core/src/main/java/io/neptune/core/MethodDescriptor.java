package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * One callable method of a service: its name, access mode, request and response types, and for a
 * stream method the types of the items it streams out and (bidirectional) in.
 *
 * @param name the name clients call it by
 * @param mode whether it reads or writes
 * @param requestType the Java type of its request object ({@code Flow.Publisher} for a method that
 *     takes the client's stream)
 * @param responseType the generic Java type of its response object ({@code Flow.Publisher<T>} for a
 *     stream method)
 * @param javaMethod the annotated method
 * @param outputItemType the generic type of the items a stream method publishes, or null
 * @param inputItemType the generic type of the items a bidirectional stream method takes, or null
 * @param roles the roles of the callers that may call it ({@link Read#roles()}, {@link Write#roles()});
 *     empty: any caller
 */
public record MethodDescriptor(String name, AccessMode mode, Class<?> requestType, Type responseType,
        Method javaMethod, @Nullable Type outputItemType, @Nullable Type inputItemType, Set<Principal.Role> roles) {
    /** Validates the fields. */
    public MethodDescriptor {
        roles = roles.isEmpty() ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(roles));
        requireNonNull(name, "name");
        requireNonNull(mode, "mode");
        requireNonNull(requestType, "requestType");
        requireNonNull(responseType, "responseType");
        requireNonNull(javaMethod, "javaMethod");
        if (inputItemType != null && outputItemType == null) {
            throw new IllegalArgumentException("inputItemType: " + inputItemType
                    + " (expected: only for a method that also streams out)");
        }
    }

    /** A method that any caller may call. */
    public MethodDescriptor(String name, AccessMode mode, Class<?> requestType, Type responseType, Method javaMethod,
            @Nullable Type outputItemType, @Nullable Type inputItemType) {
        this(name, mode, requestType, responseType, javaMethod, outputItemType, inputItemType, Set.of());
    }

    /** A method that is not a stream: one request, one response. */
    public MethodDescriptor(String name, AccessMode mode, Class<?> requestType, Type responseType, Method javaMethod) {
        this(name, mode, requestType, responseType, javaMethod, null, null);
    }

    /** Whether the method returns a stream ({@code Flow.Publisher}) instead of one response. */
    public boolean streamsOut() {
        return outputItemType != null;
    }

    /** Whether the method takes the client's stream ({@code Flow.Publisher}) instead of one request. */
    public boolean streamsIn() {
        return inputItemType != null;
    }

    /**
     * Whether the method's output stream may be continued on another replica ({@link Read#resumable()}):
     * the same request yields the same items in the same order on every replica.
     */
    public boolean resumable() {
        Read read = javaMethod.getAnnotation(Read.class);
        return read != null && read.resumable() && streamsOut() && !streamsIn();
    }

    /**
     * Whether the method may block ({@link Read#blocking()}); writes always may. A method that may not
     * runs on the I/O thread that read its request.
     */
    public boolean blocking() {
        Read read = javaMethod.getAnnotation(Read.class);
        return read == null || read.blocking();
    }

    /**
     * Whether the method may make blocking inner calls to its own service ({@link Read#reentrant()},
     * {@link Write#reentrant()}).
     */
    public boolean reentrant() {
        Read read = javaMethod.getAnnotation(Read.class);
        Write write = javaMethod.getAnnotation(Write.class);
        return read != null ? read.reentrant() : write != null && write.reentrant();
    }

    /** The type of the items the method streams out, if it is a stream method. */
    public Optional<Type> outputItem() {
        return Optional.ofNullable(outputItemType);
    }

    /** The type of the items the method takes from the client's stream, if it takes one. */
    public Optional<Type> inputItem() {
        return Optional.ofNullable(inputItemType);
    }

    @Override
    public String toString() {
        String in = inputItemType != null ? "stream of " + inputItemType.getTypeName() : requestType.getSimpleName();
        return mode + " " + name + "(" + in + ")" + (outputItemType != null
                ? " -> stream of " + outputItemType.getTypeName() : "");
    }
}
