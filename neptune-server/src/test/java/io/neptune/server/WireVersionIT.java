package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.ClientConfig;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.Metadata;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.core.internal.wire.WireFormat;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A real node speaks wire version 2: it answers a connection's hello with its version, and serves a
 * request that carries metadata in a version-2 frame, over the request port.
 */
class WireVersionIT {
    @Test
    void aNodeAnswersTheHelloWithVersionTwoAndServesARequestWithMetadata() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            cluster.add("node-1", ClientConfig.defaults(), b -> b.host(new EchoTestService(), HostingConfig.builder().build()));
            NeptuneNode observer = cluster.add("observer", ClientConfig.defaults(), b -> b);
            DefaultNeptuneClient client = (DefaultNeptuneClient) observer.client();
            cluster.awaitNodes(1);

            ResponseMessage hello = client.sendTo(NodeId.of("node-1"), new RequestMessage(0, WireFormat.HELLO_SERVICE, 0,
                    WireFormat.HELLO_METHOD, AccessMode.READ, 5_000, 0, RequestId.NONE, new byte[0]), 0)
                    .get(15, TimeUnit.SECONDS);
            assertThat(hello.status()).isEqualTo(Status.OK);
            assertThat(hello.version()).isEqualTo(WireFormat.LATEST);

            RequestMessage traced = new RequestMessage(0, "echo", 1, "echo", AccessMode.READ, 5_000, 0, RequestId.NONE,
                    Json.mapper().writeValueAsBytes(new EchoTestService.Echo("hi")))
                    .withMetadata(Metadata.NONE.with("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"));
            ResponseMessage answer = client.sendTo(NodeId.of("node-1"), traced, 1).get(15, TimeUnit.SECONDS);
            assertThat(answer.status()).as(answer.errorMessage()).isEqualTo(Status.OK);
            assertThat(Json.mapper().readValue(answer.payload(), EchoTestService.Reply.class).text()).isEqualTo("hi");
        }
    }
}
