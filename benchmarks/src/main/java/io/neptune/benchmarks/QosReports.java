package io.neptune.benchmarks;

import io.neptune.benchmarks.QosExperiment.Point;
import io.neptune.benchmarks.QosExperiment.Step;
import io.neptune.benchmarks.QosWorkload.Form;
import io.neptune.server.SchedulingPolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The reports of {@link QosExperiment}: {@code qos-micro} (Figure 4.8), {@code qos-search-<form>}
 * (Figure 4.9), {@code qos-per-class} (Figure 4.10) and {@code qos-calibration} (how 100% demand was
 * found). Thread-safety: use from one thread.
 */
final class QosReports {
    /** How close Adaptive's realised yield must be to the better of YID and Greedy. */
    static final double ADAPTIVE_AIM = 0.95;

    private final List<Point> points;
    private final List<Step> calibration;
    private final boolean quick;
    private final String runNote;

    QosReports(List<Point> points, List<Step> calibration, boolean quick, String runNote) {
        this.points = List.copyOf(points);
        this.calibration = List.copyOf(calibration);
        this.quick = quick;
        this.runNote = runNote;
    }

    /**
     * Adaptive against the better of YID and Greedy at one level.
     *
     * @param ratio Adaptive's realised yield over the better one's
     * @param lossPoints Adaptive's LossPercent minus the better one's, in percentage points
     * @param fifoPoints FIFO's LossPercent minus the best non-FIFO policy's, in points (NaN without FIFO)
     */
    record Aim(double ratio, double lossPoints, double fifoPoints) {
        boolean met() {
            return ratio >= ADAPTIVE_AIM;
        }
    }

    /** The aims at one level, from the points of that level (one per policy); empty without Adaptive, YID and Greedy. */
    static Optional<Aim> aim(List<Point> level) {
        Optional<Point> adaptive = find(level, SchedulingPolicy.ADAPTIVE);
        Optional<Point> yid = find(level, SchedulingPolicy.YID);
        Optional<Point> greedy = find(level, SchedulingPolicy.GREEDY);
        if (adaptive.isEmpty() || yid.isEmpty() || greedy.isEmpty()) {
            return Optional.empty();
        }
        Point better = yid.get().total().realizedYield() >= greedy.get().total().realizedYield() ? yid.get()
                : greedy.get();
        double fifo = find(level, SchedulingPolicy.FIFO).map(f -> f.total().lossPercent() - level.stream()
                .filter(p -> p.policy() != SchedulingPolicy.FIFO).mapToDouble(p -> p.total().lossPercent()).min()
                .orElse(Double.NaN)).orElse(Double.NaN);
        double ratio = better.total().realizedYield() == 0 ? 1
                : adaptive.get().total().realizedYield() / better.total().realizedYield();
        return Optional.of(new Aim(ratio, adaptive.get().total().lossPercent() - better.total().lossPercent(), fifo));
    }

    private static Optional<Point> find(List<Point> level, SchedulingPolicy policy) {
        return level.stream().filter(p -> p.policy() == policy).findFirst();
    }

    void write(Path root, String command) {
        List<Form> searchForms = points.stream().filter(p -> p.workload() == QosWorkload.SEARCH).map(Point::form)
                .distinct().toList();
        lossReport(QosWorkload.MICRO, Form.HYBRID, "qos-micro", "Figure 4.8: Micro-benchmark, hybrid yields,"
                + " LossPercent by demand").write(root, command);
        for (Form form : searchForms) {
            lossReport(QosWorkload.SEARCH, form, "qos-search-" + form.label(), "Figure 4.9: Differentiated Search, "
                    + form.label() + " yields, LossPercent by demand").write(root, command);
        }
        perClass().write(root, command);
        calibrationReport().write(root, command);
    }

    private Report lossReport(QosWorkload workload, Form form, String name, String title) {
        Report report = new Report(name, title, "demand %", "rate req/s", "policy", "LossPercent", "node LossPercent",
                "within D %", "dropped %", "gold loss %", "silver loss %", "bronze loss %", "mean response ms");
        report.axes("arrival demand (% of the calibrated 100%)", "LossPercent (%)", false);
        List<Point> mine = points.stream().filter(p -> p.workload() == workload && p.form() == form).toList();
        for (Point p : mine) {
            QosTally.Figures t = p.total();
            report.row(p.level(), p.rate(), p.policy().configName(), t.lossPercent(), p.nodeLoss(),
                    100.0 * t.onTime() / Math.max(1, t.arrivals()), 100.0 * t.dropped() / Math.max(1, t.arrivals()),
                    p.classes().get(0).lossPercent(), p.classes().get(1).lossPercent(),
                    p.classes().get(2).lossPercent(), t.meanResponseMillis());
            report.point(p.policy().configName(), p.level(), t.lossPercent());
        }
        report.note(setup(workload, form));
        report.note(aims(mine));
        report.note("LossPercent = (offered - realised yield) / offered, from the yields of the response times the"
                + " load generator measured (from each call's scheduled send, so a late sender cannot hide queueing) over"
                + " the recorded window; a dropped or failed call yields 0. \"node LossPercent\" is the same figure from"
                + " the server's own ClassStats over the whole round (warm-up included, response time from when the"
                + " node queued the call), as a cross-check.");
        report.note(runNote);
        return report;
    }

    private String setup(QosWorkload workload, Form form) {
        double full = points.stream().filter(p -> p.workload() == workload && p.level() == 100).mapToDouble(
                Point::rate).findFirst().orElse(Double.NaN);
        Point any = points.stream().filter(p -> p.workload() == workload && p.form() == form).findFirst().orElse(null);
        String classes = String.join(", ", workload.classes().stream().map(c -> String.format(Locale.ROOT,
                "%s %.0f%% of requests, service %.1f ± %.1f ms, C = %.0f", c.name(), 100 * c.share(),
                c.serviceMillis() / QosWorkload.SCALE, c.serviceSdMillis() / QosWorkload.SCALE, c.fullYield()))
                .toList());
        return String.format(Locale.ROOT, "Setup: %s, %s yields with D = %d ms%s (the dissertation's times / %d);"
                + " %s. One server per policy with %d workers, all policies side by side on the same request sequence;"
                + " Adaptive switches to Greedy above 5%% drops in a %d s window (30 s / %d). 100%% demand = %.1f req/s"
                + " (see qos-calibration.md). Recorded %.0f s per point%s.",
                workload.label(), form.label(), QosWorkload.DEADLINE.toMillis(),
                form == Form.HYBRID ? ", D' = D/2, C' = C/2" : "", QosWorkload.SCALE, classes, QosCluster.WORKERS,
                QosExperiment.ADAPTIVE_WINDOW.toSeconds(), QosWorkload.SCALE, full,
                any == null ? Double.NaN : any.seconds(), quick ? " (--quick)" : "");
    }

    private String aims(List<Point> mine) {
        StringBuilder s = new StringBuilder("Aims (same run): Adaptive's realised yield / the better of YID and Greedy"
                + " (aim >= " + ADAPTIVE_AIM + "), Adaptive's LossPercent minus the better one's, and FIFO's LossPercent"
                + " minus the best policy's:");
        int met = 0;
        int levels = 0;
        for (int level : mine.stream().map(Point::level).distinct().toList()) {
            Optional<Aim> aim = aim(mine.stream().filter(p -> p.level() == level).toList());
            if (aim.isEmpty()) {
                continue;
            }
            levels++;
            met += aim.get().met() ? 1 : 0;
            s.append(String.format(Locale.ROOT, " %d%%: %.3f (%+.1f pt, FIFO %+.1f pt)%s;", level, aim.get().ratio(),
                    aim.get().lossPoints(), aim.get().fifoPoints(), aim.get().met() ? "" : " MISSED"));
        }
        return s.append(String.format(Locale.ROOT, " met at %d of %d levels.", met, levels)).toString();
    }

    /** Figure 4.10: per class at 200% demand (Differentiated Search, hybrid; else whatever ran at 200%). */
    private Report perClass() {
        List<Point> at200 = points.stream().filter(p -> p.level() == 200 && p.workload() == QosWorkload.SEARCH
                && p.form() == Form.HYBRID).toList();
        if (at200.isEmpty()) {
            at200 = points.stream().filter(p -> p.level() == 200 && p.workload() == QosWorkload.MICRO).toList();
        }
        String what = at200.isEmpty() ? "nothing ran at 200%" : at200.get(0).workload().label() + ", "
                + at200.get(0).form().label() + " yields";
        Report report = new Report("qos-per-class", "Figure 4.10: per-class throughput and response time at 200% demand ("
                + what + ")", "policy", "class", "offered req/s", "within D req/s", "answered req/s", "dropped req/s",
                "mean response ms", "LossPercent");
        report.axes("policy", "requests answered within D per second", false);
        for (Point p : at200) {
            for (int i = 0; i < p.classes().size(); i++) {
                QosTally.Figures f = p.classes().get(i);
                String name = p.workload().classes().get(i).name();
                report.row(p.policy().configName(), name, f.arrivals() / p.seconds(), f.onTime() / p.seconds(),
                        f.answered() / p.seconds(), f.dropped() / p.seconds(), f.meanResponseMillis(),
                        f.lossPercent());
                report.categoryPoint(name, p.policy().configName(), f.onTime() / p.seconds());
            }
            QosTally.Figures t = p.total();
            report.row(p.policy().configName(), "all", t.arrivals() / p.seconds(), t.onTime() / p.seconds(),
                    t.answered() / p.seconds(), t.dropped() / p.seconds(), t.meanResponseMillis(), t.lossPercent());
        }
        report.note("Throughput counts the requests answered within D per second of the recorded window; the mean"
                + " response time is over every answered request (from its scheduled send). " + runNote);
        return report;
    }

    private Report calibrationReport() {
        Report report = new Report("qos-calibration", "100% demand: the largest rate with more than 95% of requests"
                + " within D under EDF", "service", "rate req/s", "% of the workers' capacity", "within D %", "passed");
        List<String> found = new ArrayList<>();
        for (QosWorkload workload : QosWorkload.values()) {
            List<Step> steps = calibration.stream().filter(s -> s.workload() == workload).toList();
            for (Step s : steps) {
                report.row(workload.label(), s.rate(), 100 * s.rate() / s.capacity(), 100 * s.onTime(),
                        s.passed() ? "yes" : "no");
            }
            points.stream().filter(p -> p.workload() == workload && p.level() == 100).findFirst().ifPresent(p ->
                    found.add(String.format(Locale.ROOT, "%s %.1f req/s (%.0f%% of the %.1f req/s that would keep %d"
                            + " workers always busy)", workload.label(), p.rate(), 100 * p.rate()
                            / workload.capacity(QosCluster.WORKERS), workload.capacity(QosCluster.WORKERS),
                            QosCluster.WORKERS)));
        }
        report.note("Bisection between 0.5 and 1.2 times the workers' capacity, on the EDF server, each step from an"
                + " idle node with its own seed. 100% demand: " + String.join("; ", found) + ". " + runNote);
        return report;
    }
}
