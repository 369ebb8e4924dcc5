package io.neptune.examples.gateway.internal;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.Partitions;
import io.neptune.examples.front.FrontService;
import io.neptune.examples.front.FrontService.Page;
import io.neptune.examples.front.FrontService.PageRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The multi-tier route: {@code GET /api/front?topic=<topic>&category=<category>} calls
 * {@link FrontService}'s {@code Page}, which calls the discussion group and the auction in turn, and
 * answers the page as it is ({@code topic}, {@code posts}, {@code category}, {@code items}, and
 * {@code parts}: each back end's {@code ok}, {@code error} and {@code millis}). A missing part is
 * still a 200: the page says which part is missing. Any partition of the front serves any page; the
 * topic picks one, which spreads the pages.
 *
 * <p>Thread-safety: stateless; thread-safe.
 */
public final class FrontRoutes {
    /** The service name. */
    public static final String SERVICE = FrontService.NAME;

    private final NeptuneClient client;
    private final CallOptions options;

    /** Creates the route calling through {@code client} with {@code options}. */
    public FrontRoutes(NeptuneClient client, CallOptions options) {
        this.client = client;
        this.options = options;
    }

    /** Adds the route to {@code router}. */
    public void register(Router router) {
        router.add("GET", "/api/front", this::page);
    }

    private CompletableFuture<GatewayResponse> page(GatewayRequest request, List<String> parameters) {
        PageRequest page = new PageRequest(required(request, "topic"), required(request, "category"));
        return client.callAsync(request.session(), SERVICE, Partitions.of(page.topic(), FrontService.PARTITIONS), "Page",
                AccessMode.READ, page, Page.class, request.options(options))
                .thenApply(answer -> GatewayResponse.json(200, answer));
    }

    private static String required(GatewayRequest request, String name) {
        return request.query().single(name).orElseThrow(() -> HttpStatusException.badRequest(name
                + ": missing (expected: /api/front?topic=<topic>&category=<category>)"));
    }
}
