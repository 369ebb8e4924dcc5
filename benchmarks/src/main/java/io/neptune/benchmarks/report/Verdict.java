package io.neptune.benchmarks.report;

/** Whether a row's figure agrees with the dissertation's, as the table's "agree?" column says it. */
public enum Verdict {
    /** Ours agrees within the row's tolerance. */
    AGREES("yes"),
    /** Ours does not; the row gives its one-line reason. */
    DISAGREES("**no**"),
    /** No committed report holds the figure. */
    NOT_RUN("not run"),
    /** The row has no number of the dissertation's to hold ours against. */
    NO_CLAIM("—");

    private final String text;

    Verdict(String text) {
        this.text = text;
    }

    /** The word the table prints. */
    public String text() {
        return text;
    }
}
