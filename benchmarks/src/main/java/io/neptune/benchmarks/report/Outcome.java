package io.neptune.benchmarks.report;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * A row evaluated on the committed reports. Immutable.
 *
 * @param row the row
 * @param measured ours, or null when no committed report holds it ({@link Verdict#NOT_RUN})
 * @param verdict whether ours agrees with the claim
 */
public record Outcome(Row row, @Nullable Measured measured, Verdict verdict) {
    public Outcome {
        requireNonNull(row, "row");
        requireNonNull(verdict, "verdict");
        if ((measured == null) != (verdict == Verdict.NOT_RUN)) {
            throw new IllegalArgumentException("verdict: " + verdict + " (expected: NOT_RUN exactly when nothing was"
                    + " measured)");
        }
    }
}
