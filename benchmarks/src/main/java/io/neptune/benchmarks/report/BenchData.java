package io.neptune.benchmarks.report;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The committed reports under one directory ({@code docs/benchmarks/}), read on demand.
 *
 * <p>A report is read from its JSON summary ({@code <name>.json}, written by {@code Report.write}
 * since issue 27: the run's date, machine and command and the table's rows) when there is one, else
 * from {@code <name>.csv} with the run taken from the header lines of {@code <name>.md}. Every report
 * committed before issue 27 has only the CSV and the Markdown file, so today every row reads those.
 * Thread-safety: not thread-safe; use it on one thread.
 */
public final class BenchData {
    /** Reports whose cells held unquoted commas when they were written: the column that holds them. */
    private static final Map<String, String> WIDENED_COLUMNS = Map.of("micro", "case");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Path directory;
    private final Map<String, Optional<Table>> tables = new HashMap<>();

    private BenchData(Path directory) {
        this.directory = directory;
    }

    /** The reports in {@code directory}. */
    public static BenchData in(Path directory) {
        return new BenchData(requireNonNull(directory, "directory"));
    }

    /** The directory the reports are read from. */
    public Path directory() {
        return directory;
    }

    /** The report {@code name}, or empty when the directory holds neither its JSON summary nor its CSV. */
    public Optional<Table> table(String name) {
        return tables.computeIfAbsent(name, this::read);
    }

    private Optional<Table> read(String name) {
        try {
            Path json = directory.resolve(name + ".json");
            if (Files.isRegularFile(json)) {
                return Optional.of(fromJson(name, JSON.readTree(json.toFile())));
            }
            Path csv = directory.resolve(name + ".csv");
            if (!Files.isRegularFile(csv)) {
                return Optional.empty();
            }
            Path md = directory.resolve(name + ".md");
            RunInfo run = Files.isRegularFile(md) ? RunInfo.fromMarkdown(Files.readString(md)) : RunInfo.UNKNOWN;
            return Optional.of(Table.parse(name, Files.readString(csv), run,
                    Optional.ofNullable(WIDENED_COLUMNS.get(name))));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the report " + name + " in " + directory, e);
        }
    }

    /** The shape {@code Report.write} gives a summary: date, machine, command, columns, rows of cells. */
    static Table fromJson(String name, JsonNode summary) {
        RunInfo run = new RunInfo(text(summary, "date"), text(summary, "machine"), text(summary, "command"));
        List<String> columns = new ArrayList<>();
        summary.path("columns").forEach(column -> columns.add(column.asText()));
        List<Map<String, String>> rows = new ArrayList<>();
        for (JsonNode cells : summary.path("rows")) {
            if (cells.size() != columns.size()) {
                throw new IllegalArgumentException(name + ".json: a row of " + cells.size() + " cells (expected: "
                        + columns.size() + ")");
            }
            Map<String, String> row = new LinkedHashMap<>();
            for (int c = 0; c < columns.size(); c++) {
                row.put(columns.get(c), cells.get(c).asText());
            }
            rows.add(row);
        }
        return new Table(name, columns, rows, run);
    }

    private static String text(JsonNode summary, String field) {
        JsonNode value = summary.get(field);
        return value == null ? "unknown" : value.asText();
    }
}
