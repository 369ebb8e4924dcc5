package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The example configs the distribution ships in {@code config/} (src/dist/config) parse with every
 * key known, and name the README's service; DistributionIT starts the three node configs for real.
 */
class DistributionConfigTest {
    private static final Path CONFIG = Path.of("src/dist/config");

    @Test
    void everyShippedNodeConfigParses() throws IOException {
        List<Path> files;
        try (Stream<Path> list = Files.list(CONFIG)) {
            files = list.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
        }
        assertThat(files).extracting(p -> p.getFileName().toString())
                .contains("node-1.yaml", "node-2.yaml", "node-3.yaml", "cluster-tcp.yaml");
        for (Path file : files) {
            NodeConfigFile config = NodeConfigFile.load(file);   // throws ConfigException naming a bad key
            assertThat(config.services()).as(file.toString()).extracting(NodeConfigFile.HostedService::className)
                    .containsExactly("com.example.counter.CounterService");
        }
    }

    @Test
    void theThreeLocalNodesDifferOnlyInNameAndDataDirectory() {
        List<NodeConfig> nodes = Stream.of(1, 2, 3).map(i -> NodeConfigFile.load(CONFIG.resolve("node-" + i + ".yaml")).node())
                .toList();
        assertThat(nodes).extracting(n -> n.node().toString()).containsExactly("node-1", "node-2", "node-3");
        assertThat(nodes).extracting(NodeConfig::dataDirectory).doesNotHaveDuplicates();
        assertThat(nodes).extracting(NodeConfig::membership).containsOnly(nodes.get(0).membership());
    }
}
