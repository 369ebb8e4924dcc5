package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.lang.reflect.Method;
import java.lang.reflect.Type;

/**
 * One callable method of a service: its name, access mode, request and response types.
 *
 * @param name the name clients call it by
 * @param mode whether it reads or writes
 * @param requestType the Java type of its request object
 * @param responseType the generic Java type of its response object
 * @param javaMethod the annotated method
 */
public record MethodDescriptor(String name, AccessMode mode, Class<?> requestType, Type responseType, Method javaMethod) {
    /** Validates the fields. */
    public MethodDescriptor {
        requireNonNull(name, "name");
        requireNonNull(mode, "mode");
        requireNonNull(requestType, "requestType");
        requireNonNull(responseType, "responseType");
        requireNonNull(javaMethod, "javaMethod");
    }

    @Override
    public String toString() {
        return mode + " " + name + "(" + requestType.getSimpleName() + ")";
    }
}
