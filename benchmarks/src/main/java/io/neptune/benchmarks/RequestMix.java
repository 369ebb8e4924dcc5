package io.neptune.benchmarks;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * The request mix of a service's workload: what {@link OpenLoopProbe} sends to a partition it has
 * drawn. An implementation decides the kind of request (read or write, which method) and its
 * arguments from {@code random}, which belongs to the probe's sending thread.
 */
interface RequestMix {
    /** Says, for a read whose reply names the node that served it, that node; otherwise empty. */
    String NOT_A_NAMED_READ = "";
    /** Says that the request was a write, so the probe can report write latency on its own. */
    String WRITE = "(write)";

    /**
     * Sends one request to {@code partition} as {@code user}; the future completes with the node
     * that served it if it was a read whose reply says so, with {@link #WRITE} for a write (optional: a
     * mix may report writes as {@link #NOT_A_NAMED_READ}), else with {@link #NOT_A_NAMED_READ}.
     */
    CompletableFuture<String> send(NeptuneClient client, NeptuneHandle user, int partition, Random random,
            CallOptions options);
}
