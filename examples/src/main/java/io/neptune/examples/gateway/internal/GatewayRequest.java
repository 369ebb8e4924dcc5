package io.neptune.examples.gateway.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.ServiceClass;
import java.util.List;

/**
 * A decoded HTTP request as routes see it: no Netty types, the body copied out of its buffer.
 *
 * @param method the HTTP method, upper case
 * @param path the URL-decoded path segments ({@code /api/cache/k} is {@code [api, cache, k]})
 * @param body the request body (empty if none)
 * @param session the caller's session
 * @param serviceClass the service class the gateway put the request in
 * @param query the parameters of the URL's query string
 */
public record GatewayRequest(String method, List<String> path, byte[] body, NeptuneHandle session,
        String serviceClass, QueryParameters query) {
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
        this(method, path, body, session, ServiceClass.DEFAULT_NAME, QueryParameters.empty());
    }

    /** {@code options} for the calls this request makes: in its service class. */
    public CallOptions options(CallOptions options) {
        return serviceClass.equals(ServiceClass.DEFAULT_NAME) ? options
                : options.toBuilder().serviceClass(serviceClass).build();
    }

    @Override
    public String toString() {
        return method + " /" + String.join("/", path);
    }
}
