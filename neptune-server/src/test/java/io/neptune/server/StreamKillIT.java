package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.NodeId;
import io.neptune.core.StreamFailedException;
import io.neptune.server.StreamTestService.Item;
import io.neptune.server.StreamTestService.Range;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node process serving a stream is killed with SIGKILL in the middle of it: the client's stream
 * ends with a {@link StreamFailedException} (connection lost) naming the node and the items it
 * delivered, well before the stream's deadline; a {@code @Read(resumable = true)} stream instead
 * continues on another node's replica and delivers every item once.
 */
@Tag("alone") // runs by itself (failsafe's first pass): its paced stream must outlast a second node's start
class StreamKillIT {
    @TempDir
    Path work;

    @Test
    void aStreamFromANodeKilledMidStreamFailsWithConnectionLost() throws Exception {
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work)) {
            cluster.jvmOptions("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
            cluster.define("node-s", StreamTestService.class, 0, 1);
            cluster.start("node-s");
            NeptuneNode observer = cluster.observer();
            ReplicatedProcesses.await(() -> observer.client().partitions("streams") == 2, Duration.ofSeconds(60),
                    "the observer to see the stream service");

            RecordingSubscriber<Item> subscriber = RecordingSubscriber.all();
            observer.client().openStream(NeptuneHandle.create(), "streams", 0, "produce",
                    new Range(1_000_000, 8, 5, -1, -1), Item.class, CallOptions.timeout(Duration.ofMinutes(5)))
                    .subscribe(subscriber);
            ReplicatedProcesses.await(() -> subscriber.count() >= 20, Duration.ofSeconds(60), "20 items");

            cluster.kill("node-s");

            Throwable error;
            try {
                subscriber.done().get(60, TimeUnit.SECONDS);
                throw new AssertionError("the stream completed (expected: it fails)");
            } catch (ExecutionException e) {
                error = e.getCause();
            }
            assertThat(error).isInstanceOf(StreamFailedException.class);
            StreamFailedException failed = (StreamFailedException) error;
            assertThat(failed.reason()).isEqualTo(StreamFailedException.Reason.CONNECTION_LOST);
            assertThat(failed.node()).isEqualTo(NodeId.of("node-s"));
            assertThat(failed.itemsReceived()).isEqualTo(subscriber.count()).isGreaterThanOrEqualTo(20);
            assertThat(subscriber.items().get(subscriber.count() - 1).n()).isEqualTo(subscriber.count() - 1);
        }
    }

    @Test
    void aResumableStreamFromANodeKilledMidStreamContinuesOnAnotherNode() throws Exception {
        int count = 4_000;
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work)) {
            cluster.jvmOptions("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
            cluster.define("node-a", StreamTestService.class, 0, 2);
            cluster.define("node-b", StreamTestService.class, 0, 2);
            cluster.start("node-a");
            NeptuneNode observer = cluster.observer();
            ReplicatedProcesses.await(() -> observer.client().partitions("streams") == 2, Duration.ofSeconds(60),
                    "the observer to see the stream service");

            // node-a is the only host when the stream opens, so it serves it
            RecordingSubscriber<Item> subscriber = RecordingSubscriber.all();
            observer.client().openStream(NeptuneHandle.create(), "streams", 0, "produceResumable",
                    new Range(count, 8, 5, -1, -1), Item.class, CallOptions.timeout(Duration.ofMinutes(5)))
                    .subscribe(subscriber);
            ReplicatedProcesses.await(() -> subscriber.count() >= 20, Duration.ofSeconds(60), "20 items");
            cluster.start("node-b");
            ReplicatedProcesses.await(() -> observer.replicaRoles("streams", 0).size() == 2, Duration.ofSeconds(60),
                    "the observer to see node-b host partition 0");
            assertThat(subscriber.count()).as("node-a is still streaming").isLessThan(count);

            cluster.kill("node-a");

            subscriber.done().get(120, TimeUnit.SECONDS);
            assertThat(subscriber.items()).extracting(Item::n)
                    .containsExactlyElementsOf(java.util.stream.IntStream.range(0, count).boxed().toList());
        }
    }
}
