package io.neptune.benchmarks.report;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Renders evaluated rows as the Markdown table of {@code docs/PERFORMANCE.md}'s Summary: figure,
 * claim, the dissertation's number, ours, the run it came from, agree? with the tolerance, and the
 * reason when not. Links point from {@code docs/} into {@code docs/benchmarks/}.
 */
final class SummaryTable {
    private SummaryTable() {}

    /** Every row of every chapter, in the order of the dissertation, then the rows beyond it. */
    static List<Row> allRows() {
        List<Row> rows = new ArrayList<>(BeyondRows.rows().subList(0, 1));
        rows.addAll(ChapterThreeRows.rows());
        rows.addAll(ChapterFourRows.rows());
        rows.addAll(ChapterFiveRows.rows());
        rows.addAll(BeyondRows.rows().subList(1, BeyondRows.rows().size()));
        return rows;
    }

    /** The rows evaluated on {@code data}. */
    static List<Outcome> evaluate(List<Row> rows, BenchData data) {
        return rows.stream().map(row -> row.evaluate(data)).toList();
    }

    /** The table, with a line under it counting the verdicts; ends with a line break. */
    static String render(List<Outcome> outcomes, BenchData data) {
        StringBuilder md = new StringBuilder();
        md.append("| figure | the dissertation's claim (what ours measures) | its number | ours | run | agree?"
                + " (tolerance) | why not |\n");
        md.append("|---|---|---|---|---|---|---|\n");
        Map<Verdict, Integer> counts = new LinkedHashMap<>();
        for (Outcome outcome : outcomes) {
            counts.merge(outcome.verdict(), 1, Integer::sum);
            Claim claim = outcome.row().claim();
            md.append("| ").append(cell(claim.figure()))
                    .append(" | ").append(cell(claim.claim()))
                    .append(" | ").append(cell(claim.numberText()))
                    .append(" | ").append(cell(outcome.measured() == null ? "—" : outcome.measured().text()))
                    .append(" | ").append(runs(outcome, data))
                    .append(" | ").append(cell(agree(outcome)))
                    .append(" | ").append(cell(whyNot(outcome)))
                    .append(" |\n");
        }
        md.append("\n").append(outcomes.size()).append(" rows: ")
                .append(counts.getOrDefault(Verdict.AGREES, 0)).append(" agree, ")
                .append(counts.getOrDefault(Verdict.DISAGREES, 0)).append(" do not, ")
                .append(counts.getOrDefault(Verdict.NOT_RUN, 0))
                .append(" have no committed report (not run, or no report written), ")
                .append(counts.getOrDefault(Verdict.NO_CLAIM, 0)).append(" have no number to compare.\n");
        return md.toString();
    }

    private static String agree(Outcome outcome) {
        Claim claim = outcome.row().claim();
        return switch (outcome.verdict()) {
            case AGREES, DISAGREES -> outcome.verdict().text() + " (" + claim.toleranceText() + ")";
            case NOT_RUN -> outcome.row().reportless() ? "no report" : Verdict.NOT_RUN.text();
            case NO_CLAIM -> Verdict.NO_CLAIM.text();
        };
    }

    private static String whyNot(Outcome outcome) {
        return switch (outcome.verdict()) {
            case DISAGREES -> outcome.row().whyNot();
            case NOT_RUN -> outcome.row().notRun();
            case AGREES, NO_CLAIM -> "";
        };
    }

    /** Each source report, linked, with its run's day and mode. */
    private static String runs(Outcome outcome, BenchData data) {
        if (outcome.measured() == null) {
            return "—";
        }
        List<String> runs = new ArrayList<>();
        for (Table source : outcome.measured().sources()) {
            String file = Files.isRegularFile(data.directory().resolve(source.name() + ".md")) ? source.name() + ".md"
                    : source.name() + ".csv";
            String run = source.run().equals(RunInfo.UNKNOWN) ? "run not recorded"
                    : source.run().day() + ", " + source.run().mode();
            runs.add("[" + source.name() + "](benchmarks/" + file + ") " + run);
        }
        return String.join("; ", runs);
    }

    private static String cell(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }
}
