package io.neptune.examples.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.ClientConfig;
import io.neptune.examples.blast.BlastDatabase;
import io.neptune.examples.gateway.Http.Reply;
import io.neptune.server.HostingConfig;
import io.neptune.server.MiniCluster;
import io.neptune.server.NeptuneNode;
import io.neptune.server.process.ProcessConfig;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code /api/blast} where BLAST cannot run, on any machine: first no node hosts the service, then
 * a node hosts it with a {@code blastn} that is not installed. Both answer 503 with a message that
 * says what to install.
 */
class BlastNotInstalledIT {
    private static final String MISSING = "/nonexistent/neptune-blast-it/blastn";

    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void answers503SayingToInstallBlast() {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode gatewayNode = cluster.add("gateway", ClientConfig.defaults(), b -> b);
            try (HttpGateway gateway = HttpGateway.builder(gatewayNode).port(0).start()) {
                Http http = new Http("http://127.0.0.1:" + gateway.port(), Optional.empty());
                assertThat(http.get("/api/blast").json().get("available").asBoolean()).isFalse();
                Reply notHosted = http.post("/api/blast", "{\"sequence\":\"ACGTACGTACGT\"}");
                assertThat(notHosted.status()).as(notHosted.toString()).isEqualTo(503);
                assertThat(notHosted.error()).startsWith("BLAST is not available: no node hosts the 'blast' service")
                        .contains("apt-get install ncbi-blast+");

                ProcessConfig broken = ProcessConfig.builder(BlastDatabase.SERVICE, List.of(MISSING, "-db", "part-0"))
                        .build();
                cluster.add("node-0", ClientConfig.defaults(), b -> b.hostProcess(broken,
                        HostingConfig.builder().workers(1).build()));
                await().atMost(Duration.ofSeconds(60)).until(() -> gatewayNode.client().partitions("blast") == 1);
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    Reply notInstalled = http.post("/api/blast", "{\"sequence\":\"ACGTACGTACGT\"}");
                    assertThat(notInstalled.status()).as(notInstalled.toString()).isEqualTo(503);
                    assertThat(notInstalled.error()).startsWith("BLAST is not available: blastn could not start on"
                            + " node-0 (install NCBI BLAST+ there; on Debian 'apt-get install ncbi-blast+')")
                            .contains(MISSING);
                });
                assertThat(http.get("/api/blast").json().get("available").asBoolean()).isTrue();
            }
        }
    }
}
