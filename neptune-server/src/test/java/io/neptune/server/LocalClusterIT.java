package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.server.cli.LocalCluster;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalCluster}, the node-process launcher of the demo and the benchmarks: it starts
 * {@code neptune node} from a config written by {@link NodeConfigFile#toYaml()}, does not start a
 * running node twice, and a node that crashed on its own is dropped and can be started again.
 */
class LocalClusterIT {
    @TempDir
    Path work;

    @Test
    void aCrashedNodeIsDroppedAndRestartsAsANewProcess() throws Exception {
        String cluster = "local-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 100_000;
        Path discovery = Files.createDirectories(work.resolve("discovery"));
        NodeConfigFile config = new NodeConfigFile(NodeConfig.builder().node(NodeId.of("node-1")).ioThreads(1)
                .dataDirectory(work.resolve("data")).adminPort(NodeConfig.NO_ADMIN_PORT)
                .membership(MembershipConfig.builder().cluster(cluster).discoveryDirectory(discovery).build()).build(),
                List.of(new NodeConfigFile.HostedService(EchoTestService.class.getName(),
                        HostingConfig.builder().workers(1).build())), List.of());
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
}
