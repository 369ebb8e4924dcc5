package io.neptune.examples.gateway.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.ServiceClass;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A decoded HTTP request as routes see it: no Netty types, the body copied out of its buffer.
 *
 * @param method the HTTP method, upper case
 * @param path the URL-decoded path segments ({@code /api/cache/k} is {@code [api, cache, k]})
 * @param body the request body (empty if none)
 * @param session the caller's session
 * @param serviceClass the service class the gateway put the request in
 * @param query the parameters of the URL's query string
 * @param requestId the request id its write runs under, derived from its {@link IdempotencyKey},
 *     or null for a fresh id per call
 */
public record GatewayRequest(String method, List<String> path, byte[] body, NeptuneHandle session,
        String serviceClass, QueryParameters query, @Nullable String requestId) {
    /** Copies the path. */
    public GatewayRequest {
        requireNonNull(method, "method");
        path = List.copyOf(path);
        requireNonNull(body, "body");
        requireNonNull(session, "session");
        requireNonNull(serviceClass, "serviceClass");
        requireNonNull(query, "query");
    }

    /** A request of the default service class without query parameters. */
    public GatewayRequest(String method, List<String> path, byte[] body, NeptuneHandle session) {
        this(method, path, body, session, ServiceClass.DEFAULT_NAME, QueryParameters.empty(), null);
    }

    /**
     * {@code options} for the calls this request makes: in its service class, and under its
     * request id when it has one (a route makes at most one write per request, so the id names
     * that write).
     */
    public CallOptions options(CallOptions options) {
        if (serviceClass.equals(ServiceClass.DEFAULT_NAME) && requestId == null) {
            return options;
        }
        CallOptions.Builder builder = options.toBuilder();
        if (!serviceClass.equals(ServiceClass.DEFAULT_NAME)) {
            builder.serviceClass(serviceClass);
        }
        if (requestId != null) {
            builder.requestId(requestId);
        }
        return builder.build();
    }

    /**
     * Whether the client sent an {@link IdempotencyKey}: it may send this request again after an
     * unknown outcome, so a route answers a retry as it answered the first time (no pre-check read
     * that would see the first write's effect and refuse).
     */
    public boolean idempotent() {
        return requestId != null;
    }

    @Override
    public String toString() {
        return method + " /" + String.join("/", path);
    }
}
