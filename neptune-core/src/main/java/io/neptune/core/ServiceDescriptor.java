package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The validated description of an annotated service class: name, partition count, consistency
 * level and callable methods. Immutable.
 *
 * <p>{@link #of(Class)} is where registration errors are found; each names the class and method.
 */
public final class ServiceDescriptor {
    private static final Pattern VALID_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");

    private final Class<?> serviceClass;
    private final String name;
    private final int partitions;
    private final ConsistencyLevel consistency;
    private final Map<String, MethodDescriptor> methods;

    private ServiceDescriptor(Class<?> serviceClass, String name, int partitions, ConsistencyLevel consistency,
            Map<String, MethodDescriptor> methods) {
        this.serviceClass = serviceClass;
        this.name = name;
        this.partitions = partitions;
        this.consistency = consistency;
        this.methods = Map.copyOf(methods);
    }

    /**
     * Builds and validates the descriptor of {@code serviceClass}.
     *
     * @throws ServiceDefinitionException if the class is not a valid service; the message names
     *     the class, the method and what was expected
     */
    public static ServiceDescriptor of(Class<?> serviceClass) {
        requireNonNull(serviceClass, "serviceClass");
        NeptuneService annotation = serviceClass.getAnnotation(NeptuneService.class);
        if (annotation == null) {
            throw new ServiceDefinitionException(serviceClass, "missing @NeptuneService annotation");
        }
        if (!Modifier.isPublic(serviceClass.getModifiers())) {
            throw new ServiceDefinitionException(serviceClass, "class is not public (expected: public)");
        }
        if (!VALID_NAME.matcher(annotation.name()).matches()) {
            throw new ServiceDefinitionException(serviceClass,
                    "name: '" + annotation.name() + "' (expected: 1-64 of letters, digits, '.', '_', '-')");
        }
        if (annotation.partitions() < 1) {
            throw new ServiceDefinitionException(serviceClass,
                    "partitions: " + annotation.partitions() + " (expected: >= 1)");
        }
        rejectNonPublicAnnotated(serviceClass);
        Map<String, MethodDescriptor> methods = new LinkedHashMap<>();
        Method[] declared = serviceClass.getMethods();
        Arrays.sort(declared, Comparator.comparing(Method::getName));
        for (Method method : declared) {
            MethodDescriptor descriptor = describe(serviceClass, method);
            if (descriptor == null) {
                continue;
            }
            MethodDescriptor previous = methods.putIfAbsent(descriptor.name(), descriptor);
            if (previous != null) {
                throw new ServiceDefinitionException(serviceClass, "duplicate method name '" + descriptor.name()
                        + "' on " + previous.javaMethod().getName() + "() and " + method.getName()
                        + "() (expected: unique names)");
            }
        }
        if (methods.isEmpty()) {
            throw new ServiceDefinitionException(serviceClass, "no @Read or @Write methods (expected: at least one)");
        }
        return new ServiceDescriptor(serviceClass, annotation.name(), annotation.partitions(),
                annotation.consistency(), methods);
    }

    /** {@link Class#getMethods()} sees only public methods; an annotated non-public one must not vanish silently. */
    private static void rejectNonPublicAnnotated(Class<?> serviceClass) {
        for (Class<?> c = serviceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            Method[] declared = c.getDeclaredMethods();
            Arrays.sort(declared, Comparator.comparing(Method::getName));
            for (Method method : declared) {
                boolean annotated = method.isAnnotationPresent(Read.class) || method.isAnnotationPresent(Write.class);
                if (annotated && !Modifier.isPublic(method.getModifiers())) {
                    throw new ServiceDefinitionException(serviceClass, "method " + method.getName()
                            + "() is not public (expected: public)");
                }
            }
        }
    }

    private static @org.jspecify.annotations.Nullable MethodDescriptor describe(Class<?> serviceClass, Method method) {
        Read read = method.getAnnotation(Read.class);
        Write write = method.getAnnotation(Write.class);
        if (read == null && write == null) {
            return null;
        }
        String where = "method " + method.getName() + "()";
        if (read != null && write != null) {
            throw new ServiceDefinitionException(serviceClass, where + " has both @Read and @Write (expected: one)");
        }
        if (Modifier.isStatic(method.getModifiers())) {
            throw new ServiceDefinitionException(serviceClass, where + " is static (expected: instance method)");
        }
        Class<?>[] parameters = method.getParameterTypes();
        if (parameters.length != 2 || parameters[0] != RequestContext.class) {
            throw new ServiceDefinitionException(serviceClass, where + " has parameters "
                    + Arrays.toString(parameters) + " (expected: (RequestContext, <request type>))");
        }
        if (parameters[1].isPrimitive()) {
            throw new ServiceDefinitionException(serviceClass, where + " takes primitive "
                    + parameters[1] + " (expected: an object type mapped by Jackson)");
        }
        if (method.getReturnType() == void.class) {
            throw new ServiceDefinitionException(serviceClass, where + " returns void (expected: a response object)");
        }
        String explicit = read != null ? read.name() : write.name();
        String name = explicit.isEmpty() ? method.getName() : explicit;
        if (!VALID_NAME.matcher(name).matches()) {
            throw new ServiceDefinitionException(serviceClass, where + " name: '" + name
                    + "' (expected: 1-64 of letters, digits, '.', '_', '-')");
        }
        AccessMode mode = read != null ? AccessMode.READ : AccessMode.WRITE;
        return new MethodDescriptor(name, mode, parameters[1], method.getGenericReturnType(), method);
    }

    /** The annotated class. */
    public Class<?> serviceClass() {
        return serviceClass;
    }

    /** The cluster-wide service name. */
    public String name() {
        return name;
    }

    /** The number of partitions, ids {@code 0..partitions-1}. */
    public int partitions() {
        return partitions;
    }

    /** The consistency level. */
    public ConsistencyLevel consistency() {
        return consistency;
    }

    /** The callable methods by name. */
    public Map<String, MethodDescriptor> methods() {
        return methods;
    }

    /** Looks up a method by the name clients call it by. */
    public Optional<MethodDescriptor> method(String methodName) {
        return Optional.ofNullable(methods.get(methodName));
    }

    @Override
    public String toString() {
        return name + "[partitions=" + partitions + ", " + consistency + ", methods=" + methods.keySet() + "]";
    }
}
