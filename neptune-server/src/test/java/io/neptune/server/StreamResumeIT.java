package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.StreamFailedException;
import io.neptune.server.StreamTestService.Item;
import io.neptune.server.StreamTestService.Range;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A stream whose node stops in the middle of it, between real in-JVM nodes: node-0 serves the
 * stream, node-2 starts hosting the same partition meanwhile, and node-0 is closed. A
 * {@code @Read(resumable = true)} stream continues on node-2 and the subscriber sees every item
 * once, in order; a stream that is not resumable fails, saying how many items it delivered. (A
 * node killed with SIGKILL: {@link StreamKillIT}.)
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StreamResumeIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final CallOptions OPTIONS = CallOptions.timeout(Duration.ofMinutes(2));
    private static final int COUNT = 3_000;

    @Test
    void aResumableStreamContinuesOnAnotherReplicaAndDeliversEveryItemOnce() throws Exception {
        StreamTestService first = new StreamTestService();
        StreamTestService second = new StreamTestService();
        try (MiniCluster cluster = MiniCluster.start(1, b -> b.host(first, HostingConfig.builder().replicas(2).build()))) {
            NeptuneNode caller = cluster.add("node-1", ClientConfig.defaults(), b -> b);
            NeptuneClient client = caller.client();
            ReplicatedProcesses.await(() -> client.partitions("streams") == 2, WAIT, "node-1 to see the service");
            RecordingSubscriber<Item> subscriber = RecordingSubscriber.all();
            client.openStream(NeptuneHandle.create(), "streams", 0, "produceResumable", new Range(COUNT, 8, 1, -1, -1),
                    Item.class, OPTIONS).subscribe(subscriber);
            ReplicatedProcesses.await(() -> subscriber.count() >= 50, WAIT, "50 items from node-0");

            cluster.add("node-2", ClientConfig.defaults(), b -> b.host(second, HostingConfig.builder().replicas(2).build()));
            ReplicatedProcesses.await(() -> caller.replicaRoles("streams", 0).size() == 2, WAIT,
                    "node-1 to see node-2 host the partition");
            long before = subscriber.count();
            assertThat(before).as("the stream is still running on node-0").isLessThan(COUNT);
            cluster.node(0).close();

            subscriber.done().get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertThat(subscriber.items()).extracting(Item::n)
                    .containsExactlyElementsOf(IntStream.range(0, COUNT).boxed().toList());
            assertThat(second.produced.get()).as("node-2 produced the rest (and the skipped prefix again)")
                    .isGreaterThanOrEqualTo(COUNT - before);
        }
    }

    @Test
    void aStreamThatIsNotResumableFailsWithTheItemsItDelivered() throws Exception {
        StreamTestService first = new StreamTestService();
        try (MiniCluster cluster = MiniCluster.start(1, b -> b.host(first, HostingConfig.builder().replicas(2).build()))) {
            NeptuneNode caller = cluster.add("node-1", ClientConfig.defaults(), b -> b);
            NeptuneClient client = caller.client();
            cluster.add("node-2", ClientConfig.defaults(), b -> b.host(new StreamTestService(), HostingConfig.builder().replicas(2).build()));
            ReplicatedProcesses.await(() -> caller.replicaRoles("streams", 0).size() == 2, WAIT,
                    "node-1 to see both hosts");
            RecordingSubscriber<Item> subscriber = RecordingSubscriber.all();
            client.openStream(NeptuneHandle.create(), "streams", 0, "produce", new Range(COUNT, 8, 1, -1, -1),
                    Item.class, OPTIONS).subscribe(subscriber);
            ReplicatedProcesses.await(() -> subscriber.count() >= 50, WAIT, "50 items");
            NeptuneNode serving = first.producersRunning.get() > 0 ? cluster.node(0) : cluster.nodes().get(2);
            serving.close();

            Throwable error;
            try {
                subscriber.done().get(WAIT.toSeconds(), TimeUnit.SECONDS);
                throw new AssertionError("the stream completed (expected: it fails)");
            } catch (ExecutionException e) {
                error = e.getCause();
            }
            assertThat(error).isInstanceOf(StreamFailedException.class);
            StreamFailedException failed = (StreamFailedException) error;
            assertThat(failed.node()).isEqualTo(serving.node());
            assertThat(failed.itemsReceived()).isEqualTo(subscriber.count()).isGreaterThanOrEqualTo(50)
                    .isLessThan(COUNT);
        }
    }
}
