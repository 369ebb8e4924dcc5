package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.Aggregate;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.InvalidRequestException;
import io.neptune.core.NodeId;
import io.neptune.core.RemoteMethodException;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Repeat;
import io.neptune.server.EchoTestService.Reply;
import io.neptune.server.EchoTestService.Sleep;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The client at its edges, against a real node over TCP: requests and answers over the frame
 * limit, deadlines, blocking calls on I/O threads, closing with calls in flight, null answers.
 * The caller hosts nothing, so every call crosses the network.
 */
class ClientEdgesIT {
    private static final int FRAME_BYTES = 64 * 1024;
    private static final CallOptions SHORT = CallOptions.timeout(Duration.ofMillis(150));
    private static final Duration WAIT_FOR_THREADS = Duration.ofSeconds(20);

    private static MiniCluster cluster;
    private static NeptuneClient client;

    @BeforeAll
    static void startCluster() {
        cluster = MiniCluster.start(0, b -> b);
        ClientConfig small = ClientConfig.builder().maxFrameBytes(FRAME_BYTES).build();
        cluster.add(cluster.config("server", small).toBuilder().maxFrameBytes(FRAME_BYTES).build(),
                b -> b.host(new EchoTestService(), HostingConfig.all())
                        .host(new KvTestService(), HostingConfig.builder().replicas(2).build()));
        client = cluster.add("caller", small, b -> b).client();
        cluster.awaitNodes(1); // a node hosting nothing does not announce itself
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static CompletableFuture<Reply> sleep(long millis) {
        return client.callAsync(NeptuneHandle.create(), "echo", 0, "sleep", AccessMode.READ, new Sleep(millis),
                Reply.class);
    }

    @Test
    void aRequestOverTheFrameLimitFailsAtOnceAndLeavesTheConnectionToOthers() {
        CompletableFuture<Reply> inFlight = sleep(300);
        assertThatThrownBy(() -> client.call(NeptuneHandle.create(), "echo", 0, "echo", AccessMode.READ,
                new Echo("x".repeat(FRAME_BYTES)), Reply.class))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("echo#0.echo: request of")
                .hasMessageContaining("max-frame-size, " + FRAME_BYTES + " bytes");
        assertThatThrownBy(() -> client.call(NeptuneHandle.create(), "echo", 0, "m".repeat(300), AccessMode.READ,
                new Echo("x"), Reply.class))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("300 bytes of UTF-8");
        assertThat(inFlight.join().text()).isEqualTo("slept");
    }

    @Test
    void anAnswerOverTheFrameLimitIsAnErrorAndLeavesTheConnectionToOthers() {
        CompletableFuture<Reply> inFlight = sleep(300);
        assertThatThrownBy(() -> client.call(NeptuneHandle.create(), "echo", 1, "repeat", AccessMode.READ,
                new Repeat("x", FRAME_BYTES), Reply.class))
                .isInstanceOf(RemoteMethodException.class)
                .hasMessageContaining("max-frame-size, " + FRAME_BYTES + " bytes")
                .hasMessageContaining("the method ran");
        assertThat(inFlight.join().text()).isEqualTo("slept");
        assertThat(client.call(NeptuneHandle.create(), "echo", 1, "repeat", AccessMode.READ, new Repeat("x", 1000),
                Reply.class).text()).hasSize(1000);
    }

    @Test
    void anExpiredCallCompletesOffTheDeadlineThreadWhereABlockingCallIsRefused() {
        CompletableFuture<String> completedOn = client.callAsync(NeptuneHandle.create(), "echo", 2, "sleep",
                AccessMode.READ, new Sleep(1000), Reply.class, SHORT).handle((r, e) -> Thread.currentThread().getName());
        assertThat(completedOn.join()).doesNotContain("deadlines");

        CompletableFuture<Reply> nested = client.callAsync(NeptuneHandle.create(), "echo", 2, "sleep", AccessMode.READ,
                new Sleep(1000), Reply.class, SHORT).exceptionally(e -> client.call(NeptuneHandle.create(), "echo", 2,
                        "echo", AccessMode.READ, new Echo("fallback"), Reply.class));
        assertThatThrownBy(() -> nested.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(IllegalStateException.class).hasMessageContaining("use callAsync");
    }

    @Test
    void closingAClientFailsTheCallsItStillRuns() throws Exception {
        NeptuneClient closing = NeptuneClient.connect(NodeId.of("closing"), cluster.membership(), ClientConfig.defaults());
        CompletableFuture<KvTestService.Written> waiting;
        try {
            // kv is hosted once but wants 2 replicas, so it has no primary: the write waits and retries
            await(() -> closing.partitions("kv") == 8);
            waiting = closing.callAsync(NeptuneHandle.create(), "kv", 0, "put", AccessMode.WRITE,
                    new KvTestService.Put("k", "v"), KvTestService.Written.class, CallOptions.timeout(Duration.ofMinutes(1)));
            assertThat(waiting).isNotDone();
        } finally {
            closing.close();
        }
        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasMessageContaining("client is closed");
    }

    @Test
    void aMethodThatThrowsAnErrorIsAnsweredAndItsWorkerServesOn() {
        for (int i = 0; i < 2 * HostingConfig.DEFAULT_WORKERS; i++) { // more than the service has workers
            assertThatThrownBy(() -> client.call(NeptuneHandle.create(), "echo", 3, "assertion", AccessMode.READ,
                    new Echo("x"), Reply.class, CallOptions.timeout(Duration.ofSeconds(5))))
                    .isInstanceOf(RemoteMethodException.class).hasMessageContaining("AssertionError: a bug: x");
        }
        assertThat(client.call(NeptuneHandle.create(), "echo", 3, "echo", AccessMode.READ, new Echo("alive"),
                Reply.class, CallOptions.timeout(Duration.ofSeconds(5))).text()).isEqualTo("alive");
    }

    @Test
    void aNodeThatCannotBindNamesTheSettingAndLeavesNoThreads() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            NodeConfig config = cluster.config("unbound", ClientConfig.defaults()).toBuilder()
                    .port(taken.getLocalPort()).build();
            assertThatThrownBy(() -> NeptuneNode.builder(config).host(new EchoTestService(), HostingConfig.all()).start())
                    .isInstanceOf(io.neptune.core.NeptuneException.class)
                    .hasMessageContaining("check the settings bind-address and port");
        }
        org.awaitility.Awaitility.await().atMost(WAIT_FOR_THREADS).untilAsserted(() -> assertThat(Thread.getAllStackTraces()
                .keySet().stream().map(Thread::getName).filter(name -> name.contains("unbound") && !name.contains("jgroups")))
                .as("threads of the node that failed to start").isEmpty());
    }

    @Test
    void anAggregationKeepsNullAnswers() {
        List<Integer> partitions = IntStream.range(0, 8).boxed().toList();
        Aggregate<Reply> aggregate = client.aggregateAsync(NeptuneHandle.create(), "echo", partitions, "nothing",
                new Echo("none"), Reply.class, CallOptions.defaults()).join();
        assertThat(aggregate.failures()).isEmpty();
        assertThat(aggregate.results()).containsOnlyKeys(partitions);
        assertThat(aggregate.results().values()).containsOnlyNulls();
    }

    private static void await(java.util.function.BooleanSupplier condition) {
        ReplicatedProcesses.await(condition, Duration.ofSeconds(30), "the client to see the cluster");
    }
}
