package io.neptune.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.examples.echo.EchoService;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo's node processes: a node that crashed on its own is dropped and can be started again. */
class LocalClusterIT {
    @TempDir
    Path work;

    @Test
    void aCrashedNodeIsDroppedAndRestartsAsANewProcess() throws Exception {
        String cluster = "local-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 100_000;
        Path discovery = Files.createDirectories(work.resolve("discovery"));
        String config = """
                node: node-1
                io-threads: 1
                membership:
                  cluster: %s
                  discovery-directory: %s
                services:
                  - class: %s
                    workers: 1
                """.formatted(cluster, discovery, EchoService.class.getName());
        try (LocalCluster processes = new LocalCluster(work.resolve("config"), work.resolve("logs"))) {
            Process first = processes.start("node-1", config);
            assertThat(processes.start("node-1", config)).as("a running node is not started twice").isSameAs(first);

            first.destroyForcibly(); // a crash: nothing told the LocalCluster
            assertThat(first.waitFor(30, TimeUnit.SECONDS)).isTrue();
            assertThat(processes.processes()).doesNotContainKey("node-1");

            Process second = processes.start("node-1", config);
            assertThat(second.isAlive()).isTrue();
            assertThat(second.pid()).isNotEqualTo(first.pid());
            assertThat(processes.processes().get("node-1")).isSameAs(second);
        }
    }
}
