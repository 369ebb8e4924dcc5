package io.neptune.benchmarks.report;

import static io.neptune.benchmarks.report.Extractors.number;
import static io.neptune.benchmarks.report.Extractors.table;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The rows of chapter 3, load balancing (Figures 3.1, 3.2, 3.3/3.5 and Table 3.2). Figure 3.1 is
 * read from {@code load-index-inaccuracy.json} of {@code ./neptune bench inaccuracy} (the load index
 * inaccuracy by case and delay, a node's beside the exact queue's, as {@code LoadIndexReport} writes
 * it). The others are read from the reports of {@code ./neptune bench lb}: {@code load-balancing.csv}
 * (mean response time by policy, {@code vs_ideal} against the ideal policy of the same round,
 * {@code model_window} and {@code model_steady} from the zero-overhead model),
 * {@code broadcast-interval.csv} (broadcast by mean announce interval) and
 * {@code discard-slow-polls.csv} (Table 3.2), as {@code LoadBalancingReports} writes them; those
 * rows read the CSV: the lb bench wrote no JSON summary before issue 27.
 */
final class ChapterThreeRows {
    private static final String WHY_POLL3 = "the zero-overhead model of the same requests says the same: on 16"
            + " one-worker servers poll-3 is not within 20%; the model reaches it only with two workers per server,"
            + " as the dissertation's dual-CPU nodes had"
            + " ([why](#why-the-dissertation-found-poll-3-within-20-of-ideal))";

    private static final String INACCURACY = "load-index-inaccuracy";
    private static final String INACCURACY_NOT_RUN = "no committed report of ./neptune bench inaccuracy";
    private static final String WHY_INACCURACY = "see model_window in the report: where the exact queue fed the same"
            + " requests disagrees too, the window is too short for the delay; where only the node does, its load"
            + " index does";

    private ChapterThreeRows() {}

    static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        rows.add(Row.of(Claim.about("Fig. 3.1", "at 50% load the load index inaccuracy (mean |Q(t) − Q(t + Δt)| of"
                + " one server) reaches the upper bound as the delay grows: a node's, at the largest delay;"
                + " Poisson/Exp", 2 * 0.5 / (1 - 0.5 * 0.5), "", 0), ChapterThreeRows::inaccuracyAtLargestDelay,
                WHY_INACCURACY).notRun(INACCURACY_NOT_RUN));
        rows.add(Row.of(Claim.about("Fig. 3.1", "at 90% load the inaccuracy is around 3 at a delay of 10× the mean"
                + " service time: the largest of the three workloads (the sentence names none)", 3, "", 0),
                ChapterThreeRows::inaccuracyAtTenServiceTimes, WHY_INACCURACY).notRun(INACCURACY_NOT_RUN));
        rows.add(Row.of(Claim.above("Fig. 3.1", "at 90% load the inaccuracy is much more significant than at 50%:"
                + " 90%'s over 50%'s at a delay of 10× the mean service time; Poisson/Exp", 1, "×"),
                ChapterThreeRows::inaccuracyHighOverModerate, WHY_INACCURACY).notRun(INACCURACY_NOT_RUN));
        for (String workload : List.of("Poisson/Exp", "Fine-Grain", "Medium-Grain")) {
            rows.add(Row.of(Claim.about("Fig. 3.2", "broadcast with a 1 s mean announce interval is an order of"
                    + " magnitude slower than ideal at 90% load; " + workload, 10, "× ideal", 1),
                    data -> broadcast(data, workload, "1000"), "the zero-overhead model of the same requests says the"
                    + " same: between announcements every client sends to the server that looked least loaded, and"
                    + " a 1 s interval spans more services the shorter they are (Fine-Grain's are the shortest)")
                    .notRun("the quick mode runs broadcast on Poisson/Exp only; the full mode has not been run"));
        }
        rows.add(Row.of(Claim.atMost("Fig. 3.2", "broadcast with a 31.25 ms mean interval is close to ideal at 90%"
                + " load (\"close\" read as within 20%); Poisson/Exp", 1.2, "× ideal"),
                data -> broadcast(data, "Poisson/Exp", "31.25"),
                "neither is the zero-overhead model: between announcements every client sends to the server"
                        + " that looked least loaded"));
        for (String workload : List.of("Poisson/Exp", "Fine-Grain", "Medium-Grain")) {
            rows.add(Row.of(Claim.atMost("Fig. 3.3/3.5", "random polling with poll size 3 is within 20% of ideal"
                    + " at 90% load; " + workload, 1.2, "× ideal"), data -> pollThree(data, workload), WHY_POLL3));
        }
        rows.add(Row.of(Claim.above("Fig. 3.3/3.5", "poll size 8 is worse than random for Fine-Grain, from the"
                + " polling overhead (90% load)", 1, "× random"), ChapterThreeRows::pollEightAgainstRandom,
                "a poll on loopback costs a small fraction of the dissertation's network round trip, so polling"
                        + " eight servers costs little here"));
        rows.add(Row.of(Claim.about("Table 3.2", "discarding polls slower than 10 ms improves Fine-Grain's mean"
                + " response time (poll size 3, 90% load)", 8.3, "%", 0), ChapterThreeRows::discardSlowPolls,
                "on loopback almost no poll takes over 10 ms, so discarding them changes little and the"
                        + " difference is the run's noise"));
        return rows;
    }

    /** Figure 3.1 at 50%: the node's inaccuracy for Poisson/Exp at the report's largest delay, beside the model's. */
    private static Optional<Measured> inaccuracyAtLargestDelay(BenchData data) {
        return table(data, INACCURACY).flatMap(t -> Extractors.rows(t, "workload", "Poisson/Exp", "load_pct", "50"))
                .map(t -> {
                    List<String> delays = t.distinct("delay_x_service");
                    Table row = t.where("delay_x_service", delays.get(delays.size() - 1));
                    return Measured.of(row.number("node"), Claim.format(row.number("node")) + " at "
                            + Table.cell(row.only(), "delay_x_service") + "× the mean service time" + againstModel(row)
                            + "; 2ρ/(1 − ρ²) = " + Claim.format(row.number("bound_2rho")) + ")", t);
                });
    }

    /** Figure 3.1 at 90%: the largest node inaccuracy of the workloads at 10 mean service times, the others beside it. */
    private static Optional<Measured> inaccuracyAtTenServiceTimes(BenchData data) {
        return table(data, INACCURACY).flatMap(t -> Extractors.rows(t, "load_pct", "90", "delay_x_service", "10"))
                .map(t -> {
                    Map<String, String> largest = t.rows().stream()
                            .max(Comparator.comparingDouble(row -> t.number(row, "node"))).orElseThrow();
                    String workload = Table.cell(largest, "workload");
                    Table row = t.where("workload", workload);
                    String others = t.rows().stream().filter(r -> r != largest)
                            .map(r -> Table.cell(r, "workload") + " " + Claim.format(t.number(r, "node")))
                            .collect(Collectors.joining(", "));
                    return Measured.of(row.number("node"), Claim.format(row.number("node")) + " on " + workload
                            + againstModel(row) + "; " + others + ")", t);
                });
    }

    /** Figure 3.1: Poisson/Exp's node inaccuracy at 10 mean service times, 90% load over 50%. */
    private static Optional<Measured> inaccuracyHighOverModerate(BenchData data) {
        return table(data, INACCURACY).flatMap(t -> {
            Optional<Double> high = number(t, "node", "workload", "Poisson/Exp", "load_pct", "90",
                    "delay_x_service", "10");
            Optional<Double> moderate = number(t, "node", "workload", "Poisson/Exp", "load_pct", "50",
                    "delay_x_service", "10");
            if (high.isEmpty() || moderate.isEmpty()) {
                return Optional.empty();
            }
            double ratio = high.get() / moderate.get();
            return Optional.of(Measured.of(ratio, Claim.format(ratio) + "× (" + Claim.format(high.get())
                    + " against " + Claim.format(moderate.get()) + ")", t));
        });
    }

    /** " (exact queue: a on the same requests, b steady": the model's figures of a single row. */
    private static String againstModel(Table row) {
        return " (exact queue: " + Claim.format(row.number("model_window")) + " on the same requests, "
                + Claim.format(row.number("model_steady")) + " steady";
    }

    private static Optional<Measured> broadcast(BenchData data, String workload, String intervalMs) {
        return table(data, "broadcast-interval").flatMap(t -> Extractors.rows(t, "workload", workload,
                "load_pct", "90", "interval_ms", intervalMs)).map(ChapterThreeRows::againstIdeal);
    }

    private static Optional<Measured> pollThree(BenchData data, String workload) {
        return table(data, "load-balancing").flatMap(t -> Extractors.rows(t, "workload", workload, "load_pct", "90",
                "policy", "poll-3")).map(ChapterThreeRows::againstIdeal);
    }

    /** The single row's {@code vs_ideal}, with the zero-overhead model's figures for the same requests. */
    private static Measured againstIdeal(Table t) {
        return Measured.of(t.number("vs_ideal"), Claim.format(t.number("vs_ideal")) + "× (zero-overhead model: "
                + Claim.format(t.number("model_window")) + "× in the same window, "
                + Claim.format(t.number("model_steady")) + "× steady)", t);
    }

    private static Optional<Measured> pollEightAgainstRandom(BenchData data) {
        return table(data, "load-balancing").flatMap(t -> {
            Optional<Double> pollEight = number(t, "vs_ideal", "workload", "Fine-Grain", "load_pct", "90",
                    "policy", "poll-8");
            Optional<Double> random = number(t, "vs_ideal", "workload", "Fine-Grain", "load_pct", "90",
                    "policy", "random");
            if (pollEight.isEmpty() || random.isEmpty()) {
                return Optional.empty();
            }
            double ratio = pollEight.get() / random.get();
            return Optional.of(Measured.of(ratio, Claim.format(ratio) + "× (poll-8 " + Claim.format(pollEight.get())
                    + "× ideal, random " + Claim.format(random.get()) + "×, each against its own round's ideal)", t));
        });
    }

    /**
     * Table 3.2 from {@code discard-slow-polls.csv}; when {@code load-balancing.csv} comes from another
     * run, its own poll-3 rows with and without discarding are shown beside it (same formula).
     */
    private static Optional<Measured> discardSlowPolls(BenchData data) {
        Optional<Table> table = table(data, "discard-slow-polls").flatMap(t -> Extractors.rows(t, "workload",
                "Fine-Grain"));
        if (table.isEmpty()) {
            return Optional.empty();
        }
        Table t = table.get();
        String text = Extractors.signedPercent(t.number("improvement_pct")) + " (" + Claim.format(t.number(
                "keep_slow_mean_ms")) + " → " + Claim.format(t.number("discard_mean_ms")) + " ms; "
                + Claim.format(t.number("polls_over_10ms_pct")) + "% of polls over 10 ms)";
        Optional<Table> lb = table(data, "load-balancing").filter(l -> !l.run().equals(t.run()));
        Optional<String> other = lb.flatMap(ChapterThreeRows::discardInTheBalancingRun);
        if (lb.isEmpty() || other.isEmpty()) {
            return Optional.of(Measured.of(t.number("improvement_pct"), text, t));
        }
        return Optional.of(Measured.of(t.number("improvement_pct"), text + other.get(), t, lb.get()));
    }

    /** Table 3.2's figure from the Fine-Grain poll-3 rows of a load-balancing report, with and without discarding. */
    private static Optional<String> discardInTheBalancingRun(Table lb) {
        Optional<Double> discard = number(lb, "mean_ms", "workload", "Fine-Grain", "load_pct", "90", "policy",
                "poll-3");
        Optional<Double> keep = number(lb, "mean_ms", "workload", "Fine-Grain", "load_pct", "90", "policy",
                "poll-3-keep-slow");
        if (discard.isEmpty() || keep.isEmpty()) {
            return Optional.empty();
        }
        double improvement = (keep.get() - discard.get()) / keep.get() * 100;
        return Optional.of("; load-balancing.csv's own run, its poll-3 rows: " + Extractors.signedPercent(improvement)
                + " (" + Claim.format(keep.get()) + " → " + Claim.format(discard.get()) + " ms)");
    }
}
