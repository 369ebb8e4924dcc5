package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Reply;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * A client outside the cluster ({@link NeptuneClient#connect(ClientConfig)}) against real nodes: it
 * learns the yellow page from a seed over the request port, keeps following it when its source
 * leaves, and says what every seed answered when none gives it a page. The namespace test with no
 * JGroups on the client's class path is {@code OutsideClientIT} in the examples.
 */
class ThinClientIT {
    private static final Duration FOLLOW_LIMIT = Duration.ofSeconds(15);

    private static String seedOf(NeptuneNode node) {
        InetSocketAddress address = node.requestAddress();
        return address.getHostString() + ":" + address.getPort();
    }

    private static ClientConfig seeds(String... seeds) {
        return ClientConfig.builder().seeds(seeds).directoryRefresh(Duration.ofMillis(200)).build();
    }

    @Test
    void aThinClientLearnsEveryNodeFromOneSeedAndFollowsThePageWhenItsSourceLeaves() {
        try (MiniCluster cluster = MiniCluster.start(3, b -> b.host(new EchoTestService(), HostingConfig.all()))) {
            cluster.awaitNodes(3);
            try (NeptuneClient client = NeptuneClient.connect(seeds(seedOf(cluster.node(0))))) {
                assertThat(client.partitions("echo")).isEqualTo(8);
                for (BalancingPolicy policy : BalancingPolicy.values()) { // the polling ones poll the nodes over UDP
                    CallOptions options = CallOptions.defaults().toBuilder().policy(policy).build();
                    assertThat(client.call(NeptuneHandle.create(), "echo", 5, "echo", AccessMode.READ, new Echo(
                            policy.name()), Reply.class, options).text()).as(policy.name()).isEqualTo(policy.name());
                }
                Set<String> answeredBy = new HashSet<>();
                MiniCluster.await("answers from all 3 nodes", FOLLOW_LIMIT, () -> {
                    answeredBy.add(echo(client, 0).node());
                    return answeredBy.size() == 3;
                });

                cluster.node(0).close(); // the seed, and the client's source: it must find another
                MiniCluster.await("ten echoes in a row answered by the nodes left", FOLLOW_LIMIT,
                        () -> !client.responsesByNode().isEmpty() && echoesAvoid(client, cluster.node(0).node()));
                NeptuneNode added = cluster.add("late", ClientConfig.defaults(),
                        b -> b.host(new EchoTestService(), HostingConfig.all()));
                MiniCluster.await("an answer from the node added after the seed left", FOLLOW_LIMIT,
                        () -> echo(client, 1).node().equals(added.node().value()));
            }
        }
    }

    /** Whether ten echoes in a row came from nodes other than {@code gone}. */
    private static boolean echoesAvoid(NeptuneClient client, NodeId gone) {
        return IntStream.range(0, 10).allMatch(i -> !echo(client, i % 8).node().equals(gone.value()));
    }

    private static Reply echo(NeptuneClient client, int partition) {
        return client.call(NeptuneHandle.create(), "echo", partition, "echo", AccessMode.READ, new Echo("hi"),
                Reply.class);
    }

    @Test
    void aThinClientRecordsItsCallsInTheApplicationsRegistryAndLeavesItOpen() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (MiniCluster cluster = MiniCluster.start(1, b -> b.host(new EchoTestService(), HostingConfig.all()))) {
            try (NeptuneClient client = NeptuneClient.connect(seeds(seedOf(cluster.node(0))), SecurityConfig.disabled(),
                    registry)) {
                echo(client, 2);
            }
            assertThat(registry.find("neptune.client.calls").tag("outcome", "ok").timers())
                    .extracting(t -> t.count()).containsExactly(1L);
            assertThat(registry.isClosed()).isFalse();
        }
    }

    @Test
    void withNoSeedAnsweringConnectSaysWhatEachSeedDid() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        ClientConfig config = ClientConfig.builder().seeds("127.0.0.1:" + closedPort, "no-such-host.invalid:7000")
                .timeout(Duration.ofSeconds(2)).build();
        assertThatThrownBy(() -> NeptuneClient.connect(config))
                .isInstanceOf(NeptuneException.class)
                .hasMessageContaining("no node answered with the yellow page within 2000 ms")
                .hasMessageContaining("seed 127.0.0.1:" + closedPort + ": ")
                .hasMessageContaining("seed no-such-host.invalid:7000: its name resolves to no address");
        assertThatThrownBy(() -> ClientConfig.builder().seeds("neptune-headless").build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("seed 'neptune-headless' (expected: host:port");
        assertThatThrownBy(() -> NeptuneClient.connect(ClientConfig.defaults()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("seeds: empty");
    }

    @Test
    void withTlsTheSeedMustPresentANodeCertificateAndCallsGoOverTls() {
        try (MiniCluster cluster = MiniCluster.startWithTls(2,
                b -> b.host(new EchoTestService(), HostingConfig.all()))) {
            cluster.awaitNodes(2);
            SecurityConfig security = cluster.certificates().required(new Principal(Principal.Role.CLIENT, "shop"));
            try (NeptuneClient client = NeptuneClient.connect(seeds(seedOf(cluster.node(0))), security)) {
                assertThat(echo(client, 3).text()).isEqualTo("hi");
            }
            assertThatThrownBy(() -> NeptuneClient.connect(ClientConfig.builder().seeds(seedOf(cluster.node(0)))
                    .timeout(Duration.ofSeconds(2)).build()))
                    .as("a plaintext client gets no page from a node that requires TLS")
                    .isInstanceOf(NeptuneException.class).hasMessageContaining("no node answered");
        }
    }
}
