package io.neptune.benchmarks;

import io.neptune.benchmarks.QosScalability.Point;
import io.neptune.benchmarks.QosScalability.Scheme;
import io.neptune.benchmarks.QosTimeline.Result;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The reports of the cluster half of {@link QosExperiment}: {@code qos-scalability} (Figure 4.11,
 * {@link QosScalability}) and {@code qos-timeline} (Figure 4.12, {@link QosTimeline}). Thread-safety:
 * use from one thread.
 */
final class QosClusterReports {
    /** The share of its guarantee a class with enough demand must get under overload. */
    static final double GUARANTEE_AIM = 0.9;

    private QosClusterReports() {}

    /** Writes {@code qos-scalability}. */
    static void scalability(List<Point> points, QosScalability.Plan plan, double perWorkerRate, boolean quick,
            String runNote, Path root, String command) {
        Report report = new Report("qos-scalability", "Figure 4.11: aggregate yield, Neptune vs server partitioning,"
                + " normalized to Neptune at 200% demand", "servers", "demand %", "rate req/s", "scheme",
                "yield per s", "normalized yield", "LossPercent", "gold loss %", "silver loss %", "bronze loss %",
                "within D %", "sender lag ms");
        report.axes("servers", "aggregate yield / Neptune's at 200% demand", true).legendOutside();
        List<String> ratios = new ArrayList<>();
        for (Point p : points) {
            double norm = p.yieldRate() / reference(points, p.servers());
            QosTally.Figures t = p.total();
            report.row(p.servers(), p.level(), p.rate(), p.scheme().label, p.yieldRate(), norm, t.lossPercent(),
                    p.classes().get(0).lossPercent(), p.classes().get(1).lossPercent(),
                    p.classes().get(2).lossPercent(), 100.0 * t.onTime() / Math.max(1, t.arrivals()), p.meanLagMillis());
            report.point(p.scheme().label + " " + p.level() + "%", p.servers(), norm);
            if (p.scheme() == Scheme.NEPTUNE) {
                partner(points, p).ifPresent(sp -> ratios.add(String.format(Locale.ROOT, "%d servers %d%%: %+.1f%%",
                        p.servers(), p.level(), 100 * (p.yieldRate() / sp.yieldRate() - 1))));
            }
        }
        report.note(String.format(Locale.ROOT, "Setup: Differentiated Search (Table 4.2's means and deviations, gamma"
                + " distributed, 10/30/60%% gold/silver/bronze), hybrid yields 4:2:1 with D = %d ms, D' = D/2, C' = C/2"
                + " (times / %d), no guarantees; every server an in-JVM node on the loopback stack with %d emulated"
                + " worker (sleeping for the service time) per scheme, running Adaptive (window %d s = 30 s / %d). Both"
                + " schemes side by side on the same nodes, each on its own service (an independent emulated cluster),"
                + " fed the same request sequence by one caller node: Neptune = class-aware random polling (poll size 3)"
                + " over all servers; server partitioning re-partitions every %d ms (10 s / %d) from the class counters"
                + " the nodes announce every %d ms (1 s / %d), random polling within a class's servers. 100%% demand on n"
                + " servers = n x %.1f req/s (the calibrated single-server 100%% of qos-calibration.md, per worker)."
                + " Recorded %s.", QosWorkload.DEADLINE.toMillis(), QosWorkload.SCALE, QosScalability.WORKERS,
                QosExperiment.ADAPTIVE_WINDOW.toSeconds(), QosWorkload.SCALE,
                QosScalability.PARTITIONING_INTERVAL.toMillis(), QosWorkload.SCALE,
                QosScalability.ANNOUNCE_INTERVAL.toMillis(), QosWorkload.SCALE, perWorkerRate,
                String.format(Locale.ROOT, "%d s per point after %d s of warm-up%s", plan.measure().toSeconds(),
                        plan.warmup().toSeconds(), quick ? " (--quick: " + plan.servers() + " servers)" : "")));
        report.note("Neptune's yield over server partitioning's (aim: ahead at 125% and 200%; the dissertation: up to"
                + " +6%): " + String.join("; ", ratios) + ".");
        report.note("Yield per second from the response times the load generator measured (from each call's scheduled"
                + " send) over the recorded window; a dropped or failed call yields 0. " + runNote);
        report.write(root, command);
    }

    private static double reference(List<Point> points, int servers) {
        return points.stream().filter(p -> p.servers() == servers && p.level() == 200 && p.scheme() == Scheme.NEPTUNE)
                .mapToDouble(Point::yieldRate).findFirst().orElse(Double.NaN);
    }

    private static Optional<Point> partner(List<Point> points, Point p) {
        return points.stream().filter(o -> o.servers() == p.servers() && o.level() == p.level()
                && o.scheme() == Scheme.PARTITIONING).findFirst();
    }

    /** Writes {@code qos-timeline}. */
    static void timeline(Result r, boolean quick, String runNote, Path root, String command) {
        List<String> names = QosWorkload.SEARCH.classes().stream().map(QosWorkload.Spec::name).toList();
        Report report = new Report("qos-timeline", "Figure 4.12: per-class demand and allocation, silver spike and a"
                + " server failure, Neptune vs server partitioning (" + r.plan().servers() + " servers)", "t s",
                "class", "demand %", "neptune allocation %", "server-partitioning allocation %");
        report.axes("time (s; the dissertation's time / " + QosWorkload.SCALE + ")",
                "share of the servers' time (%)", false).legendOutside();
        double dt = r.bucketSeconds();
        for (int b = 0; b < r.buckets(); b++) {
            double t = (b + 1) * dt;
            for (int k = 0; k < names.size(); k++) {
                double demand = 100 * r.demand()[k][b];
                double neptune = 100 * r.allocation()[Scheme.NEPTUNE.ordinal()][k][b];
                double sp = 100 * r.allocation()[Scheme.PARTITIONING.ordinal()][k][b];
                report.row(String.format(Locale.ROOT, "%.1f", t), names.get(k), demand, neptune, sp);
                report.point(names.get(k) + " demand", t, demand);
                report.point(names.get(k) + " neptune", t, neptune);
                report.point(names.get(k) + " partitioning", t, sp);
            }
        }
        QosTimeline.Plan p = r.plan();
        report.note(String.format(Locale.ROOT, "Setup: %d in-JVM server nodes on the loopback stack, %d emulated worker"
                + " each per scheme, Adaptive, Differentiated Search with hybrid yields and a %.0f%% guarantee per class;"
                + " fixed-interval arrivals and a constant %d ms service time (the dissertation's altered service;"
                + " 250 ms / %d). Demand starts at 100%% of the %d servers (gold/silver/bronze 10/30/60%%); silver rises"
                + " to %.0f%% from %.0f s to %.0f s (our figure: the dissertation does not give it); server %d (the one"
                + " that served the most gold under server partitioning in the second before) fails at %.0f s (its node"
                + " closes) and starts again at %.0f s. Times are the dissertation's / %d (300 s -> %.0f s, 2 s"
                + " intervals -> %d ms), after %.0f s of unplotted pre-roll. Server partitioning re-partitions every"
                + " %d ms. Both schemes side by side on the same nodes, each its own service; allocation is each class's"
                + " worker time (ClassStats.usedSeconds) over the interval, as a share of all %d servers.",
                p.servers(), QosScalability.WORKERS, 100 * QosTimeline.GUARANTEE, QosTimeline.SERVICE_MICROS / 1000,
                QosWorkload.SCALE, p.servers(), 100 * QosTimeline.SPIKE, QosTimeline.seconds(p.spikeFrom()),
                QosTimeline.seconds(p.spikeTo()), r.failed(), QosTimeline.seconds(p.failAt()),
                QosTimeline.seconds(p.recoverAt()), QosWorkload.SCALE, QosTimeline.seconds(p.length()),
                p.bucket().toMillis(), QosTimeline.seconds(p.preroll()),
                QosScalability.PARTITIONING_INTERVAL.toMillis(), p.servers()));
        report.note(phases(r, names));
        report.note(dip(r));
        report.note(guarantees(r, names));
        report.note(String.format(Locale.ROOT, "Generator lag: neptune %.1f ms, server partitioning %.1f ms on"
                + " average. %s", r.lagMillis()[0], r.lagMillis()[1], runNote));
        report.write(root, command);
    }

    /** Mean over the buckets ending in (from, to] seconds. */
    static double mean(double[] series, double dt, double from, double to) {
        double sum = 0;
        int n = 0;
        for (int b = 0; b < series.length; b++) {
            double end = (b + 1) * dt;
            if (end > from + 1e-9 && end <= to + 1e-9) {
                sum += series[b];
                n++;
            }
        }
        return n == 0 ? Double.NaN : sum / n;
    }

    private static String phases(Result r, List<String> names) {
        QosTimeline.Plan p = r.plan();
        double[] cuts = {0, QosTimeline.seconds(p.spikeFrom()), QosTimeline.seconds(p.spikeTo()),
            QosTimeline.seconds(p.failAt()), QosTimeline.seconds(p.recoverAt()), QosTimeline.seconds(p.length())};
        String[] labels = {"before the spike", "silver spike", "after it", "server down", "recovered"};
        StringBuilder s = new StringBuilder("Mean share per phase, demand / neptune / server partitioning (%):");
        for (int i = 0; i < labels.length; i++) {
            s.append(String.format(Locale.ROOT, " %s (%.0f-%.0f s):", labels[i], cuts[i], cuts[i + 1]));
            for (int k = 0; k < names.size(); k++) {
                s.append(String.format(Locale.ROOT, " %s %.1f/%.1f/%.1f", names.get(k),
                        100 * mean(r.demand()[k], r.bucketSeconds(), cuts[i], cuts[i + 1]),
                        100 * mean(r.allocation()[0][k], r.bucketSeconds(), cuts[i], cuts[i + 1]),
                        100 * mean(r.allocation()[1][k], r.bucketSeconds(), cuts[i], cuts[i + 1])));
            }
            s.append(';');
        }
        return s.toString();
    }

    private static String dip(Result r) {
        double fail = QosTimeline.seconds(r.plan().failAt());
        double interval = QosTimeline.seconds(QosScalability.PARTITIONING_INTERVAL.multipliedBy(1));
        StringBuilder s = new StringBuilder("Gold's allocation around the failure (the dissertation: a ~10 s dip under"
                + " server partitioning, none under Neptune), mean in the 2 s before / the first interval after"
                + " (" + interval + " s) / the lowest single bucket in it:");
        for (Scheme scheme : Scheme.values()) {
            double[] gold = r.allocation()[scheme.ordinal()][0];
            double before = mean(gold, r.bucketSeconds(), fail - 2, fail);
            double after = mean(gold, r.bucketSeconds(), fail, fail + interval);
            double low = Double.MAX_VALUE;
            for (int b = 0; b < gold.length; b++) {
                double end = (b + 1) * r.bucketSeconds();
                if (end > fail + 1e-9 && end <= fail + interval + 1e-9) {
                    low = Math.min(low, gold[b]);
                }
            }
            s.append(String.format(Locale.ROOT, " %s %.1f%% / %.1f%% / %.1f%%;", scheme.label, 100 * before,
                    100 * after, 100 * low));
        }
        return s.toString();
    }

    /**
     * The guarantee aim: in the overloaded phases (the spike, and the failure), every class whose demand
     * is at least its guarantee gets at least {@link #GUARANTEE_AIM} of it, counted against the servers up.
     */
    private static String guarantees(Result r, List<String> names) {
        QosTimeline.Plan p = r.plan();
        double[][] phases = {{QosTimeline.seconds(p.spikeFrom()) + 1, QosTimeline.seconds(p.spikeTo())},
            {QosTimeline.seconds(p.failAt()), QosTimeline.seconds(p.recoverAt())}};
        String[] labels = {"spike (from 1 s in)", "server down"};
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "Guarantee aim (every class with demand >="
                + " its %.0f%% guarantee gets >= %.0f%% of it, against the servers up; allocation / guarantee):",
                100 * QosTimeline.GUARANTEE, 100 * GUARANTEE_AIM));
        int met = 0;
        int checks = 0;
        for (int i = 0; i < phases.length; i++) {
            double up = i == 1 ? (p.servers() - 1.0) / p.servers() : 1;
            s.append(' ').append(labels[i]).append(':');
            for (int k = 0; k < names.size(); k++) {
                double demand = mean(r.demand()[k], r.bucketSeconds(), phases[i][0], phases[i][1]) / up;
                if (demand < QosTimeline.GUARANTEE) {
                    continue;
                }
                for (Scheme scheme : Scheme.values()) {
                    double got = mean(r.allocation()[scheme.ordinal()][k], r.bucketSeconds(), phases[i][0],
                            phases[i][1]) / up / QosTimeline.GUARANTEE;
                    checks++;
                    met += got >= GUARANTEE_AIM ? 1 : 0;
                    s.append(String.format(Locale.ROOT, " %s %s %.2f%s", names.get(k), scheme.label, got,
                            got >= GUARANTEE_AIM ? "" : " MISSED"));
                }
            }
            s.append(';');
        }
        return s.append(String.format(Locale.ROOT, " met %d of %d.", met, checks)).toString();
    }
}
