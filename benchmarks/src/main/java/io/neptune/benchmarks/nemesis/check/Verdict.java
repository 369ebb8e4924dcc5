package io.neptune.benchmarks.nemesis.check;

import static java.util.Objects.requireNonNull;

import io.neptune.benchmarks.nemesis.history.Op;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one checker found in a history. Immutable.
 *
 * @param checker the checker's name, e.g. {@code lost-writes}
 * @param validity whether the history has the property
 * @param summary one line: what was checked and the figures that matter
 * @param measures named figures for aggregating runs (e.g. {@code acknowledged}, {@code
 *     worstStalenessMillis}), in the order the checker put them
 * @param anomalies every violation found; empty when valid
 */
public record Verdict(String checker, Validity validity, String summary, Map<String, Long> measures,
        List<Anomaly> anomalies) {
    public Verdict {
        requireNonNull(checker, "checker");
        requireNonNull(validity, "validity");
        requireNonNull(summary, "summary");
        measures = Collections.unmodifiableMap(new LinkedHashMap<>(measures));
        anomalies = List.copyOf(anomalies);
        if ((validity == Validity.INVALID) == anomalies.isEmpty()) {
            throw new IllegalArgumentException("anomalies: " + anomalies.size() + " with validity " + validity
                    + " (expected: anomalies exactly when invalid)");
        }
    }

    /** INVALID if there are anomalies, else UNKNOWN if {@code unknown}, else VALID. */
    static Verdict of(String checker, List<Anomaly> anomalies, boolean unknown, String summary,
            Map<String, Long> measures) {
        Validity validity = !anomalies.isEmpty() ? Validity.INVALID : unknown ? Validity.UNKNOWN : Validity.VALID;
        return new Verdict(checker, validity, summary, measures, anomalies);
    }

    /** How many violations were found. */
    public int count() {
        return anomalies.size();
    }

    /** {@code name: VALID|INVALID (n)|UNKNOWN; summary}. */
    @Override
    public String toString() {
        return checker + ": " + validity + (validity == Validity.INVALID ? " (" + count() + ")" : "") + "; " + summary;
    }

    /** Whether the checked property holds. */
    public enum Validity {
        /** It holds. */
        VALID,
        /** It does not: see the anomalies. */
        INVALID,
        /** No violation found, but the data needed to decide was missing (e.g. no final reads). */
        UNKNOWN
    }

    /**
     * One violation.
     *
     * @param description what is wrong, in one sentence that names keys, elements and replicas
     * @param ops the history lines involved (invocations and completions); empty when only the
     *     final state is involved
     */
    public record Anomaly(String description, List<Op> ops) {
        public Anomaly {
            requireNonNull(description, "description");
            ops = List.copyOf(ops);
        }

        @Override
        public String toString() {
            StringBuilder s = new StringBuilder(description);
            ops.forEach(op -> s.append("\n    ").append(op));
            return s.toString();
        }
    }
}
