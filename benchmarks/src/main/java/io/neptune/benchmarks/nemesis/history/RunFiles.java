package io.neptune.benchmarks.nemesis.history;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files of a saved run directory, and how to read and write them (format in the package
 * documentation): {@value #HISTORY}, {@value #FINAL_STATE} and {@value #GUARANTEES}.
 *
 * <p>Thread-safety: stateless.
 */
public final class RunFiles {
    /** The history, JSON Lines, written by {@link HistoryWriter}. */
    public static final String HISTORY = "history.jsonl";
    /** The {@link FinalState}, one JSON object. */
    public static final String FINAL_STATE = "final-state.json";
    /** The {@link Guarantees} the run promised, one JSON object. */
    public static final String GUARANTEES = "guarantees.json";

    private static final Logger logger = LoggerFactory.getLogger(RunFiles.class);

    private RunFiles() {}

    /**
     * Reads a history file. A last line that does not parse is ignored with a warning (a harness
     * killed while writing it); any other bad line fails the read.
     *
     * @throws IOException if the file cannot be read, or a line (named by its number) is invalid
     */
    public static History readHistory(Path file) throws IOException {
        List<Op> ops = new ArrayList<>();
        String bad = null;
        int badLine = 0;
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            int number = 0;
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                number++;
                if (bad != null) {
                    throw new IOException(file + " line " + badLine + ": " + bad);
                }
                if (line.isBlank()) {
                    continue;
                }
                try {
                    ops.add(HistoryJson.fromLine(line));
                } catch (IllegalArgumentException e) {
                    bad = e.getMessage();
                    badLine = number;
                }
            }
        }
        if (bad != null) {
            logger.warn("{}: ignoring its torn last line {}: {}", file, badLine, bad);
        }
        try {
            return History.of(ops);
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    /** Writes a whole history to {@code file}, e.g. one rebuilt from per-process buffers. */
    public static void writeHistory(Path file, History history) throws IOException {
        try (HistoryWriter writer = HistoryWriter.open(file)) {
            history.ops().forEach(writer::write);
        }
    }

    /** Reads a {@value #FINAL_STATE} file. */
    public static FinalState readFinalState(Path file) throws IOException {
        return HistoryJson.MAPPER.readValue(file.toFile(), FinalState.class);
    }

    /** Writes a {@value #FINAL_STATE} file. */
    public static void writeFinalState(Path file, FinalState state) throws IOException {
        HistoryJson.MAPPER.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), state);
    }

    /** Reads a {@value #GUARANTEES} file. */
    public static Guarantees readGuarantees(Path file) throws IOException {
        return HistoryJson.MAPPER.readValue(file.toFile(), Guarantees.class);
    }

    /** Writes a {@value #GUARANTEES} file. */
    public static void writeGuarantees(Path file, Guarantees guarantees) throws IOException {
        HistoryJson.MAPPER.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), guarantees);
    }
}
