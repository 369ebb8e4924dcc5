package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.neptune.core.MembershipConfig;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.server.cli.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalCluster}, the node-process launcher of the demo and the benchmarks: it starts
 * {@code neptune node} from a config written by {@link NodeConfigFile#toYaml()}, does not start a
 * running node twice, a node that crashed on its own is dropped and can be started again, and a
 * node stopped while it starts says that, not that it failed.
 */
class LocalClusterIT {
    @TempDir
    Path work;

    @Test
    void aCrashedNodeIsDroppedAndRestartsAsANewProcess() throws Exception {
        NodeConfigFile config = echoNode();
        try (LocalCluster processes = new LocalCluster(work.resolve("config"), work.resolve("logs"),
                List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"))) {
            Process first = processes.start(config);
            assertThat(processes.start(config)).as("a running node is not started twice").isSameAs(first);
            assertThat(NodeConfigFile.load(work.resolve("config/node-1.yaml"))).as("the config the node ran")
                    .isEqualTo(config);

            first.destroyForcibly(); // a crash: nothing told the LocalCluster
            assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(processes.processes()).doesNotContainKey("node-1");

            Process second = processes.start(config);
            assertThat(second.isAlive()).isTrue();
            assertThat(second.pid()).isNotEqualTo(first.pid());
            assertThat(processes.processes().get("node-1")).isSameAs(second);
        }
    }

    @Test
    void aNodeStillStartingWhenTheClusterStopsSaysSo() throws Exception {
        NodeConfigFile config = echoNode();
        LocalCluster processes = new LocalCluster(work.resolve("config"), work.resolve("logs"),
                List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        CompletableFuture<Process> start = CompletableFuture.supplyAsync(() -> processes.start(config));
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> processes.processes().containsKey("node-1"));
        } finally {
            processes.close(); // while the node's JVM still starts: its READY line takes seconds
        }
        assertThatThrownBy(() -> start.get(60, TimeUnit.SECONDS)).hasCauseInstanceOf(NeptuneException.class)
                .cause().hasMessageStartingWith("node node-1 was still starting when the cluster stopped; see ");
    }

    /** A node hosting the echo service, discovering its cluster through a directory of this test. */
    private NodeConfigFile echoNode() throws java.io.IOException {
        String cluster = "local-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 100_000;
        Path discovery = Files.createDirectories(work.resolve("discovery"));
        return new NodeConfigFile(NodeConfig.builder().node(NodeId.of("node-1")).ioThreads(1)
                .dataDirectory(work.resolve("data")).adminPort(NodeConfig.NO_ADMIN_PORT)
                .membership(MembershipConfig.builder().cluster(cluster).discoveryDirectory(discovery).build()).build(),
                List.of(new NodeConfigFile.HostedService(EchoTestService.class.getName(),
                        HostingConfig.builder().workers(1).build())), List.of());
    }
}
