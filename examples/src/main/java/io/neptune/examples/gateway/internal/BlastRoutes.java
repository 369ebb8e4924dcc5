package io.neptune.examples.gateway.internal;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.neptune.client.Aggregate;
import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.core.NeptuneException;
import io.neptune.core.RemoteMethodException;
import io.neptune.core.internal.json.Json;
import io.neptune.examples.blast.BlastDatabase;
import io.neptune.examples.blast.BlastHits;
import io.neptune.examples.blast.BlastHits.Hit;
import io.neptune.examples.blast.BlastQuery;
import io.neptune.server.process.ProcessFailedException;
import io.neptune.server.process.ProcessRequest;
import io.neptune.server.process.ProcessResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * The BLAST routes. {@code POST /api/blast} with {@code {"sequence": "ACGT..."}} (and optionally
 * {@code "k"}, 1..100, default {@value #DEFAULT_K}) scatters the query to every partition of the
 * process-backed {@value BlastDatabase#SERVICE} service with {@code aggregateAsync}, each partition
 * running {@code blastn} over its share of the database, and merges the hits by bit score
 * ({@link BlastHits}); partitions that do not answer are listed in {@code failedPartitions}
 * (harvest). {@code GET /api/blast} says whether the service is hosted, with how many partitions,
 * and an example query when the gateway was given one.
 *
 * <p>503 when no node hosts the service or every partition's {@code blastn} could not start (the
 * message says to install NCBI BLAST+); 400 for a sequence that is not 1..{@value BlastQuery#MAX_LENGTH}
 * nucleotides.
 *
 * <p>Thread-safety: stateless; thread-safe.
 */
public final class BlastRoutes {
    /** The service name. */
    public static final String SERVICE = BlastDatabase.SERVICE;
    /** The k of a query that names none. */
    public static final int DEFAULT_K = 20;
    /** The largest k. */
    public static final int MAX_K = 100;
    private static final String START_FAILED = ProcessFailedException.class.getName() + ": ";
    private static final String NOT_HOSTED = "BLAST is not available: no node hosts the '" + SERVICE + "' service (it"
            + " runs NCBI BLAST+'s blastn: install it where the nodes run, on Debian 'apt-get install ncbi-blast+',"
            + " and start the nodes with a " + SERVICE + " process service; ./neptune demo does when blastn is installed)";

    private final NeptuneClient client;
    private final CallOptions options;
    private final @Nullable String example;

    /** Creates the routes calling through {@code client} with {@code options}; {@code example} is a query to offer. */
    public BlastRoutes(NeptuneClient client, CallOptions options, @Nullable String example) {
        this.client = client;
        this.options = options;
        this.example = example;
    }

    /** Adds the routes to {@code router}. */
    public void register(Router router) {
        router.add("GET", "/api/blast", this::info);
        router.add("POST", "/api/blast", this::blast);
    }

    private CompletableFuture<GatewayResponse> info(GatewayRequest request, List<String> parameters) {
        int partitions = client.partitions(SERVICE);
        ObjectNode json = Json.mapper().createObjectNode().put("available", partitions > 0).put("partitions", partitions);
        if (example != null) {
            json.put("example", example);
        }
        return CompletableFuture.completedFuture(GatewayResponse.json(200, json));
    }

    private CompletableFuture<GatewayResponse> blast(GatewayRequest request, List<String> parameters) {
        JsonBody body = JsonBody.parse(request.body());
        BlastQuery query = BlastQuery.parse(body.text("sequence"));
        long k = body.optionalInteger("k").orElse((long) DEFAULT_K);
        if (k < 1 || k > MAX_K) {
            throw HttpStatusException.badRequest("k: " + k + " (expected: 1.." + MAX_K + ")");
        }
        int partitions = client.partitions(SERVICE);
        if (partitions == 0) {
            throw new HttpStatusException(503, NOT_HOSTED);
        }
        List<Integer> all = IntStream.range(0, partitions).boxed().toList();
        return client.aggregateAsync(request.session(), SERVICE, all, "run", ProcessRequest.of(query.fasta()),
                ProcessResponse.class, request.options(options)).thenApply(aggregate -> json(aggregate, (int) k,
                partitions));
    }

    private static GatewayResponse json(Aggregate<ProcessResponse> aggregate, int k, int partitions) {
        List<List<Hit>> answers = new ArrayList<>();
        for (ProcessResponse response : aggregate.results().values()) {
            answers.add(BlastHits.parse(response.output()));
        }
        if (answers.isEmpty() && !aggregate.failures().isEmpty()) {
            throw failure(aggregate.failures());
        }
        ObjectNode json = Json.mapper().createObjectNode();
        ArrayNode hits = json.putArray("hits");
        for (Hit hit : BlastHits.merge(answers, k)) {
            hits.addObject().put("id", hit.id()).put("score", hit.score()).put("evalue", hit.evalue());
        }
        ArrayNode failed = json.putArray("failedPartitions");
        aggregate.failures().keySet().forEach(failed::add);
        json.put("partitions", partitions);
        return GatewayResponse.json(200, json);
    }

    /** Why no partition answered: blastn missing (503 naming the fix), else as {@link HttpErrors#noPartitionAnswered}. */
    private static NeptuneException failure(Map<Integer, NeptuneException> failures) {
        NeptuneException first = failures.values().iterator().next();
        if (first instanceof RemoteMethodException remote && remote.remoteMessage().startsWith(START_FAILED)
                && remote.remoteMessage().contains("could not start")) {
            return new HttpStatusException(503, "BLAST is not available: blastn could not start on " + remote.node()
                    + " (install NCBI BLAST+ there; on Debian 'apt-get install ncbi-blast+'): "
                    + remote.remoteMessage().substring(START_FAILED.length()));
        }
        return HttpErrors.noPartitionAnswered(SERVICE, failures);
    }
}
