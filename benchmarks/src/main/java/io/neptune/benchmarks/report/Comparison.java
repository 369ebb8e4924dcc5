package io.neptune.benchmarks.report;

/**
 * How a measured value is held against the dissertation's number {@code d}, with the row's
 * tolerance {@code t} (a fraction: 0.2 is the default "within 20%").
 */
public enum Comparison {
    /**
     * "About d": ours lies on the same side of the neutral value as d (the direction: faster or
     * slower, more or less), and within t × |d| of d.
     */
    ABOUT("≈"),
    /** "At most d" (a bound the dissertation states): ours ≤ d × (1 + t). */
    AT_MOST("≤"),
    /** "At least d": ours ≥ d × (1 − t). */
    AT_LEAST("≥"),
    /** A direction only ("more than d"): ours > d; the tolerance is not used. */
    ABOVE(">"),
    /** A direction only ("less than d"): ours < d; the tolerance is not used. */
    BELOW("<"),
    /** No number to hold ours against: a row of the Summary beyond the dissertation (a design aim). */
    NONE("");

    private final String symbol;

    Comparison(String symbol) {
        this.symbol = symbol;
    }

    /** The sign written before the dissertation's number in the table. */
    public String symbol() {
        return symbol;
    }

    /** Whether {@code ours} agrees with {@code claimed} under this comparison. */
    public boolean agrees(double ours, double claimed, double neutral, double tolerance) {
        return switch (this) {
            case ABOUT -> Math.signum(ours - neutral) == Math.signum(claimed - neutral)
                    && Math.abs(ours - claimed) <= tolerance * Math.abs(claimed) + 1e-9;
            case AT_MOST -> ours <= claimed * (1 + tolerance) + 1e-9;
            case AT_LEAST -> ours >= claimed * (1 - tolerance) - 1e-9;
            case ABOVE -> ours > claimed;
            case BELOW -> ours < claimed;
            case NONE -> throw new IllegalStateException("a row without a number agrees with nothing");
        };
    }

    /** The tolerance as the table states it, e.g. "same direction, within 20%". */
    public String describe(double tolerance) {
        String percent = Claim.format(tolerance * 100) + "%";
        return switch (this) {
            case ABOUT -> "same direction, within " + percent;
            case AT_MOST -> tolerance == 0 ? "at most the bound" : "at most the bound + " + percent;
            case AT_LEAST -> tolerance == 0 ? "at least the bound" : "at least the bound − " + percent;
            case ABOVE, BELOW -> "direction only";
            case NONE -> "";
        };
    }
}
