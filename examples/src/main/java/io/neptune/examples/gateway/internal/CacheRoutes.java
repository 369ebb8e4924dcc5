package io.neptune.examples.gateway.internal;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.ServiceDescriptor;
import io.neptune.examples.cache.CacheService;
import io.neptune.examples.cache.CacheService.CacheEntry;
import io.neptune.examples.cache.CacheService.CacheLookup;
import io.neptune.examples.cache.CacheService.CacheUpdate;
import io.neptune.examples.cache.CacheService.Updated;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The persistent cache's routes: {@code PUT} stores the request body under a key, {@code GET}
 * returns it. A key's partition (bucket) is {@link CacheService#bucketOf(String, int)}.
 *
 * <p>Thread-safety: stateless; thread-safe.
 */
public final class CacheRoutes {
    /** The service name. */
    public static final String SERVICE = "cache";
    private static final int PARTITIONS = ServiceDescriptor.of(CacheService.class).partitions();

    private final NeptuneClient client;
    private final CallOptions options;

    /** Creates the routes calling through {@code client} with {@code options}. */
    public CacheRoutes(NeptuneClient client, CallOptions options) {
        this.client = client;
        this.options = options;
    }

    /** Adds the routes to {@code router}. */
    public void register(Router router) {
        router.add("PUT", "/api/cache/{key}", this::update).add("GET", "/api/cache/{key}", this::lookup);
    }

    private CompletableFuture<GatewayResponse> update(GatewayRequest request, List<String> parameters) {
        if (request.body().length > CacheService.MAX_VALUE_BYTES) {
            throw new HttpStatusException(413, "value: " + request.body().length + " bytes (expected: at most "
                    + CacheService.MAX_VALUE_BYTES + ")");
        }
        CacheUpdate update = new CacheUpdate(parameters.get(0), Base64.getEncoder().encodeToString(request.body()));
        return client.callAsync(request.session(), SERVICE, CacheService.bucketOf(update.key(), PARTITIONS),
                "CacheUpdate", AccessMode.WRITE, update, Updated.class, request.options(options))
                .thenApply(updated -> GatewayResponse.noContent());
    }

    private CompletableFuture<GatewayResponse> lookup(GatewayRequest request, List<String> parameters) {
        CacheLookup lookup = new CacheLookup(parameters.get(0));
        return client.callAsync(request.session(), SERVICE, CacheService.bucketOf(lookup.key(), PARTITIONS),
                "CacheLookup", AccessMode.READ, lookup, CacheEntry.class, request.options(options)).thenApply(entry -> {
                    String value = entry.value();
                    if (!entry.found() || value == null) {
                        throw HttpStatusException.notFound("no value under key '" + lookup.key() + "'");
                    }
                    return GatewayResponse.bytes(200, "application/octet-stream", Base64.getDecoder().decode(value));
                });
    }
}
