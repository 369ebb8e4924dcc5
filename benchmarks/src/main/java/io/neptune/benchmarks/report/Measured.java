package io.neptune.benchmarks.report;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What a row's extractor computed from the committed reports. Immutable.
 *
 * @param value the number held against the claim (unused for a row without a number)
 * @param text ours as the table prints it, with what was measured where it differs from the
 *     dissertation's configuration
 * @param sources the reports the value came from, each a table whose run the row names
 */
public record Measured(double value, String text, List<Table> sources) {
    public Measured {
        requireNonNull(text, "text");
        sources = List.copyOf(sources);
        if (sources.isEmpty()) {
            throw new IllegalArgumentException("sources: none (expected: the reports the value came from)");
        }
    }

    /** A value read from one report. */
    public static Measured of(double value, String text, Table... sources) {
        return new Measured(value, text, List.of(sources));
    }
}
