package io.neptune.benchmarks.nemesis.check;

import static java.util.Objects.requireNonNull;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.check.Verdict.Validity;
import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.Op;
import java.util.List;

/**
 * The verdicts of every checker that applied to one history. Immutable.
 *
 * @param history a one-line description of the history checked
 * @param guarantees what the run promised
 * @param verdicts one per checker, in the order they ran
 */
public record CheckReport(String history, Guarantees guarantees, List<Verdict> verdicts) {
    public CheckReport {
        requireNonNull(history, "history");
        requireNonNull(guarantees, "guarantees");
        verdicts = List.copyOf(verdicts);
    }

    /** INVALID if any checker found a violation, else UNKNOWN if any could not decide, else VALID. */
    public Validity validity() {
        if (verdicts.stream().anyMatch(v -> v.validity() == Validity.INVALID)) {
            return Validity.INVALID;
        }
        return verdicts.stream().anyMatch(v -> v.validity() == Validity.UNKNOWN) ? Validity.UNKNOWN : Validity.VALID;
    }

    /** The verdict of the checker named {@code checker}. */
    public Verdict verdict(String checker) {
        return verdicts.stream().filter(v -> v.checker().equals(checker)).findFirst().orElseThrow(
                () -> new IllegalArgumentException("checker: " + checker + " (expected: one of "
                        + verdicts.stream().map(Verdict::checker).toList() + ")"));
    }

    /**
     * A Markdown section: a table of the verdicts, then for each invalid one its first
     * {@code maxAnomalies} anomalies with their operations.
     */
    public String markdown(int maxAnomalies) {
        if (maxAnomalies < 0) {
            throw new IllegalArgumentException("maxAnomalies: " + maxAnomalies + " (expected: >= 0)");
        }
        StringBuilder md = new StringBuilder("## Checkers: ").append(validity()).append("\n\n")
                .append("Checked ").append(history).append(" against ").append(guarantees).append(".\n\n")
                .append("| checker | verdict | anomalies | summary |\n|---|---|---:|---|\n");
        for (Verdict v : verdicts) {
            md.append("| ").append(v.checker()).append(" | ").append(v.validity()).append(" | ").append(v.count())
                    .append(" | ").append(cell(v.summary())).append(" |\n");
        }
        for (Verdict v : verdicts) {
            if (v.validity() != Validity.INVALID) {
                continue;
            }
            md.append("\n### ").append(v.checker()).append(": ").append(v.count()).append(" anomalies\n\n");
            List<Anomaly> shown = v.anomalies().subList(0, Math.min(maxAnomalies, v.count()));
            for (Anomaly a : shown) {
                md.append("- ").append(a.description()).append('\n');
                for (Op op : a.ops()) {
                    md.append("  - `").append(op).append("`\n");
                }
            }
            if (shown.size() < v.count()) {
                md.append("- … and ").append(v.count() - shown.size()).append(" more\n");
            }
        }
        return md.toString();
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
