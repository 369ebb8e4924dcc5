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

    static <I> I create(DefaultNeptuneClient client, Class<I> type, String service, CallOptions options) {
        if (!type.isInterface()) {
            throw new IllegalArgumentException("serviceInterface: " + type.getName() + " (expected: an interface)");
        }
        if (options.requestId().isPresent()) {
            // the options apply to every call through the proxy: every write after the first would be a repeat of it
            throw new IllegalArgumentException("options: requestId " + options.requestId().get() + " (expected: none"
                    + " on a proxy, whose options apply to every call; retry one write with"
                    + " OutcomeUnknownException.retryAsync() or callAsync with that request id)");
        }
        Map<Method, Target> targets = new HashMap<>();
        for (Method method : type.getMethods()) {
            targets.put(method, describe(type, method));
        }
        NeptuneHandle handle = NeptuneHandle.create();
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
            int partitions = client.partitions(service);
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
                return client.stream(handle, service, partition, target.method(), bidirectional ? null : request,
                        bidirectional ? (Flow.Publisher<?>) request : null, target.responseType(), options);
            }
            if (!target.async()) {
                client.refuseBlockingOnIoThread();   // before the call starts, which may send the write
            }
            CompletableFuture<Object> future = client.invoke(handle, service, partition, target.method(), target.mode(),
                    request, target.responseType(), options);
            return target.async() ? future : client.await(future);
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
}
