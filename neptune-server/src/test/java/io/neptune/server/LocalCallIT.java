package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Reply;
import org.junit.jupiter.api.Test;

/** A call whose chosen replica is the calling node goes through its queue without the network. */
class LocalCallIT {
    @Test
    void callToOwnPartitionStaysInProcess() {
        try (MiniCluster cluster = MiniCluster.start(1, b -> b.host(new EchoTestService(), HostingConfig.all()))) {
            NeptuneNode node = cluster.node(0);
            for (int i = 0; i < 50; i++) {
                Reply reply = node.client().call(NeptuneHandle.create(), "echo", i % 8, "echo", AccessMode.READ,
                        new Echo("local"), Reply.class);
                assertThat(reply.node()).isEqualTo("node-0");
            }
            assertThat(node.served().get("echo")).isEqualTo(50);
            assertThat(node.inboundConnections()).as("TCP connections to the request server").isZero();
        }
    }
}
