package io.neptune.core;

import static java.util.Objects.requireNonNull;

import io.neptune.core.internal.json.ClassNameTypeIds;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.Arrays;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Flow;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The validated description of an annotated service class: name, partition count, consistency
 * level, callable methods, and the replication callbacks ({@link Check}, {@link Digest},
 * {@link ServiceLifecycle}). Immutable.
 *
 * <p>{@link #of(Class)} is where registration errors are found; each names the class and method.
 */
public final class ServiceDescriptor {
    /** The most partitions a service may have; every node keeps a replica list per partition. */
    public static final int MAX_PARTITIONS = 65_536;

    private static final Pattern VALID_NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final List<Class<? extends Annotation>> METHOD_ANNOTATIONS =
            List.of(Read.class, Write.class, Check.class, Digest.class);
    private static final String CHECK_SHAPE = "public boolean check(int partition, long lsn)";
    private static final String DIGEST_SHAPE = "public String digest(int partition)";

    private final Class<?> serviceClass;
    private final String name;
    private final int partitions;
    private final ConsistencyLevel consistency;
    private final Map<String, MethodDescriptor> methods;
    private final @Nullable Method checkMethod;
    private final @Nullable Method digestMethod;

    private ServiceDescriptor(Class<?> serviceClass, String name, int partitions, ConsistencyLevel consistency,
            Map<String, MethodDescriptor> methods, @Nullable Method checkMethod, @Nullable Method digestMethod) {
        this.serviceClass = serviceClass;
        this.name = name;
        this.partitions = partitions;
        this.consistency = consistency;
        this.methods = Map.copyOf(methods);
        this.checkMethod = checkMethod;
        this.digestMethod = digestMethod;
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
        if (annotation.partitions() < 1 || annotation.partitions() > MAX_PARTITIONS) {
            throw new ServiceDefinitionException(serviceClass,
                    "partitions: " + annotation.partitions() + " (expected: 1.." + MAX_PARTITIONS + ")");
        }
        rejectNonPublicAnnotated(serviceClass);
        Method[] declared = serviceClass.getMethods();
        Arrays.sort(declared, Comparator.comparing(Method::getName));
        Method check = callback(serviceClass, declared, Check.class, CHECK_SHAPE, boolean.class, int.class, long.class);
        Method digest = callback(serviceClass, declared, Digest.class, DIGEST_SHAPE, String.class, int.class);
        Map<String, MethodDescriptor> methods = new LinkedHashMap<>();
        for (Method method : declared) {
            MethodDescriptor descriptor = describe(serviceClass, method);
            if (descriptor == null) {
                continue;
            }
            rejectClassNameTypeIds(serviceClass, annotation.name(), method);
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
        if (annotation.consistency() != ConsistencyLevel.LEVEL_1 && check == null) {
            throw new ServiceDefinitionException(serviceClass, "consistency " + annotation.consistency()
                    + " requires a @Check method (expected: " + CHECK_SHAPE + ")");
        }
        return new ServiceDescriptor(serviceClass, annotation.name(), annotation.partitions(), annotation.consistency(),
                methods, check, digest);
    }

    /**
     * This descriptor under another name and partition count, for a class whose instances are
     * configured as different services (a process-backed service is one class, hosted once per
     * program); the methods and callbacks stay those of the class.
     *
     * @throws ServiceDefinitionException if the name or the partition count is not valid
     */
    public ServiceDescriptor named(String name, int partitions) {
        requireNonNull(name, "name");
        if (!VALID_NAME.matcher(name).matches()) {
            throw new ServiceDefinitionException(serviceClass,
                    "name: '" + name + "' (expected: 1-64 of letters, digits, '.', '_', '-')");
        }
        if (partitions < 1 || partitions > MAX_PARTITIONS) {
            throw new ServiceDefinitionException(serviceClass,
                    "partitions: " + partitions + " (expected: 1.." + MAX_PARTITIONS + ")");
        }
        return new ServiceDescriptor(serviceClass, name, partitions, consistency, methods, checkMethod, digestMethod);
    }

    /** {@link Class#getMethods()} sees only public methods; an annotated non-public one must not vanish silently. */
    private static void rejectNonPublicAnnotated(Class<?> serviceClass) {
        for (Class<?> c = serviceClass; c != null && c != Object.class; c = c.getSuperclass()) {
            Method[] declared = c.getDeclaredMethods();
            Arrays.sort(declared, Comparator.comparing(Method::getName));
            for (Method method : declared) {
                boolean annotated = METHOD_ANNOTATIONS.stream().anyMatch(method::isAnnotationPresent);
                if (annotated && !Modifier.isPublic(method.getModifiers())) {
                    throw new ServiceDefinitionException(serviceClass, "method " + method.getName()
                            + "() is not public (expected: public)");
                }
            }
        }
    }

    /**
     * Refuses a method whose request, response or stream item types let a payload name the class
     * Jackson makes ({@code @JsonTypeInfo(use = CLASS | MINIMAL_CLASS)} anywhere in them): the shared
     * mapper refuses such ids on every call (DESIGN §8), so the method could never be called.
     */
    private static void rejectClassNameTypeIds(Class<?> serviceClass, String service, Method method) {
        Parameter request = method.getParameters()[1];
        Map<String, Optional<String>> uses = new LinkedHashMap<>();
        uses.put("request type " + request.getParameterizedType().getTypeName(),
                ClassNameTypeIds.find(request.getParameterizedType(), request));
        uses.put("response type " + method.getGenericReturnType().getTypeName(),
                ClassNameTypeIds.find(method.getGenericReturnType(), method));
        for (Map.Entry<String, Optional<String>> use : uses.entrySet()) {
            if (use.getValue().isPresent()) {
                throw new ServiceDefinitionException(serviceClass, "service '" + service + "' method "
                        + method.getName() + "() " + use.getKey() + ": " + use.getValue().get() + " (expected: no type"
                        + " id that names a class, which a caller could set to any class on the classpath; use = NAME"
                        + " with @JsonSubTypes)");
            }
        }
    }

    /**
     * Finds and validates the only method annotated {@code type}, whose signature must be exactly
     * {@code returnType(parameterTypes)}; {@code shape} is the expected signature for messages.
     */
    private static @Nullable Method callback(Class<?> serviceClass, Method[] methods, Class<? extends Annotation> type,
            String shape, Class<?> returnType, Class<?>... parameterTypes) {
        Method found = null;
        for (Method method : methods) {
            if (!method.isAnnotationPresent(type)) {
                continue;
            }
            String where = "@" + type.getSimpleName() + " method " + method.getName() + "()";
            if (method.isAnnotationPresent(Read.class) || method.isAnnotationPresent(Write.class)) {
                throw new ServiceDefinitionException(serviceClass, where
                        + " is also @Read or @Write (expected: a separate method)");
            }
            if (Modifier.isStatic(method.getModifiers())) {
                throw new ServiceDefinitionException(serviceClass, where + " is static (expected: " + shape + ")");
            }
            if (!Arrays.equals(method.getParameterTypes(), parameterTypes)) {
                throw new ServiceDefinitionException(serviceClass, where + " parameters: ("
                        + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName)
                                .collect(Collectors.joining(", "))
                        + ") (expected: " + shape + ")");
            }
            if (method.getReturnType() != returnType) {
                throw new ServiceDefinitionException(serviceClass, where + " return type: "
                        + method.getReturnType().getSimpleName() + " (expected: " + shape + ")");
            }
            if (found != null) {
                throw new ServiceDefinitionException(serviceClass, "@" + type.getSimpleName() + " methods: "
                        + found.getName() + "() and " + method.getName() + "() (expected: at most one)");
            }
            found = method;
        }
        return found;
    }

    private static @Nullable MethodDescriptor describe(Class<?> serviceClass, Method method) {
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
        boolean stream = method.getReturnType() == Flow.Publisher.class || parameters[1] == Flow.Publisher.class;
        if (read != null && read.resumable() && (!stream || parameters[1] == Flow.Publisher.class)) {
            throw new ServiceDefinitionException(serviceClass, where + " is @Read(resumable = true) but "
                    + (stream ? "takes the client's stream, which cannot be sent to another replica again"
                    : "does not stream") + " (expected: resumable only on a method returning Flow.Publisher of a"
                    + " request object)");
        }
        if (stream && read != null && !read.blocking()) {
            throw new ServiceDefinitionException(serviceClass, where + " is @Read(blocking = false) but streams"
                    + " (expected: blocking = false only on a method answering one response; a stream's publisher"
                    + " produces on its own threads anyway)");
        }
        if (stream) {
            return describeStream(serviceClass, method, read != null ? read.name() : write.name(), write != null,
                    roles(read != null ? read.roles() : write.roles()));
        }
        if (parameters[1].isPrimitive()) {
            throw new ServiceDefinitionException(serviceClass, where + " takes primitive "
                    + parameters[1] + " (expected: an object type mapped by Jackson)");
        }
        if (method.getReturnType() == void.class) {
            throw new ServiceDefinitionException(serviceClass, where + " returns void (expected: a response object)");
        }
        String name = methodName(serviceClass, method, read != null ? read.name() : write.name());
        AccessMode mode = read != null ? AccessMode.READ : AccessMode.WRITE;
        return new MethodDescriptor(name, mode, parameters[1], method.getGenericReturnType(), method, null, null,
                roles(read != null ? read.roles() : write.roles()));
    }

    private static Set<Principal.Role> roles(Principal.Role[] roles) {
        return roles.length == 0 ? Set.of() : EnumSet.copyOf(List.of(roles));
    }

    private static String methodName(Class<?> serviceClass, Method method, String explicit) {
        String name = explicit.isEmpty() ? method.getName() : explicit;
        if (!VALID_NAME.matcher(name).matches()) {
            throw new ServiceDefinitionException(serviceClass, "method " + method.getName() + "() name: '" + name
                    + "' (expected: 1-64 of letters, digits, '.', '_', '-')");
        }
        return name;
    }

    /**
     * A stream method: returns {@code Flow.Publisher<Out>} and takes a request object, or the client's
     * stream as {@code Flow.Publisher<In>} (bidirectional). Only reads may stream (the dissertation's
     * rule): a write is replicated by re-running it on every replica from the log, and a stream's
     * rounds of interaction with one client can be neither logged nor re-run.
     */
    private static MethodDescriptor describeStream(Class<?> serviceClass, Method method, String explicit,
            boolean isWrite, Set<Principal.Role> roles) {
        String where = "method " + method.getName() + "()";
        if (isWrite) {
            throw new ServiceDefinitionException(serviceClass, where + " is a @Write stream method (expected: @Read;"
                    + " streams are read-only: they are neither replicated nor logged, so a replica could not replay"
                    + " them)");
        }
        if (method.getReturnType() != Flow.Publisher.class) {
            throw new ServiceDefinitionException(serviceClass, where + " takes a Flow.Publisher but returns "
                    + method.getReturnType().getSimpleName() + " (expected: Flow.Publisher<T>: a method that takes"
                    + " the client's stream answers with a stream)");
        }
        Type output = itemType(serviceClass, where + " return type", method.getGenericReturnType());
        Class<?> requestType = method.getParameterTypes()[1];
        Type input = requestType == Flow.Publisher.class
                ? itemType(serviceClass, where + " stream parameter", method.getGenericParameterTypes()[1]) : null;
        if (requestType.isPrimitive()) {
            throw new ServiceDefinitionException(serviceClass, where + " takes primitive " + requestType
                    + " (expected: an object type mapped by Jackson)");
        }
        String name = methodName(serviceClass, method, explicit);
        return new MethodDescriptor(name, AccessMode.READ, requestType, method.getGenericReturnType(), method, output,
                input, roles);
    }

    /** The {@code T} of {@code Flow.Publisher<T>}: a concrete type Jackson can map. */
    private static Type itemType(Class<?> serviceClass, String where, Type publisher) {
        if (publisher instanceof ParameterizedType parameterized) {
            Type item = parameterized.getActualTypeArguments()[0];
            if (item instanceof Class<?> || item instanceof ParameterizedType) {
                return item;
            }
        }
        throw new ServiceDefinitionException(serviceClass, where + ": " + publisher.getTypeName()
                + " (expected: Flow.Publisher<T> with a concrete item type T mapped by Jackson)");
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

    /** What fail-over may assume (see {@link NeptuneService#failover()}); level 1 ignores it. */
    public FailoverMode failover() {
        return serviceClass.getAnnotation(NeptuneService.class).failover();
    }

    /** The level-3 staleness bound in milliseconds (see {@link NeptuneService#stalenessMillis()}). */
    public long stalenessMillis() {
        return serviceClass.getAnnotation(NeptuneService.class).stalenessMillis();
    }

    /** The callable methods by name. */
    public Map<String, MethodDescriptor> methods() {
        return methods;
    }

    /** Looks up a method by the name clients call it by. */
    public Optional<MethodDescriptor> method(String methodName) {
        return Optional.ofNullable(methods.get(methodName));
    }

    /**
     * The {@link Check} callback, {@code boolean (int partition, long lsn)}; always present for
     * {@link ConsistencyLevel#LEVEL_2} and {@link ConsistencyLevel#LEVEL_3}.
     */
    public Optional<Method> checkMethod() {
        return Optional.ofNullable(checkMethod);
    }

    /** The {@link Digest} callback, {@code String (int partition)}, if the service has one. */
    public Optional<Method> digestMethod() {
        return Optional.ofNullable(digestMethod);
    }

    /** Whether the service class implements {@link ServiceLifecycle}, so the node must start and stop it. */
    public boolean hasLifecycle() {
        return ServiceLifecycle.class.isAssignableFrom(serviceClass);
    }

    @Override
    public String toString() {
        return name + "[partitions=" + partitions + ", " + consistency + ", methods=" + methods.keySet() + "]";
    }
}
