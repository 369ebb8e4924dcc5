package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.ClusterSecret;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Reply;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Load polls with a cluster secret between real nodes (issue 23, polls): the secret goes from the
 * node config through to the node's load-index server and its client. Two nodes with the secret and
 * one without host echo; a caller with the secret calls it by random polling. Its polls to the
 * nodes with the secret are answered with MACs it verifies; those to the node without are answered
 * without one, dropped and counted, and the calls go on.
 */
class PollMacIT {
    private static final int CALLS = 30;

    @TempDir
    Path directory;

    @Test
    void aCallerWithTheSecretTakesOnlyTheRepliesOfNodesWithIt() throws IOException {
        Path file = directory.resolve("cluster-secret");
        Files.writeString(file, "the-cluster-secret-of-this-test\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        ClusterSecret secret = ClusterSecret.fromFile(file);

        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            cluster.add(withSecret(cluster.config("with-1", ClientConfig.defaults()), secret), PollMacIT::hostEcho);
            cluster.add(withSecret(cluster.config("with-2", ClientConfig.defaults()), secret), PollMacIT::hostEcho);
            cluster.add(cluster.config("without", ClientConfig.defaults()), PollMacIT::hostEcho);
            NeptuneNode caller = cluster.add(withSecret(cluster.config("caller", ClientConfig.defaults()), secret),
                    b -> b);
            await().atMost(Duration.ofSeconds(30)).until(() -> caller.replicasOf("echo", 0).size() == 3);

            for (int i = 0; i < CALLS; i++) {
                Reply reply = caller.client().call(NeptuneHandle.create(), "echo", i % 8, "echo", AccessMode.READ,
                        new Echo("hello"), Reply.class);
                assertThat(reply.text()).isEqualTo("hello");
            }

            String metrics = caller.metricsText();
            assertThat(counter(metrics, "neptune_client_polls_sent_total", "")).as("three candidates, all polled")
                    .isGreaterThanOrEqualTo(3 * CALLS);
            assertThat(counter(metrics, "neptune_client_poll_round_trip_seconds_count", ""))
                    .as("polls answered with a MAC that verified").isGreaterThan(0);
            assertThat(counter(metrics, "neptune_client_poll_replies_dropped_total", "reason=\"unauthenticated\""))
                    .as("the node without the secret answered without a MAC").isGreaterThan(0);
            assertThat(counter(metrics, "neptune_client_poll_replies_dropped_total", "reason=\"bad_mac\"")).isZero();
            assertThat(metrics).doesNotContain("the-cluster-secret");
        }
    }

    private static NodeConfig withSecret(NodeConfig config, ClusterSecret secret) {
        return config.toBuilder().security(config.security().toBuilder().clusterSecret(secret).build()).build();
    }

    /** The value of the first sample of {@code name} whose labels contain {@code label}. */
    private static long counter(String metrics, String name, String label) {
        Matcher line = Pattern.compile("(?m)^" + name + "\\{([^}]*)\\} ([0-9.E+]+)$").matcher(metrics);
        while (line.find()) {
            if (line.group(1).contains(label)) {
                return (long) Double.parseDouble(line.group(2));
            }
        }
        throw new AssertionError(name + "{" + label + "} not in the metrics:\n" + metrics);
    }

    private static NeptuneNode.Builder hostEcho(NeptuneNode.Builder builder) {
        return builder.host(new EchoTestService(), HostingConfig.all());
    }
}
