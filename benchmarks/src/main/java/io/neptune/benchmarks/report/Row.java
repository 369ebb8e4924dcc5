package io.neptune.benchmarks.report;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * One row of a generated table: a claim, the extractor that computes ours from the committed
 * reports, and the one-line reason printed when they do not agree. Immutable.
 *
 * @param claim the dissertation's claim and number
 * @param extractor computes ours; empty when no committed report holds the figure
 * @param whyNot the reason the table prints when ours does not agree (from the section's discussion)
 * @param notRun what the table prints when no committed report holds the figure
 * @param reportless whether the figure was measured but its bench writes no report (the table then
 *     says "no report" instead of "not run")
 */
public record Row(Claim claim, Extractor extractor, String whyNot, String notRun, boolean reportless) {
    /** Computes ours from the committed reports, or nothing when they do not hold it. */
    @FunctionalInterface
    public interface Extractor {
        /** Ours, read from {@code data}; empty when {@code data} lacks the report or the rows it needs. */
        Optional<Measured> measure(BenchData data);
    }

    public Row {
        requireNonNull(claim, "claim");
        requireNonNull(extractor, "extractor");
        requireNonNull(whyNot, "whyNot");
        requireNonNull(notRun, "notRun");
    }

    /** A row whose reason for disagreeing is {@code whyNot}, and that says "not run" without data. */
    public static Row of(Claim claim, Extractor extractor, String whyNot) {
        return new Row(claim, extractor, whyNot, "no committed report holds it", false);
    }

    /** This row with what the table says when no report holds the figure. */
    public Row notRun(String why) {
        return new Row(claim, extractor, whyNot, why, false);
    }

    /** This row for a figure that was measured by something that writes no report, and where it is told. */
    public Row reportless(String where) {
        return new Row(claim, extractor, whyNot, where, true);
    }

    /** Ours and the verdict, from {@code data}. */
    public Outcome evaluate(BenchData data) {
        Optional<Measured> measured = extractor.measure(data);
        if (measured.isEmpty()) {
            return new Outcome(this, null, Verdict.NOT_RUN);
        }
        if (claim.comparison() == Comparison.NONE) {
            return new Outcome(this, measured.get(), Verdict.NO_CLAIM);
        }
        return new Outcome(this, measured.get(),
                claim.agrees(measured.get().value()) ? Verdict.AGREES : Verdict.DISAGREES);
    }
}
