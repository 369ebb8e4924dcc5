package io.neptune.benchmarks.report;

import static java.util.Objects.requireNonNull;

import java.util.Locale;

/**
 * One claim of the dissertation, as data: the figure it belongs to, the claim in words, the number
 * it gives and how ours is held against that number. Immutable; build it with the static factories
 * and change the tolerance with {@link #tolerance(double)}.
 *
 * @param figure the figure or table, e.g. "Fig. 3.2"
 * @param claim the claim in words, and what ours measures
 * @param comparison how ours is compared with {@code number}
 * @param number the dissertation's number (a bound for {@link Comparison#AT_MOST}, a threshold for a
 *     direction); unused for {@link Comparison#NONE}
 * @param unit the number's unit as printed after it ("×", "%", " µs"), possibly empty
 * @param neutral the value that means "no effect" (1 for a ratio, 0 for a difference), against which
 *     {@link Comparison#ABOUT} checks the direction
 * @param tolerance the fraction ours may be off the number, {@value #DEFAULT_TOLERANCE} unless the row
 *     says otherwise
 */
public record Claim(String figure, String claim, Comparison comparison, double number, String unit, double neutral,
        double tolerance) {
    /** Default for {@link #tolerance()}: within 20%, as issue 27 asks. */
    public static final double DEFAULT_TOLERANCE = 0.2;

    public Claim {
        requireNonNull(figure, "figure");
        requireNonNull(claim, "claim");
        requireNonNull(comparison, "comparison");
        requireNonNull(unit, "unit");
        if (!(tolerance >= 0 && tolerance < 1)) {
            throw new IllegalArgumentException("tolerance: " + tolerance + " (expected: >= 0 and < 1)");
        }
    }

    /** "About {@code number} {@code unit}", same direction from {@code neutral} and within 20%. */
    public static Claim about(String figure, String claim, double number, String unit, double neutral) {
        return new Claim(figure, claim, Comparison.ABOUT, number, unit, neutral, DEFAULT_TOLERANCE);
    }

    /** A bound the dissertation states (ours at most {@code number}), with no tolerance beyond it. */
    public static Claim atMost(String figure, String claim, double number, String unit) {
        return new Claim(figure, claim, Comparison.AT_MOST, number, unit, number, 0);
    }

    /** A floor (ours at least {@code number}), within 20%. */
    public static Claim atLeast(String figure, String claim, double number, String unit) {
        return new Claim(figure, claim, Comparison.AT_LEAST, number, unit, number, DEFAULT_TOLERANCE);
    }

    /** A direction only: ours above {@code threshold}. */
    public static Claim above(String figure, String claim, double threshold, String unit) {
        return new Claim(figure, claim, Comparison.ABOVE, threshold, unit, threshold, 0);
    }

    /** A direction only: ours below {@code threshold}. */
    public static Claim below(String figure, String claim, double threshold, String unit) {
        return new Claim(figure, claim, Comparison.BELOW, threshold, unit, threshold, 0);
    }

    /** A row with no number of the dissertation's to compare (the Summary's rows beyond it). */
    public static Claim none(String figure, String aim) {
        return new Claim(figure, aim, Comparison.NONE, 0, "", 0, 0);
    }

    /** This claim with another tolerance, which the table then states. */
    public Claim tolerance(double fraction) {
        return new Claim(figure, claim, comparison, number, unit, neutral, fraction);
    }

    /** Whether {@code ours} agrees; fails for a claim without a number. */
    public boolean agrees(double ours) {
        return comparison.agrees(ours, number, neutral, tolerance);
    }

    /** The dissertation's number as the table prints it, e.g. "≤ 1.2×", or "—" when there is none. */
    public String numberText() {
        return comparison == Comparison.NONE ? "—" : comparison.symbol() + " " + format(number) + unit;
    }

    /** The tolerance as the table prints it, e.g. "same direction, within 20%". */
    public String toleranceText() {
        return comparison.describe(tolerance);
    }

    /**
     * A measured or claimed number with at most 3 significant digits, as the bench reports print them
     * (no digits after the point from 100 up), without trailing zeros: 1.42, 11.7, 1171, 0.5.
     */
    public static String format(double value) {
        if (Math.abs(value) >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        String text = String.format(Locale.ROOT, "%.3g", value);
        if (text.contains(".") && !text.contains("e")) {
            text = text.replaceAll("0+$", "").replaceAll("\\.$", "");
        }
        return text.equals("-0") ? "0" : text;
    }
}
