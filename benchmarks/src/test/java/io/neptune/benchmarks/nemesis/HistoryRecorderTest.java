package io.neptune.benchmarks.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The history file is the contract with the checkers: one JSON object per line with fixed fields. */
class HistoryRecorderTest {
    @TempDir
    Path directory;

    @Test
    void writesOneLinePerEventWithEveryFieldInOrder() throws Exception {
        Path file = directory.resolve("history.jsonl");
        try (HistoryRecorder history = new HistoryRecorder(file, System.nanoTime())) {
            history.invoke(3, "append", "k7", 3, 123L, "s3-0");
            history.ok(3, "append", "k7", 3, 123L, "node-2", 17, "s3-0");
            history.invoke(1, "read", "k7", 3, null, "s1-0");
            history.ok(1, "read", "k7", 3, List.of(1L, 2L, 123L), "node-1", 17, "s1-0");
            history.invoke(4, "append", "k1", 5, 124L, "s4-0");
            history.failed(4, true, "append", "k1", 5, 124L, "s4-0", "DeadlineExceededException: late");
            history.invoke(5, "read", "k1", 5, null, "s5-0");
            history.failed(5, false, "read", "k1", 5, null, "s5-0", "NoReplicaAvailableException: none");
        }
        List<String> lines = Files.readAllLines(file);
        assertThat(lines).hasSize(8);
        assertThat(lines.get(0)).isEqualTo("{\"index\":0,\"process\":3,\"type\":\"invoke\",\"f\":\"append\","
                + "\"key\":\"k7\",\"partition\":3,\"value\":123,\"time\":" + time(lines.get(0)) + ",\"node\":null,"
                + "\"version\":null,\"session\":\"s3-0\",\"error\":null}");
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> events = new ArrayList<>();
        for (String line : lines) {
            events.add(json.readTree(line));
        }
        assertThat(events).extracting(e -> e.get("type").asText())
                .containsExactly("invoke", "ok", "invoke", "ok", "invoke", "info", "invoke", "fail");
        assertThat(events).extracting(e -> e.get("index").asLong()).containsExactly(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L);
        assertThat(events).extracting(e -> e.get("time").asLong()).isSorted();
        assertThat(events.get(1).get("node").asText()).isEqualTo("node-2");
        assertThat(events.get(1).get("version").asLong()).isEqualTo(17);
        assertThat(events.get(3).get("value").toString()).isEqualTo("[1,2,123]");
        assertThat(events.get(5).get("value").asLong()).isEqualTo(124);
        assertThat(events.get(5).get("error").asText()).startsWith("DeadlineExceededException");
        assertThat(events.get(7).get("value").isNull()).isTrue();
    }

    @Test
    void eventsAfterCloseAreDropped() throws Exception {
        Path file = directory.resolve("history.jsonl");
        HistoryRecorder history = new HistoryRecorder(file, System.nanoTime());
        history.invoke(0, "read", "k0", 1, null, "s0-0");
        history.close();
        history.ok(0, "read", "k0", 1, List.of(), "node-1", 0, "s0-0");
        assertThat(Files.readAllLines(file)).hasSize(1);
        assertThat(history.size()).isEqualTo(1);
    }

    private static String time(String line) {
        int from = line.indexOf("\"time\":") + 7;
        return line.substring(from, line.indexOf(',', from));
    }
}
