package io.neptune.examples.gateway.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.neptune.client.Aggregate;
import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.core.internal.json.Json;
import io.neptune.examples.search.SearchService;
import io.neptune.examples.search.SearchService.Hit;
import io.neptune.examples.search.SearchService.Hits;
import io.neptune.examples.search.SearchService.Search;
import io.neptune.examples.search.TopHits;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;

/**
 * The document search route: {@code GET /api/search?q=<words>&k=<n>} scatters the query to every
 * partition of {@link SearchService} with {@code aggregateAsync}, in the request's service class,
 * and merges the partial top-k lists by score ({@link TopHits}). Partitions that do not answer are
 * listed in {@code failedPartitions} and the others' hits are still returned (harvest); only when
 * none answers is it an error. {@code documents} counts what the answering partitions had indexed,
 * so a query made while the index is still being built says so.
 *
 * <p>Thread-safety: stateless; thread-safe.
 */
public final class SearchRoutes {
    /** The service name. */
    public static final String SERVICE = SearchService.NAME;
    /** The k of a query that names none. */
    public static final int DEFAULT_K = 10;
    private static final List<Integer> ALL_PARTITIONS = IntStream.range(0, SearchService.PARTITIONS).boxed().toList();

    private final NeptuneClient client;
    private final CallOptions options;

    /** Creates the route calling through {@code client} with {@code options}. */
    public SearchRoutes(NeptuneClient client, CallOptions options) {
        this.client = client;
        this.options = options;
    }

    /** Adds the route to {@code router}. */
    public void register(Router router) {
        router.add("GET", "/api/search", this::search);
    }

    private CompletableFuture<GatewayResponse> search(GatewayRequest request, List<String> parameters) {
        String q = request.query().single("q").orElse("");
        if (q.isBlank()) {
            throw HttpStatusException.badRequest("q: " + (q.isEmpty() ? "missing" : "blank")
                    + " (expected: the words to search for)");
        }
        if (q.length() > SearchService.MAX_QUERY_LENGTH) {
            throw HttpStatusException.badRequest("q: " + q.length() + " characters (expected: at most "
                    + SearchService.MAX_QUERY_LENGTH + ")");
        }
        int k = k(request.query().single("k").orElse(Integer.toString(DEFAULT_K)));
        return client.aggregateAsync(request.session(), SERVICE, ALL_PARTITIONS, "Search", new Search(q, k),
                Hits.class, request.options(options)).thenApply(aggregate -> json(aggregate, k));
    }

    private static int k(String text) {
        int k = text.matches("[0-9]{1,3}") ? Integer.parseInt(text) : -1;
        if (k < 1 || k > SearchService.MAX_K) {
            throw HttpStatusException.badRequest("k: '" + text + "' (expected: an integer 1.." + SearchService.MAX_K
                    + ")");
        }
        return k;
    }

    private static GatewayResponse json(Aggregate<Hits> aggregate, int k) {
        if (aggregate.results().isEmpty() && !aggregate.failures().isEmpty()) {
            throw HttpErrors.noPartitionAnswered(SERVICE, aggregate.failures());
        }
        ObjectNode json = Json.mapper().createObjectNode();
        ArrayNode hits = json.putArray("hits");
        for (Hit hit : TopHits.merge(aggregate.results().values(), k)) {
            hits.addObject().put("id", hit.id()).put("title", hit.title()).put("score", hit.score())
                    .put("snippet", hit.snippet());
        }
        ArrayNode failed = json.putArray("failedPartitions");
        aggregate.failures().keySet().forEach(failed::add);
        json.put("partitions", SearchService.PARTITIONS);
        // a loader may still be filling the index: an empty answer then says how far it got
        json.put("documents", aggregate.results().values().stream().mapToLong(Hits::documents).sum());
        return GatewayResponse.json(200, json);
    }
}
