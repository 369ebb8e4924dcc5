package io.neptune.client.internal;

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

/** Builds typed proxies whose methods are remote calls; validation errors name the method. */
final class Proxies {
    private Proxies() {}

    private record Target(String method, AccessMode mode, int keyIndex, int requestIndex, Type responseType,
            boolean async) {}

    static <I> I create(DefaultNeptuneClient client, Class<I> type, String service, CallOptions options) {
        if (!type.isInterface()) {
            throw new IllegalArgumentException("serviceInterface: " + type.getName() + " (expected: an interface)");
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
            Target target = targets.get(method);
            int partitions = client.partitions(service);
            if (partitions == 0) {
                UnknownServiceException error = new UnknownServiceException(service, "no node in the yellow page hosts it");
                if (target.async()) {
                    return CompletableFuture.failedFuture(error);
                }
                throw error;
            }
            int partition = Partitions.of(args[target.keyIndex()], partitions);
            CompletableFuture<Object> future = client.invoke(handle, service, partition, target.method(), target.mode(),
                    args[target.requestIndex()], target.responseType(), options);
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
        return new Target(name, read != null ? AccessMode.READ : AccessMode.WRITE, keyIndex, 1 - keyIndex, response,
                async);
    }
}
