package io.neptune.examples.gateway.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.client.NeptuneHandle;
import java.util.List;

/**
 * A decoded HTTP request as routes see it: no Netty types, the body copied out of its buffer.
 *
 * @param method the HTTP method, upper case
 * @param path the URL-decoded path segments ({@code /api/cache/k} is {@code [api, cache, k]})
 * @param body the request body (empty if none)
 * @param session the caller's session
 */
public record GatewayRequest(String method, List<String> path, byte[] body, NeptuneHandle session) {
    /** Copies the path. */
    public GatewayRequest {
        requireNonNull(method, "method");
        path = List.copyOf(path);
        requireNonNull(body, "body");
        requireNonNull(session, "session");
    }

    @Override
    public String toString() {
        return method + " /" + String.join("/", path);
    }
}
