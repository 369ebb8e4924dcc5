package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.server.EchoTestService.Reply;
import io.neptune.server.EchoTestService.Sleep;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a {@code neptune node} process stops on signals (docs/OPERATIONS.md, "Stopping a node"): the
 * first SIGTERM drains it, within {@code drain-timeout}, and a second stops it at once; its exit
 * status says which ({@link StopOutcome}). A call that sleeps keeps a drain waiting, as a long call
 * in progress does.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class GracefulStopIT {
    private static final String NODE = "node-1";
    private static final Duration EXIT = Duration.ofSeconds(60);

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)   // kept for the post-mortem when a test fails
    Path work;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aSigtermDrainsAnIdleNodeWhichThenExitsWithStatusZero() throws Exception {
        try (ReplicatedProcesses cluster = start("")) {
            NodeProcess node = cluster.process(NODE);
            node.signalTerm();

            assertThat(node.awaitExit(EXIT)).as("exits after a SIGTERM%s", node.details()).isTrue();
            assertThat(node.exitValue()).as("drained: status 0%s", node.details()).isEqualTo(0);
            assertThat(node.transcript()).as("says what it did%s", node.details())
                    .anyMatch(l -> l.contains(NODE + ": SIGTERM: draining (at most 20 s"))
                    .anyMatch(l -> l.contains(NODE + " is drained"))
                    .anyMatch(l -> l.contains(NODE + ": stopped"));
        }
    }

    @Test
    void aDrainStillWaitingForACallWhenDrainTimeoutEndsStopsTheNodeWithStatusThree() throws Exception {
        try (ReplicatedProcesses cluster = start("drain-timeout: 3s\n")) {
            NodeProcess node = cluster.process(NODE);
            CompletableFuture<Reply> sleeping = sleepOn(cluster, Duration.ofMinutes(2));
            awaitActiveCall(cluster, sleeping);
            long signalled = System.nanoTime();
            node.signalTerm();

            assertThat(node.awaitExit(EXIT)).as("exits after a SIGTERM%s", node.details()).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - signalled)).as("stopped at the end of its 3 s budget,"
                    + " not the call's 2 minutes").isLessThan(Duration.ofSeconds(45));
            assertThat(node.exitValue()).as("drain incomplete: status 3%s", node.details()).isEqualTo(3);
            assertThat(node.transcript()).as("names what was left%s", node.details())
                    .anyMatch(l -> l.contains(NODE + " drained with 1 calls unfinished at the timeout"));
            sleeping.cancel(true);
        }
    }

    @Test
    void aSecondSigtermStopsADrainingNodeAtOnceWithStatusFour() throws Exception {
        try (ReplicatedProcesses cluster = start("")) {
            NodeProcess node = cluster.process(NODE);
            CompletableFuture<Reply> sleeping = sleepOn(cluster, Duration.ofMinutes(2));
            awaitActiveCall(cluster, sleeping);
            node.signalTerm();
            node.awaitLine(l -> l.contains(NODE + " takes no new calls; 1 in progress"), EXIT,
                    "the drain to wait for the sleeping call");
            node.signalTerm();

            assertThat(node.awaitExit(EXIT)).as("exits after the second SIGTERM%s", node.details()).isTrue();
            assertThat(node.exitValue()).as("forced: status 4%s", node.details()).isEqualTo(4);
            assertThat(node.transcript()).as("says it stops before the drain finished%s", node.details())
                    .anyMatch(l -> l.contains(NODE + ": SIGTERM again: stopping now, before the drain finished"));
            sleeping.cancel(true);
        }
    }

    /** One {@code neptune node} process hosting the echo service, with {@code settings} in its config. */
    private ReplicatedProcesses start(String settings) throws IOException {
        ReplicatedProcesses cluster = new ReplicatedProcesses(work);
        try {
            cluster.useNodeCommand();
            cluster.define(NODE, EchoTestService.class, 0, 1, settings);
            cluster.start(NODE);
            ReplicatedProcesses.await(() -> !cluster.observer().replicaRoles("echo", 0).isEmpty(),
                    Duration.ofSeconds(60), "the observer to see " + NODE + "'s echo service");
            return cluster;
        } catch (RuntimeException | Error e) {
            cluster.close();
            throw e;
        }
    }

    /** A call to {@code echo.sleep} from the observer, on partition 0. */
    private static CompletableFuture<Reply> sleepOn(ReplicatedProcesses cluster, Duration sleep) {
        return cluster.observer().client().callAsync(NeptuneHandle.create(), "echo", 0, "sleep", AccessMode.READ,
                new Sleep(sleep.toMillis()), Reply.class, CallOptions.timeout(sleep.plusSeconds(30)));
    }

    /** Waits until the node runs a call of the echo service, by its admin port's {@code /metrics}. */
    private void awaitActiveCall(ReplicatedProcesses cluster, CompletableFuture<Reply> call) {
        ReplicatedProcesses.await(() -> {
            if (call.isDone()) {
                throw new AssertionError("the sleeping call ended before the test stopped the node: " + call);
            }
            String admin = cluster.observer().admin().nodes().stream().filter(n -> n.node().equals(NODE))
                    .map(ClusterAdmin.NodeStatus::adminUrl).findFirst().orElse("");
            if (admin.isEmpty()) {
                return false;
            }
            try {
                HttpResponse<String> metrics = http.send(HttpRequest.newBuilder(URI.create(admin + "/metrics"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                return metrics.body().contains("neptune_service_active{node=\"" + NODE + "\",service=\"echo\"} 1.0");
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }, Duration.ofSeconds(60), "the sleeping call running on " + NODE);
    }
}
