package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.server.cli.NeptuneCli;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real {@code neptune node --config} process takes settings from its environment and its system
 * properties over the file (docs/CONFIGURATION.md, "Environment variables and system properties"),
 * and refuses to start on a {@code NEPTUNE_*} variable that names no key.
 */
class ConfigOverlayIT {
    private static final Duration START = Duration.ofSeconds(120);

    @TempDir
    Path dir;

    private Path config() throws IOException {
        Path file = dir.resolve("node.yaml");
        Files.writeString(file, """
                node: file-node
                io-threads: 2
                admin-port: -1
                data-directory: %s
                membership:
                  cluster: overlay-%s
                  discovery-directory: %s
                """.formatted(dir.resolve("data"), UUID.randomUUID(), dir.resolve("discovery")));
        return file;
    }

    private static List<String> node(Path config, String... jvmOptions) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"));
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), NeptuneCli.class.getName(), "node",
                "--config", config.toString()));
        return command;
    }

    @Test
    void aNodeProcessTakesItsNameFromItsEnvironment() throws Exception {
        Path config = config();
        // a neptune.* property on the java command line (as NEPTUNE_JAVA_OPTS passes it) is a key too
        try (NodeProcess node = NodeProcess.start("env-node", node(config, "-Dneptune.admin-port=0"),
                dir.resolve("env-node.log"), Map.of("NEPTUNE_NODE", "env-node"))) {
            String ready = node.awaitLine(line -> line.startsWith("READY "), START, "READY");
            assertThat(ready).as("the variable wins over the file's node: file-node").startsWith("READY env-node ");
            node.terminate(); // its exit status is the graceful stop's business
        }
    }

    @Test
    void aNodeProcessRefusesAVariableThatNamesNoKeyNamingIt() throws Exception {
        Path config = config();
        try (NodeProcess node = NodeProcess.start("stray-variable", node(config), dir.resolve("stray.log"),
                Map.of("NEPTUNE_MEMBERSHIP_STAK", "udp"))) {
            String error = node.awaitLine(line -> line.startsWith("neptune: "), START, "the error line");
            assertThat(error).startsWith("neptune: environment variable NEPTUNE_MEMBERSHIP_STAK: names no config key")
                    .contains("NEPTUNE_MEMBERSHIP_STACK");
            assertThat(node.awaitExit(START)).as("the process exits").isTrue();
            assertThat(node.exitValue()).isEqualTo(2);
        }
    }
}
