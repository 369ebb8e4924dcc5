package io.neptune.benchmarks.nemesis;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a run's {@code history.jsonl} holds, counted in one pass: completions by function and type,
 * completions per second (for the timeline), and every key with its partition (for the final
 * reads). Not a checker: it judges nothing.
 *
 * <p>Thread-safety: immutable once read.
 *
 * @param lines lines in the history
 * @param counts completions by {@code "<f> <type>"}, e.g. {@code "append info"}
 * @param perSecond completions per second since the origin: ok, fail, info
 * @param keys every key with its partition, sorted by key
 */
record HistorySummary(long lines, Map<String, Long> counts, List<long[]> perSecond, Map<String, Integer> keys) {
    /** Reads {@code history}; a truncated last line (a killed client) is ignored. */
    static HistorySummary read(Path history) throws IOException {
        ObjectMapper json = new ObjectMapper();
        long lines = 0;
        Map<String, Long> counts = new TreeMap<>();
        List<long[]> perSecond = new ArrayList<>();
        Map<String, Integer> keys = new TreeMap<>();
        if (!Files.exists(history)) {
            return new HistorySummary(0, counts, perSecond, keys);
        }
        try (BufferedReader in = Files.newBufferedReader(history, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                JsonNode event;
                try {
                    event = json.readTree(line);
                } catch (IOException e) {
                    continue;
                }
                lines++;
                keys.put(event.get("key").asText(), event.get("partition").asInt());
                String type = event.get("type").asText();
                if (type.equals("invoke")) {
                    continue;
                }
                counts.merge(event.get("f").asText() + " " + type, 1L, Long::sum);
                int second = (int) (event.get("time").asLong() / 1_000_000_000L);
                while (perSecond.size() <= second) {
                    perSecond.add(new long[3]);
                }
                perSecond.get(second)[switch (type) {
                    case "ok" -> 0;
                    case "fail" -> 1;
                    default -> 2;
                }]++;
            }
        }
        return new HistorySummary(lines, counts, perSecond, keys);
    }

    /** Completions of {@code f} ({@code append} or {@code read}) with {@code type}. */
    long count(String f, String type) {
        return counts.getOrDefault(f + " " + type, 0L);
    }

    /** Completions of any function with {@code type}. */
    long count(String type) {
        return count("append", type) + count("read", type);
    }
}
