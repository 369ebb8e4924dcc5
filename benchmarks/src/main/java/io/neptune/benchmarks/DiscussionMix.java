package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.neptune.benchmarks.EmulatedDiscussion.AddMsg;
import io.neptune.benchmarks.EmulatedDiscussion.Added;
import io.neptune.benchmarks.EmulatedDiscussion.Headers;
import io.neptune.benchmarks.EmulatedDiscussion.ViewHeaders;
import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;

/**
 * The discussion-group mix of the dissertation (§5.4.1): a share of {@code AddMsg} writes, the rest
 * {@code ViewHeaders} reads, on a topic of the drawn partition; {@code 400 × nodes} topics spread
 * over the partitions.
 *
 * <p>Thread-safety: thread-safe.
 */
final class DiscussionMix implements RequestMix {
    private static final AtomicLong MESSAGE_IDS = new AtomicLong();
    /** The body of every post: 120 characters. */
    static final String BODY = "x".repeat(120);

    private final String service;
    private final double writeFraction;
    private final int partitions;
    private final int topicsPerPartition;
    private final BiConsumer<Integer, AddMsg> acknowledged;

    DiscussionMix(String service, double writeFraction, int partitions, int nodes) {
        this(service, writeFraction, partitions, nodes, (partition, post) -> { });
    }

    /** A mix that also tells {@code acknowledged} of every post the service acknowledged (on client threads). */
    DiscussionMix(String service, double writeFraction, int partitions, int nodes,
            BiConsumer<Integer, AddMsg> acknowledged) {
        this.service = requireNonNull(service, "service");
        this.writeFraction = writeFraction;
        this.partitions = partitions;
        this.topicsPerPartition = perPartition(nodes, partitions);
        this.acknowledged = requireNonNull(acknowledged, "acknowledged");
    }

    /** The dissertation's {@code 400 × nodes} topics (or auction categories) per partition, at least one. */
    static int perPartition(int nodes, int partitions) {
        return Math.max(1, 400 * nodes / partitions);
    }

    @Override
    public CompletableFuture<String> send(NeptuneClient client, NeptuneHandle user, int partition, Random random,
            CallOptions options) {
        String topic = "g" + (partition + partitions * random.nextInt(topicsPerPartition));
        if (random.nextDouble() < writeFraction) {
            AddMsg post = new AddMsg(topic, MESSAGE_IDS.incrementAndGet(), "u" + random.nextInt(10_000), "re: " + topic,
                    BODY, System.currentTimeMillis());
            return client.callAsync(user, service, partition, "AddMsg", AccessMode.WRITE, post, Added.class, options)
                    .thenApply(added -> {
                        acknowledged.accept(partition, post);
                        return WRITE;
                    });
        }
        return client.callAsync(user, service, partition, "ViewHeaders", AccessMode.READ, new ViewHeaders(topic),
                Headers.class, options).thenApply(Headers::node);
    }
}
