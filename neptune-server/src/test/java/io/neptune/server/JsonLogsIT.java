package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.ReplicaRole;
import io.neptune.server.LoggingTestService.Note;
import io.neptune.server.LoggingTestService.Noted;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code neptune node} process started with {@code NEPTUNE_LOG_FORMAT=json} (what the launchers'
 * {@code --log-format json} sets) writes its log as JSON lines, one object per line, the lines of a
 * request with its MDC keys; and with one SLF4J provider on its class path, no warning about several.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class JsonLogsIT {
    private static final String NODE = "node-1";
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)   // kept for the post-mortem when the test fails
    Path work;

    @Test
    void aNodeStartedWithTheJsonFormatWritesEachLogLineAsAJsonObjectWithItsRequestsKeys() throws IOException {
        try (ReplicatedProcesses cluster = new ReplicatedProcesses(work, false)) {
            cluster.useNodeCommand();
            cluster.jvmOptions("-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
            cluster.define(NODE, LoggingTestService.class, 0, 1);
            cluster.environment(NODE, Map.of("NEPTUNE_LOG_FORMAT", "json"));
            NodeProcess node = cluster.start(NODE);
            ReplicatedProcesses.await(() -> cluster.observer().replicaRoles("logged", 1).containsValue(
                    ReplicaRole.PRIMARY), Duration.ofSeconds(60), NODE + " primary of logged#1");

            Noted noted = cluster.observer().client().call(NeptuneHandle.create(), "logged", 1, "note",
                    AccessMode.READ, new Note("j1"), Noted.class);
            assertThat(noted.text()).isEqualTo("j1");
            String logged = node.awaitLine(l -> l.contains("\"formattedMessage\":\"noted j1\""),
                    Duration.ofSeconds(30), "the service's line of the call");

            JsonNode line = parse(logged);
            assertThat(line.path("level").asText()).isEqualTo("INFO");
            assertThat(line.path("loggerName").asText()).isEqualTo(LoggingTestService.class.getName());
            JsonNode mdc = line.path("mdc");
            assertThat(mdc.path("node").asText()).isEqualTo(NODE);
            assertThat(mdc.path("service").asText()).isEqualTo("logged");
            assertThat(mdc.path("partition").asText()).isEqualTo("1");
            assertThat(mdc.path("requestId").asText()).matches("[0-9]+");

            List<String> transcript = Files.readAllLines(work.resolve("logs").resolve(NODE + "-1.log")); // all of it
            assertThat(transcript).as("the node's own lines are JSON too%s", node.details())
                    .anyMatch(l -> l.startsWith("{") && parse(l).path("loggerName").asText().startsWith("io.neptune."));
            assertThat(transcript).as("no text log line%s", node.details())
                    .noneMatch(l -> l.matches("^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} .*"));
            assertThat(transcript).as("one SLF4J provider%s", node.details()).noneMatch(l -> l.startsWith("SLF4J"));
            transcript.stream().filter(l -> l.startsWith("{")).forEach(JsonLogsIT::parse); // each a whole object
        }
    }

    private static JsonNode parse(String line) {
        try {
            return JSON.readTree(line);
        } catch (IOException e) {
            throw new UncheckedIOException("not a JSON object: " + line, e);
        }
    }
}
