package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.MethodDescriptor;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.json.JsonCodec;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Flow;
import java.util.function.ToLongFunction;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A hosted service's instance as the node calls it: a request becomes a call of its method (the
 * payload decoded as the method's request type, the method run through a bound {@link MethodHandle})
 * and the method's result becomes an answer (encoded, with the version it was served at, or a stream
 * handed to its sink); and its callbacks ({@code @Check}, {@code @Digest}) by reflection. When and on
 * which thread a call runs, and whether its partition is hosted, is {@link ServiceRuntime}'s concern.
 *
 * <p>Thread-safety: thread-safe; the service's own methods decide how they share its state.
 */
final class ServiceMethods {
    private static final Logger logger = LoggerFactory.getLogger(ServiceMethods.class);

    private final NodeId node;
    private final ServiceDescriptor descriptor;
    private final Object instance;
    private final Map<String, MethodHandle> handles = new HashMap<>();
    private volatile ToLongFunction<Integer> versions = partition -> 0;

    /**
     * The methods of {@code instance}, described by {@code descriptor}, on {@code node}.
     *
     * @throws IllegalArgumentException if a method is not accessible (not a public method of a public class)
     */
    ServiceMethods(NodeId node, ServiceDescriptor descriptor, Object instance) {
        this.node = requireNonNull(node, "node");
        this.descriptor = requireNonNull(descriptor, "descriptor");
        this.instance = requireNonNull(instance, "instance");
        MethodHandles.Lookup lookup = MethodHandles.publicLookup();
        for (MethodDescriptor method : descriptor.methods().values()) {
            try {
                handles.put(method.name(), lookup.unreflect(method.javaMethod()).bindTo(instance));
            } catch (IllegalAccessException e) {
                throw new IllegalArgumentException(descriptor.serviceClass().getName() + "." + method.javaMethod().getName()
                        + "(): not accessible (expected: public method of a public class)", e);
            }
        }
    }

    /** See {@link ServiceRuntime#versions}. */
    void versions(ToLongFunction<Integer> versions) {
        this.versions = requireNonNull(versions, "versions");
    }

    /** See {@link ServiceRuntime#undecodable}. */
    @Nullable String undecodable(RequestMessage request) {
        MethodDescriptor method = descriptor.methods().get(request.method());
        if (method == null) {
            return null; // the router answered UNKNOWN_METHOD already
        }
        try {
            JsonCodec.decode(request.payload(), method.requestType());
            return null;
        } catch (Exception e) {
            return undecodableMessage(request, method, e);
        }
    }

    private static String undecodableMessage(RequestMessage request, MethodDescriptor method, Exception e) {
        return "cannot decode request of " + request.target() + " as " + method.requestType().getSimpleName() + ": "
                + e.getMessage();
    }

    /**
     * Runs {@code method} for {@code request} in {@code context} on this thread and answers it; null when
     * it started a stream (into {@code stream}), which answers on its own. A method that throws is
     * answered METHOD_FAILED.
     *
     * @throws VirtualMachineError if the JVM failed under the method (out of memory): that is not the
     *     method's answer, and a replicated write must not record it as one
     */
    @Nullable ResponseMessage invoke(RequestMessage request, MethodDescriptor method, CallContext context,
            @Nullable StreamSink stream) {
        Object argument;
        try {
            argument = stream != null && method.inputItemType() != null ? stream.input()
                    : JsonCodec.decode(request.payload(), method.requestType());
        } catch (Exception e) {
            return ResponseMessage.error(request.requestId(), Status.INVALID_REQUEST, undecodableMessage(request, method, e));
        }
        Object result;
        try {
            result = requireNonNull(handles.get(method.name()), "handles: one per method").invoke(context, argument);
        } catch (Throwable t) {
            Throwable cause = t instanceof InvocationTargetException ite && ite.getCause() != null ? ite.getCause() : t;
            if (cause instanceof VirtualMachineError error && !(cause instanceof StackOverflowError)) {
                throw error;
            }
            if (cause instanceof Error) {
                logger.warn("{}: {} threw {}", node, request.target(), cause.toString(), cause);
            } else {
                logger.debug("{}: {} threw", node, request.target(), cause);
            }
            return ResponseMessage.error(request.requestId(), Status.METHOD_FAILED,
                    cause.getClass().getName() + ": " + cause.getMessage());
        }
        if (stream != null) {
            if (!(result instanceof Flow.Publisher<?> publisher)) {
                return ResponseMessage.error(request.requestId(), Status.METHOD_FAILED, request.target()
                        + " returned null (expected: a Flow.Publisher)");
            }
            stream.start(publisher);
            return null;
        }
        try {
            long version = context.lsn() > 0 ? context.lsn() : versions.applyAsLong(request.partition());
            return ResponseMessage.ok(request.requestId(), version, JsonCodec.encode(result));
        } catch (Exception e) {
            return ResponseMessage.error(request.requestId(), Status.METHOD_FAILED, "cannot encode the response of "
                    + request.target() + " as JSON: " + e.getMessage());
        }
    }

    /**
     * Calls the callback {@code method} of the service with {@code args}.
     *
     * @throws NeptuneException if it threw, with what it threw as the cause
     */
    Object callback(Method method, Object... args) {
        try {
            return method.invoke(instance, args);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        } catch (InvocationTargetException e) {
            throw new NeptuneException(descriptor.name() + "." + method.getName() + "() threw: " + e.getCause(),
                    e.getCause());
        }
    }
}
