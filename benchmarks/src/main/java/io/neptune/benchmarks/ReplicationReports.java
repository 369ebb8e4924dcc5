package io.neptune.benchmarks;

import io.neptune.benchmarks.ReplicationExperiment.Measurement;
import io.neptune.benchmarks.ReplicationExperiment.Plan;
import io.neptune.benchmarks.ReplicationExperiment.Variant;
import io.neptune.core.ConsistencyLevel;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Turns the measurements of {@link ReplicationExperiment} into its three reports: replication
 * scalability (Figure 5.1), consistency levels (Figures 5.1 and 5.3) and workload imbalance
 * (Figures 5.2 and 5.3).
 *
 * <p>Thread-safety: not thread-safe; used by one thread.
 */
final class ReplicationReports {
    private final Plan plan;
    private final Map<Variant, Measurement> results;
    private final String context;

    ReplicationReports(Plan plan, Map<Variant, Measurement> results, String context) {
        this.plan = plan;
        this.results = Map.copyOf(results);
        this.context = context;
    }

    /**
     * Figure 5.1: saturation throughput by nodes, replication degree and write share (balanced), as the
     * report {@code name} with {@code title}.
     */
    Report scalability(String name, String title) {
        Report report = new Report(name, title,
                "nodes", "replicas", "level", "writes %", "saturation req/s", "model req/s", "vs NoRep",
                "p50 ms", "p99 ms", "reads at primary %", "steps", "load 1m");
        TreeSet<Integer> nodeCounts = new TreeSet<>();
        for (Variant v : plan.variants()) {
            if (v.imbalance() == ReplicationExperiment.BALANCED) {
                nodeCounts.add(v.nodes());
            }
        }
        boolean byNodes = nodeCounts.size() > 1;
        for (Variant v : plan.variants()) {
            Measurement m = results.get(v);
            if (m == null || v.imbalance() != ReplicationExperiment.BALANCED) {
                continue;
            }
            row(report, v.nodes(), v, m, baseline(v).map(b -> ratio(m.rate(), b.rate())).orElse("-"));
            String line = v.degree() == 1 ? "NoRep" : v.degree() + " replicas";
            if (byNodes) {
                if (v.level() == ConsistencyLevel.LEVEL_2 || v.degree() == 1) {
                    report.point(String.format(Locale.ROOT, "%s, %.0f%% writes", line, 100 * v.writes()), v.nodes(),
                            m.rate());
                }
            } else {
                report.point(String.format(Locale.ROOT, "L%d, %.0f%% writes", v.level().ordinal() + 1,
                        100 * v.writes()), v.degree(), m.rate());
            }
        }
        report.axes(byNodes ? "service nodes (level 2; NoRep = 1 replica)" : "replicas per partition (1 = NoRep), "
                + nodeCounts.first() + " nodes", "throughput at saturation (req/s)", false);
        notes(report);
        return report;
    }

    /** The consistency levels side by side wherever all three were measured in the same configuration. */
    Report levels() {
        Report report = new Report("consistency-levels", "Consistency levels: discussion group",
                "nodes", "replicas", "writes %", "imbalance", "level", "saturation req/s", "vs L2", "p50 ms", "p99 ms",
                "reads at primary %", "steps", "load 1m");
        for (Variant v : plan.variants()) {
            if (v.level() != ConsistencyLevel.LEVEL_2) {
                continue;
            }
            Measurement l2 = results.get(v);
            Measurement l1 = results.get(at(v, ConsistencyLevel.LEVEL_1));
            Measurement l3 = results.get(at(v, ConsistencyLevel.LEVEL_3));
            if (l1 == null || l2 == null || l3 == null) {
                continue;
            }
            for (Measurement m : List.of(l1, l2, l3)) {
                SaturationSearch.Outcome o = m.outcome();
                report.row(v.nodes(), v.degree(), Math.round(100 * v.writes()),
                        ReplicationExperiment.fraction(v.imbalance()), "L" + (m.variant().level().ordinal() + 1),
                        m.rate(), ratio(m.rate(), l2.rate()), p50(o), p99(o), atPrimary(o), o.steps(),
                m.load());
            }
        }
        report.note("Dissertation (Figure 5.3, 8 nodes, 4 replicas, 10% writes, all requests to one partition): level 1"
                + " 12% above level 2, level 2 9% above level 3; under a balanced workload the three are very close"
                + " (Figure 5.1).");
        notes(report);
        return report;
    }

    /** Figures 5.2 and 5.3: saturation throughput by imbalance factor, for degrees (level 2) and levels. */
    Report imbalance() {
        Report report = new Report("workload-imbalance", "Workload imbalance: discussion group, 10% writes",
                "imbalance", "zipf s", "nodes", "replicas", "level", "saturation req/s", "model req/s", "vs NoRep",
                "p50 ms", "p99 ms", "reads at primary %", "steps", "load 1m");
        int nodes = plan.variants().stream().filter(v -> v.imbalance() != ReplicationExperiment.BALANCED)
                .mapToInt(Variant::nodes).max().orElse(0);
        for (Variant v : plan.variants()) {
            Measurement m = results.get(v);
            if (m == null || v.nodes() != nodes || v.writes() != 0.1 || !imbalanceSeries(v)) {
                continue;
            }
            double s = ZipfPartitions.withImbalance(EmulatedDiscussion.PARTITIONS, v.imbalance()).exponent();
            row(report, ReplicationExperiment.fraction(v.imbalance()), Double.isInfinite(s) ? "inf" : s, v, m,
                    baseline(v).map(b -> ratio(m.rate(), b.rate())).orElse("-"));
            String line = v.level() == ConsistencyLevel.LEVEL_2
                    ? (v.degree() == 1 ? "NoRep" : v.degree() + " replicas") + ", L2"
                    : v.degree() + " replicas, L" + (v.level().ordinal() + 1);
            report.point(line, v.imbalance(), m.rate());
        }
        report.axes("workload imbalance factor (share of requests to the most popular partition), " + nodes + " nodes",
                "throughput at saturation (req/s)", true);
        report.note("Imbalance factor (dissertation §5.4.2): the share of requests that go to the most popular"
                + " of the 64 partitions. Partition popularity is Zipf, P(rank k) ~ k^-s, with s chosen so that rank 1"
                + " gets that share: 1/64 is uniform (s = 0) and 1 sends every request to partition 0 (s = inf). Rank"
                + " k is partition k-1, whose first replica (the level-2 primary) is on node (k-1) mod nodes.");
        report.note("Dissertation anchors (8 nodes, 10% writes, level 2): with every request on one partition, 4"
                + " replicas run almost 3x as fast as NoRep (Figure 5.2); levels: L1 12% above L2, L2 9% above L3"
                + " (Figure 5.3).");
        notes(report);
        return report;
    }

    /** Whether {@code v} belongs on the imbalance plot: level 2 at any degree, other levels where they were skewed. */
    private boolean imbalanceSeries(Variant v) {
        if (v.level() == ConsistencyLevel.LEVEL_2) {
            return plan.variants().stream().anyMatch(o -> o.nodes() == v.nodes() && o.degree() == v.degree()
                    && o.imbalance() != ReplicationExperiment.BALANCED);
        }
        return plan.variants().stream().anyMatch(o -> o.level() == v.level() && o.nodes() == v.nodes()
                && o.imbalance() != ReplicationExperiment.BALANCED);
    }

    private static void row(Report report, Object first, Variant v, Measurement m, String vsNoRep) {
        SaturationSearch.Outcome o = m.outcome();
        report.row(first, v.degree() == 1 ? "NoRep" : v.degree(), "L" + (v.level().ordinal() + 1),
                Math.round(100 * v.writes()), m.rate(), m.model(), vsNoRep, p50(o), p99(o), atPrimary(o), o.steps(),
                m.load());
    }

    private static void row(Report report, Object first, Object second, Variant v, Measurement m, String vsNoRep) {
        SaturationSearch.Outcome o = m.outcome();
        report.row(first, second, v.nodes(), v.degree() == 1 ? "NoRep" : v.degree(), "L" + (v.level().ordinal() + 1),
                m.rate(), m.model(), vsNoRep, p50(o), p99(o), atPrimary(o), o.steps(),
                m.load());
    }

    static Object p50(SaturationSearch.Outcome o) {
        return o.atRate() == null ? "-" : (Object) o.atRate().p50Millis();
    }

    static Object p99(SaturationSearch.Outcome o) {
        return o.atRate() == null ? "-" : (Object) o.atRate().p99Millis();
    }

    static Object atPrimary(SaturationSearch.Outcome o) {
        return o.atRate() == null || Double.isNaN(o.atRate().readsAtPrimary()) ? "-"
                : (Object) Math.round(100 * o.atRate().readsAtPrimary());
    }

    /** NoRep in the same configuration. */
    private Optional<Measurement> baseline(Variant v) {
        return Optional.ofNullable(results.get(new Variant(v.nodes(), 1, ConsistencyLevel.LEVEL_2, v.writes(),
                v.imbalance())));
    }

    private static Variant at(Variant v, ConsistencyLevel level) {
        return new Variant(v.nodes(), v.degree(), level, v.writes(), v.imbalance());
    }

    static String ratio(double value, double base) {
        return base <= 0 ? "-" : String.format(Locale.ROOT, "%.2f", value / base);
    }

    private void notes(Report report) {
        report.note(saturationRule(plan.step(), plan.refinements()));
        report.note("Emulated capacity (issue 5, Method): every node is an in-process NeptuneNode on the loopback"
                + " stack with 2 workers; a request holds a worker for its service time (13.6 ms ViewHeaders, 9.3 ms"
                + " AddMsg, from the dissertation's 152 and 175 req/s on one node at 10% and 50% writes), asleep."
                + " The real H2 work runs inside that time and only the rest is slept: the emulated time replaces the"
                + " real work rather than adding to it. Writes go through Neptune's real replication (REDO log with"
                + " group fsync, propagation, re-execution at every replica, each holding a worker there). NoRep is"
                + " level 2 with one replica: it logs (with fsync) but propagates nothing. 'model' is this"
                + " emulation's capacity if reads of a partition are spread evenly over its replicas.");
        report.note(resolution(plan.step(), plan.refinements()));
        report.note(context + " 'load 1m' is the host's one-minute load average when that search began.");
    }

    /** How the saturation point is found and what the latency columns mean, for steps of {@code step}. */
    static String saturationRule(Duration step, int refinements) {
        return "Saturation rule (dissertation §5.4): the highest offered rate at which at least 98% of"
                + " requests complete within 2 s of their scheduled send time. Open-loop Poisson arrivals from one"
                + " driver node, each simulated user (NeptuneHandle) sending about one request per second. The rate"
                + " doubles from 0.75x the model capacity until a step fails (a failing first step is run again,"
                + " and halves if it fails twice), then " + refinements + " bisection steps; each step"
                + " offers its rate for " + step.toSeconds() + " s from idle nodes and stops early once more"
                + " than 2% of its requests have failed. Latency is"
                + " measured from the scheduled send time with HdrHistogram (no coordinated omission); p50/p99 and"
                + " 'reads at primary' (reads served by the partition's first replica; 1/replicas if spread evenly)"
                + " are those of the step at the saturation rate.";
    }

    /** How far a step of {@code stepLength} can overshoot the capacity, and what its bisection resolves. */
    static String resolution(Duration stepLength, int refinements) {
        long step = stepLength.toSeconds();
        return "A step of " + step + " s fails only once queueing delay passes 2 s, so a rate r above the"
                + " capacity c still passes while (r/c - 1) x " + step + " s < 2 s: the measured saturation can"
                + " overshoot the capacity by up to 1 + 2/" + step + " (about the same factor for every"
                + " configuration). Compare ratios within one run, not absolute rates. Resolution: the "
                + refinements + " bisection steps narrow the bracket [last pass, first fail] to 1/"
                + (1 << refinements) + " of its width, so figures that differ by less than that step"
                + " (e.g. several configurations ending on the same rate) are not resolved.";
    }
}
