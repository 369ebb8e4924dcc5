package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.PartitionKey;
import io.neptune.core.Partitions;
import io.neptune.core.Read;
import io.neptune.core.UnknownServiceException;
import io.neptune.core.Write;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Proxy;
import java.lang.reflect.Type;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import org.jspecify.annotations.Nullable;

/**
 * Builds typed proxies whose methods are remote calls; validation errors name the method. A method
 * returning {@code Flow.Publisher<T>} opens a stream ({@code @Read} only): of its request's answer,
 * or bidirectional when its request parameter is a {@code Flow.Publisher} itself.
 */
final class Proxies {
    private Proxies() {}

    private enum Kind { CALL, ASYNC_CALL, STREAM, BIDIRECTIONAL_STREAM }

    private record Target(String method, AccessMode mode, int keyIndex, int requestIndex, Type responseType, Kind kind) {
        boolean async() {
            return kind == Kind.ASYNC_CALL;
        }

        boolean stream() {
            return kind == Kind.STREAM || kind == Kind.BIDIRECTIONAL_STREAM;
        }
    }

    /**
     * What a proxy's methods call through: a client with one session and fixed options, or the inner
     * calls of a call being served ({@link InnerCalls}).
     */
    interface Calls {
        /** The partition count of {@code service}; 0 if no node hosts it. */
        int partitions(String service);

        /** Starts a call; {@code responseType} may be generic. */
        <T> CompletableFuture<T> invoke(String service, int partition, String method, AccessMode mode, Object request,
                Type responseType);

        /** Opens a stream of {@code request}'s answer, or bidirectional on {@code input} (exactly one is null). */
        <T> Flow.Publisher<T> stream(String service, int partition, String method, @Nullable Object request,
                Flow.@Nullable Publisher<?> input, Type itemType);

        /** Throws if this thread may not wait for a call to {@code service}; called before the call starts. */
        void refuseBlocking(String service);

        /** Waits for a call started after {@link #refuseBlocking}, rethrowing its {@code NeptuneException} as is. */
        <T> T await(CompletableFuture<T> future);
    }

    /** A proxy whose calls go through {@code client}, all with {@code options} and one session. */
    static <I> I create(DefaultNeptuneClient client, Class<I> type, String service, CallOptions options) {
        if (options.requestId().isPresent()) {
            // the options apply to every call through the proxy: every write after the first would be a repeat of it
            throw new IllegalArgumentException("options: requestId " + options.requestId().get() + " (expected: none"
                    + " on a proxy, whose options apply to every call; retry one write with"
                    + " OutcomeUnknownException.retryAsync() or callAsync with that request id)");
        }
        return create(new SessionCalls(client, NeptuneHandle.create(), options), type, service);
    }

    /** A proxy whose calls go through {@code calls}. */
    static <I> I create(Calls calls, Class<I> type, String service) {
        if (!type.isInterface()) {
            throw new IllegalArgumentException("serviceInterface: " + type.getName() + " (expected: an interface)");
        }
        Map<Method, Target> targets = new HashMap<>();
        for (Method method : type.getMethods()) {
            targets.put(method, describe(type, method));
        }
        Object proxy = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (self, method, args) -> {
            if (method.getDeclaringClass() == Object.class) {
                return switch (method.getName()) {
                    case "toString" -> "NeptuneProxy[" + type.getSimpleName() + " -> " + service + "]";
                    case "hashCode" -> System.identityHashCode(self);
                    case "equals" -> self == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                };
            }
            Target target = requireNonNull(targets.get(method), "targets: every method of the interface");
            int partitions = calls.partitions(service);
            if (partitions == 0) {
                UnknownServiceException error = new UnknownServiceException(service, "no node in the yellow page hosts it");
                if (target.async()) {
                    return CompletableFuture.failedFuture(error);
                }
                if (target.stream()) {
                    return DefaultNeptuneClient.failed(error);
                }
                throw error;
            }
            int partition = Partitions.of(args[target.keyIndex()], partitions);
            Object request = args[target.requestIndex()];
            if (target.stream()) {
                boolean bidirectional = target.kind() == Kind.BIDIRECTIONAL_STREAM;
                return calls.stream(service, partition, target.method(), bidirectional ? null : request,
                        bidirectional ? (Flow.Publisher<?>) request : null, target.responseType());
            }
            if (!target.async()) {
                calls.refuseBlocking(service);   // before the call starts, which may send the write
            }
            CompletableFuture<Object> future = calls.invoke(service, partition, target.method(), target.mode(), request,
                    target.responseType());
            return target.async() ? future : calls.await(future);
        });
        return type.cast(proxy);
    }

    private static Target describe(Class<?> type, Method method) {
        String where = type.getName() + "." + method.getName() + "()";
        Read read = method.getAnnotation(Read.class);
        Write write = method.getAnnotation(Write.class);
        if ((read == null) == (write == null)) {
            throw new IllegalArgumentException(where + ": missing @Read or @Write (expected: exactly one)");
        }
        if (method.getParameterCount() != 2) {
            throw new IllegalArgumentException(where + ": " + method.getParameterCount()
                    + " parameters (expected: 2, a @PartitionKey and the request)");
        }
        Annotation[][] annotations = method.getParameterAnnotations();
        int keyIndex = -1;
        for (int i = 0; i < 2; i++) {
            for (Annotation a : annotations[i]) {
                if (a instanceof PartitionKey) {
                    keyIndex = i;
                }
            }
        }
        if (keyIndex < 0) {
            throw new IllegalArgumentException(where + ": no @PartitionKey parameter (expected: one)");
        }
        String explicit = read != null ? read.name() : write.name();
        String name = explicit.isEmpty() ? method.getName() : explicit;
        Type response = method.getGenericReturnType();
        int requestIndex = 1 - keyIndex;
        if (method.getReturnType() == Flow.Publisher.class) {
            if (write != null) {
                throw new IllegalArgumentException(where + ": @Write returning Flow.Publisher (expected: @Read; streams"
                        + " are read-only)");
            }
            boolean bidirectional = method.getParameterTypes()[requestIndex] == Flow.Publisher.class;
            return new Target(name, AccessMode.READ, keyIndex, requestIndex, itemType(where, response),
                    bidirectional ? Kind.BIDIRECTIONAL_STREAM : Kind.STREAM);
        }
        if (method.getParameterTypes()[requestIndex] == Flow.Publisher.class) {
            throw new IllegalArgumentException(where + ": takes a Flow.Publisher but returns "
                    + method.getReturnType().getSimpleName() + " (expected: Flow.Publisher<T>)");
        }
        boolean async = method.getReturnType() == CompletableFuture.class;
        if (async) {
            if (!(response instanceof ParameterizedType parameterized)) {
                throw new IllegalArgumentException(where + ": raw CompletableFuture (expected: CompletableFuture<R>)");
            }
            response = parameterized.getActualTypeArguments()[0];
        }
        if (response == void.class) {
            throw new IllegalArgumentException(where + ": returns void (expected: a response type)");
        }
        return new Target(name, read != null ? AccessMode.READ : AccessMode.WRITE, keyIndex, requestIndex, response,
                async ? Kind.ASYNC_CALL : Kind.CALL);
    }

    /** The {@code T} of a {@code Flow.Publisher<T>} return type: a type Jackson can decode items as. */
    private static Type itemType(String where, Type publisher) {
        if (!(publisher instanceof ParameterizedType parameterized)) {
            throw new IllegalArgumentException(where + ": raw Flow.Publisher (expected: Flow.Publisher<T>)");
        }
        Type item = parameterized.getActualTypeArguments()[0];
        if (!(item instanceof Class<?> || item instanceof ParameterizedType)) {
            throw new IllegalArgumentException(where + ": Flow.Publisher<" + item.getTypeName()
                    + "> (expected: a concrete item type)");
        }
        return item;
    }

    /** The calls of a client's proxy: one session, the proxy's options. */
    private record SessionCalls(DefaultNeptuneClient client, NeptuneHandle handle, CallOptions options) implements Calls {
        @Override
        public int partitions(String service) {
            return client.partitions(service);
        }

        @Override
        public <T> CompletableFuture<T> invoke(String service, int partition, String method, AccessMode mode,
                Object request, Type responseType) {
            return client.invoke(handle, service, partition, method, mode, request, responseType, options);
        }

        @Override
        public <T> Flow.Publisher<T> stream(String service, int partition, String method, @Nullable Object request,
                Flow.@Nullable Publisher<?> input, Type itemType) {
            return client.stream(handle, service, partition, method, request, input, itemType, options);
        }

        @Override
        public void refuseBlocking(String service) {
            client.refuseBlockingOnIoThread();
        }

        @Override
        public <T> T await(CompletableFuture<T> future) {
            return client.await(future);
        }
    }
}
