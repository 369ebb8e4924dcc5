package io.neptune.examples.gateway.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/** Serves the requests of one route. Must not block: it starts asynchronous calls and returns. */
@FunctionalInterface
public interface Endpoint {
    /**
     * Serves {@code request}.
     *
     * @param request the request
     * @param parameters the path segments that matched the route's {@code {placeholders}}, in order
     * @return the response; a failed future (or a thrown exception) becomes an error per {@link HttpErrors}
     */
    CompletableFuture<GatewayResponse> serve(GatewayRequest request, List<String> parameters);
}
