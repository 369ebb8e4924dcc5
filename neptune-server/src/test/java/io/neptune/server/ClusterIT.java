package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.Aggregate;
import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.PartitionKey;
import io.neptune.core.Read;
import io.neptune.core.RemoteMethodException;
import io.neptune.core.UnknownMethodException;
import io.neptune.core.UnknownPartitionException;
import io.neptune.core.UnknownServiceException;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Reply;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Three real nodes in one JVM on the loopback stack: calls, async calls, proxies, aggregation, errors. */
class ClusterIT {
    private static MiniCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = MiniCluster.start(3, b -> b.host(new EchoTestService(), HostingConfig.all()));
        cluster.awaitNodes(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static NeptuneClient client() {
        return cluster.node(0).client();
    }

    @Test
    void syncCallReachesEveryPartition() {
        NeptuneHandle handle = NeptuneHandle.create();
        for (int p = 0; p < 8; p++) {
            Reply reply = client().call(handle, "echo", p, "echo", AccessMode.READ, new Echo("hi " + p), Reply.class);
            assertThat(reply.text()).isEqualTo("hi " + p);
            assertThat(reply.partition()).isEqualTo(p);
        }
    }

    @Test
    void callsSpreadOverAllNodes() {
        NeptuneHandle handle = NeptuneHandle.create();
        Set<String> servedBy = new HashSet<>();
        for (int i = 0; i < 200 && servedBy.size() < 3; i++) {
            servedBy.add(client().call(handle, "echo", i % 8, "echo", AccessMode.READ, new Echo("x"), Reply.class).node());
        }
        assertThat(servedBy).containsExactlyInAnyOrder("node-0", "node-1", "node-2");
    }

    @Test
    void asyncCallsComplete() {
        NeptuneHandle handle = NeptuneHandle.create();
        List<CompletableFuture<Reply>> futures = IntStream.range(0, 100)
                .mapToObj(i -> client().callAsync(handle, "echo", i % 8, "echo", AccessMode.READ, new Echo("a" + i),
                        Reply.class))
                .toList();
        for (int i = 0; i < futures.size(); i++) {
            assertThat(futures.get(i).join().text()).isEqualTo("a" + i);
        }
    }

    /** The typed view of the echo service. */
    interface Echoes {
        @Read
        Reply echo(@PartitionKey String key, Echo request);

        @Read(name = "echo")
        CompletableFuture<Reply> echoAsync(@PartitionKey int partition, Echo request);
    }

    @Test
    void proxyRoutesByPartitionKey() {
        Echoes echoes = cluster.node(1).client().proxy(Echoes.class, "echo");
        assertThat(echoes.echo("user-42", new Echo("p")).text()).isEqualTo("p");
        assertThat(echoes.echoAsync(5, new Echo("q")).join().partition()).isEqualTo(5);
        assertThat(echoes.echo("user-42", new Echo("p")).partition())
                .isEqualTo(io.neptune.core.Partitions.of("user-42", 8));
    }

    @Test
    void aggregationGathersEveryPartition() {
        Aggregate<Reply> aggregate = client().aggregateAsync(NeptuneHandle.create(), "echo",
                List.of(0, 1, 2, 3, 4, 5, 6, 7, 99), "echo", new Echo("all"), Reply.class, CallOptions.defaults()).join();
        assertThat(aggregate.results()).hasSize(8);
        assertThat(aggregate.failures()).containsOnlyKeys(99);
        assertThat(aggregate.failures().get(99)).isInstanceOf(UnknownPartitionException.class);
        assertThat(aggregate.isComplete()).isFalse();
    }

    @Test
    void unknownServiceMethodAndPartitionAreTypedErrors() {
        NeptuneHandle handle = NeptuneHandle.create();
        assertThatThrownBy(() -> client().call(handle, "nope", 0, "echo", AccessMode.READ, new Echo("x"), Reply.class))
                .isInstanceOf(UnknownServiceException.class).hasMessageContaining("nope");
        assertThatThrownBy(() -> client().call(handle, "echo", 0, "nope", AccessMode.READ, new Echo("x"), Reply.class))
                .isInstanceOf(UnknownMethodException.class).hasMessageContaining("nope");
        assertThatThrownBy(() -> client().call(handle, "echo", 8, "echo", AccessMode.READ, new Echo("x"), Reply.class))
                .isInstanceOf(UnknownPartitionException.class).hasMessageContaining("expected: 0..7");
        assertThatThrownBy(() -> client().call(handle, "echo", 0, "increment", AccessMode.READ, new Echo("x"), Long.class))
                .isInstanceOf(UnknownMethodException.class).hasMessageContaining("WRITE method");
    }

    @Test
    void remoteExceptionCarriesTheMessage() {
        assertThatThrownBy(() -> client().call(NeptuneHandle.create(), "echo", 1, "fail", AccessMode.READ,
                new Echo("boom"), Reply.class))
                .isInstanceOf(RemoteMethodException.class)
                .hasMessageContaining("IllegalStateException")
                .hasMessageContaining("failing on purpose: boom");
    }
}
