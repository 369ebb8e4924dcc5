package io.neptune.benchmarks;

import io.neptune.benchmarks.QosWorkload.Form;
import io.neptune.core.ClassStats;
import io.neptune.core.ServiceClass;
import io.neptune.core.YieldFunction;
import io.neptune.server.SchedulingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * Issue 10: the node-level scheduling experiments of the dissertation's section 4.5.2 (Figures 4.8,
 * 4.9 and 4.10), scaled down by {@link QosWorkload#SCALE}. One round runs every
 * {@link SchedulingPolicy} at once, each on its own emulated server ({@link QosCluster}) fed the same
 * request sequence (same seed), and measures LossPercent from the yields of the response times the
 * load generator saw ({@link QosTally}), cross-checked against each node's {@link ClassStats}.
 *
 * <p>100% demand is found as the dissertation does: the largest arrival rate at which more than 95%
 * of the requests complete within D under EDF (a bisection between half and 1.2 times the rate that
 * would keep both workers busy); the other levels scale the arrival intervals.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.neptune.benchmarks.QosExperiment [--quick]} from the
 * repository root; writes {@code docs/benchmarks/qos-*}. {@code --quick} runs fewer demand levels, one
 * yield form of Differentiated Search and shorter rounds ({@link Plan#QUICK}), and Figure 4.11 on 8
 * servers only ({@link QosScalability.Plan#QUICK}).
 */
public final class QosExperiment {
    /** The parts {@code --figure} can choose. */
    static final List<String> FIGURES = List.of("4.8-4.10", "4.11", "4.12");
    /** Every policy, the baseline first. */
    static final List<SchedulingPolicy> POLICIES = List.of(SchedulingPolicy.FIFO, SchedulingPolicy.EDF,
            SchedulingPolicy.YID, SchedulingPolicy.GREEDY, SchedulingPolicy.ADAPTIVE);
    /** The share of requests that must complete within D at 100% demand under EDF. */
    static final double CALIBRATION_ON_TIME = 0.95;
    /** Adaptive's window: the dissertation's 30 s, scaled like every other time. */
    static final Duration ADAPTIVE_WINDOW = Duration.ofSeconds(30).dividedBy(QosWorkload.SCALE);
    private static final long DRAIN_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final Plan plan;
    private final long startedNanos = System.nanoTime();
    private final List<Point> points = new ArrayList<>();
    private final List<Step> calibration = new ArrayList<>();

    /**
     * How long and over what each part runs.
     *
     * @param jitWarmup an unrecorded round at 50% demand before the first measurement of a cluster
     * @param warmup unrecorded time at the start of each round (longer than the Adaptive window)
     * @param measure recorded time of each round
     * @param stepWarmup unrecorded time at the start of each calibration step
     * @param step recorded time of each calibration step
     * @param steps calibration steps (bisections)
     * @param microLevels the demand levels of the Micro-benchmark, percent
     * @param searchForms the yield forms Differentiated Search runs with
     * @param searchLevels the demand levels of Differentiated Search, percent
     */
    record Plan(Duration jitWarmup, Duration warmup, Duration measure, Duration stepWarmup, Duration step, int steps,
            List<Integer> microLevels, List<Form> searchForms, List<Integer> searchLevels) {
        /**
         * The quick plan: rounds of 4 + 4 s (the warm-up still longer than Adaptive's 3 s window); four
         * calibration steps of 1 + 4 s (100% demand to within 4.4% of the workers' capacity, the full
         * plan's six to within 1.1%); the Micro-benchmark at five demand levels, two under-load, 100% and
         * two in overload, up to the 200% of Figure 4.10; Differentiated Search with hybrid yields only,
         * at 50, 100 and 200%.
         */
        static final Plan QUICK = new Plan(Duration.ofSeconds(2), Duration.ofSeconds(4), Duration.ofSeconds(4),
                Duration.ofSeconds(1), Duration.ofSeconds(4), 4, List.of(20, 60, 100, 150, 200),
                List.of(Form.HYBRID), List.of(50, 100, 200));
        /** The full plan: rounds of 5 + 30 s, ten levels each, all three yield forms of Differentiated Search. */
        static final Plan FULL = new Plan(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofSeconds(30),
                Duration.ofSeconds(3), Duration.ofSeconds(15), 6,
                List.of(20, 40, 60, 80, 100, 120, 140, 160, 180, 200), List.of(Form.HYBRID, Form.THROUGHPUT,
                Form.RESPTIME), List.of(20, 40, 60, 80, 100, 120, 140, 160, 180, 200));
    }

    /**
     * One policy at one demand level.
     *
     * @param workload the service
     * @param form the yield form
     * @param level the demand, percent of the calibrated 100%
     * @param rate the offered rate, requests per second
     * @param policy the node's policy
     * @param classes the generator's figures per class over the recorded window
     * @param every the generator's figures over every call of the round (warm-up included)
     * @param nodeLoss the node's LossPercent over the round, from its {@link ClassStats}
     * @param seconds the recorded window's length
     */
    record Point(QosWorkload workload, Form form, int level, double rate, SchedulingPolicy policy,
            List<QosTally.Figures> classes, QosTally.Figures every, double nodeLoss, double seconds) {
        QosTally.Figures total() {
            return classes.stream().reduce(new QosTally.Figures(0, 0, 0, 0, 0, 0, 0, Double.NaN),
                    QosTally.Figures::plus);
        }
    }

    /**
     * One calibration step.
     *
     * @param workload the service
     * @param rate the offered rate
     * @param capacity the rate that keeps every worker busy (no overhead)
     * @param onTime the share of requests answered within D
     */
    record Step(QosWorkload workload, double rate, double capacity, double onTime) {
        boolean passed() {
            return onTime > CALIBRATION_ON_TIME;
        }
    }

    private QosExperiment(Plan plan) {
        this.plan = plan;
    }

    /**
     * Runs the experiment: {@code --quick} for the short plans ({@link Plan#QUICK} and
     * {@link QosScalability.Plan#QUICK}; Figure 4.12's timeline is the same in both modes), {@code --figure
     * 4.8-4.10|4.11|4.12} (repeatable) for a part only; every part by default.
     */
    public static void main(String[] args) throws Exception {
        boolean quick = false;
        Set<String> figures = new LinkedHashSet<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--quick")) {
                quick = true;
            } else if (args[i].equals("--figure") && i + 1 < args.length && FIGURES.contains(args[i + 1])) {
                figures.add(args[++i]);
            } else {
                throw new IllegalArgumentException("argument: '" + args[i] + "' (expected: --quick or --figure one of "
                        + FIGURES + ")");
            }
        }
        if (figures.isEmpty()) {
            figures.addAll(FIGURES);
        }
        QosExperiment experiment = new QosExperiment(quick ? Plan.QUICK : Plan.FULL);
        ExperimentRun run = ExperimentRun.begin(String.format(Locale.ROOT, "qos %s: %d policies side by side, one"
                + " server each with %d workers; Neptune vs server partitioning on in-JVM clusters; times scaled 1/%d",
                figures, POLICIES.size(), QosCluster.WORKERS, QosWorkload.SCALE));
        String command = ExperimentRun.command("qos", args);
        double search = Double.NaN;
        if (figures.contains("4.8-4.10")) {
            experiment.run(QosWorkload.MICRO, List.of(Form.HYBRID), experiment.plan.microLevels());
            search = experiment.run(QosWorkload.SEARCH, experiment.plan.searchForms(), experiment.plan.searchLevels());
            new QosReports(experiment.points, experiment.calibration, quick, run.finish()).write(run.root(), command);
        }
        if (figures.contains("4.11")) {
            if (Double.isNaN(search)) {
                try (QosCluster edf = QosCluster.start(List.of(SchedulingPolicy.EDF),
                        QosWorkload.SEARCH.serviceClasses(Form.HYBRID), ADAPTIVE_WINDOW)) {
                    search = experiment.calibrate(edf, QosWorkload.SEARCH);
                }
            }
            double perWorker = search / QosCluster.WORKERS;
            QosScalability.Plan scalability = quick ? QosScalability.Plan.QUICK : QosScalability.Plan.FULL;
            List<QosScalability.Point> points = QosScalability.run(scalability, perWorker, experiment::log);
            QosClusterReports.scalability(points, scalability, perWorker, quick, run.finish(), run.root(), command);
        }
        if (figures.contains("4.12")) {
            QosTimeline.Result timeline = QosTimeline.run(quick ? QosTimeline.Plan.QUICK : QosTimeline.Plan.FULL,
                    experiment::log);
            QosClusterReports.timeline(timeline, quick, run.finish(), run.root(), command);
        }
    }

    private void log(String line) {
        System.out.printf(Locale.ROOT, "[%4d s] %s%n", elapsed(), line);
    }

    /**
     * Calibrates {@code workload} on the first form's cluster, then runs every form at every level;
     * returns the calibrated 100% rate.
     */
    private double run(QosWorkload workload, List<Form> forms, List<Integer> levels) throws InterruptedException {
        double full = Double.NaN;
        for (Form form : forms) {
            List<ServiceClass> classes = workload.serviceClasses(form);
            try (QosCluster cluster = QosCluster.start(POLICIES, classes, ADAPTIVE_WINDOW)) {
                double capacity = workload.capacity(QosCluster.WORKERS);
                round(cluster, workload, form, 0, 0.5 * capacity, plan.jitWarmup(), Duration.ZERO, false);
                System.out.printf(Locale.ROOT, "[%4d s] %s/%s: cluster up, JIT warm-up done%n", elapsed(),
                        workload.label(), form.label());
                if (Double.isNaN(full)) {
                    full = calibrate(cluster, workload);
                }
                for (int level : levels) {
                    points.addAll(round(cluster, workload, form, level, full * level / 100.0, plan.warmup(),
                            plan.measure(), true));
                }
            }
        }
        return full;
    }

    /**
     * Bisects for the largest rate at which more than {@link #CALIBRATION_ON_TIME} of the requests
     * are answered within D under EDF, between half and 1.2 times the workers' capacity; returns the
     * highest rate that passed (the lower bound if none did, which it says).
     */
    double calibrate(QosCluster cluster, QosWorkload workload) throws InterruptedException {
        int edf = cluster.policies().indexOf(SchedulingPolicy.EDF);
        double capacity = workload.capacity(QosCluster.WORKERS);
        double low = 0.5 * capacity;
        double high = 1.2 * capacity;
        boolean anyPassed = false;
        for (int i = 0; i < plan.steps(); i++) {
            double rate = (low + high) / 2;
            QosTally tally = new QosTally(yields(workload, Form.HYBRID), QosWorkload.DEADLINE.toNanos(), false);
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            long from = start + plan.stepWarmup().toNanos();
            long end = from + plan.step().toNanos();
            OpenLoopRun run = new OpenLoopRun(List.of(cluster.client()), cluster.service(edf),
                    workload.arrivals(rate), tally, seed(workload, 1000 + i));
            run.start("calibrate", start, from, end);
            run.awaitResult(end - System.nanoTime() + DRAIN_NANOS);
            QosTally.Figures total = tally.total();
            Step step = new Step(workload, rate, capacity, (double) total.onTime() / Math.max(1, total.arrivals()));
            calibration.add(step);
            System.out.printf(Locale.ROOT, "[%4d s] %s calibration under EDF: %.1f req/s (%.0f%% of the workers'"
                    + " capacity) -> %.1f%% within D of %d, %s%n", elapsed(), workload.label(), rate,
                    100 * rate / capacity, 100 * step.onTime(), total.arrivals(), step.passed() ? "pass" : "FAIL");
            if (step.passed()) {
                low = rate;
                anyPassed = true;
            } else {
                high = rate;
            }
        }
        if (!anyPassed) {
            System.out.printf(Locale.ROOT, "[%4d s] %s: no calibration step passed; 100%% demand is taken as the"
                    + " lower bound %.1f req/s%n", elapsed(), workload.label(), low);
        }
        System.out.printf(Locale.ROOT, "[%4d s] %s: 100%% demand = %.1f req/s (%.0f%% of the workers' capacity"
                + " %.1f req/s)%n", elapsed(), workload.label(), low, 100 * low / capacity, capacity);
        return low;
    }

    /** Runs every policy at {@code rate} at once; returns the points (none when {@code recorded} is false). */
    private List<Point> round(QosCluster cluster, QosWorkload workload, Form form, int level, double rate,
            Duration warmup, Duration measure, boolean recorded) throws InterruptedException {
        List<YieldFunction> yields = yields(workload, form);
        long deadline = QosWorkload.DEADLINE.toNanos();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        long from = start + warmup.toNanos();
        long end = from + measure.toNanos();
        int slots = cluster.policies().size();
        List<OpenLoopRun> runs = new ArrayList<>();
        List<QosTally> measured = new ArrayList<>();
        List<QosTally> every = new ArrayList<>();
        List<List<ClassStats>> before = new ArrayList<>();
        for (int slot = 0; slot < slots; slot++) {
            QosTally window = new QosTally(yields, deadline, false);
            QosTally all = new QosTally(yields, deadline, true);
            measured.add(window);
            every.add(all);
            before.add(cluster.stats(slot));
            OpenLoopRun run = new OpenLoopRun(List.of(cluster.client()), cluster.service(slot),
                    workload.arrivals(rate), (request, elapsed, error, inWindow) -> {
                        window.ended(request, elapsed, error, inWindow);
                        all.ended(request, elapsed, error, inWindow);
                    }, seed(workload, level));
            long offset = TimeUnit.MICROSECONDS.toNanos(1_370L * slot); // same sequence, not the same instants
            run.start("qos-" + slot, start + offset, from + offset, end + offset);
            runs.add(run);
        }
        List<OpenLoopRun.Result> results = new ArrayList<>();
        for (OpenLoopRun run : runs) {
            results.add(run.awaitResult(end - System.nanoTime() + DRAIN_NANOS));
        }
        if (!recorded) {
            return List.of();
        }
        List<Point> round = new ArrayList<>();
        for (int slot = 0; slot < slots; slot++) {
            QosTally tally = measured.get(slot);
            List<QosTally.Figures> classes = IntStream.range(0, yields.size()).mapToObj(tally::of).toList();
            Point p = new Point(workload, form, level, rate, cluster.policies().get(slot), classes,
                    every.get(slot).total(), nodeLoss(before.get(slot), cluster.stats(slot)),
                    measure.toNanos() / 1e9);
            round.add(p);
            print(p, results.get(slot));
        }
        return round;
    }

    /** LossPercent from the difference of two snapshots of a node's class counters (every class). */
    static double nodeLoss(List<ClassStats> before, List<ClassStats> after) {
        double offered = 0;
        double realized = 0;
        for (ClassStats a : after) {
            ClassStats b = before.stream().filter(s -> s.serviceClass().equals(a.serviceClass())).findFirst()
                    .orElse(null);
            offered += a.offeredYield() - (b == null ? 0 : b.offeredYield());
            realized += a.realizedYield() - (b == null ? 0 : b.realizedYield());
        }
        return offered == 0 ? 0 : 100 * (offered - realized) / offered;
    }

    private void print(Point p, OpenLoopRun.Result r) {
        QosTally.Figures t = p.total();
        StringBuilder perClass = new StringBuilder();
        for (int i = 0; i < p.classes().size(); i++) {
            perClass.append(i == 0 ? "" : "/").append(String.format(Locale.ROOT, "%.1f",
                    p.classes().get(i).lossPercent()));
        }
        System.out.printf(Locale.ROOT, "[%4d s] %s/%s %3d%% (%5.1f req/s) %-8s loss %5.1f%% (node %5.1f%%, "
                        + "generator %5.1f%% over the round), within D %5.1f%%, dropped %4.1f%%, per class %s%%, "
                        + "sender lag %.1f/%.0f ms%s%n",
                elapsed(), p.workload().label(), p.form().label(), p.level(), p.rate(), p.policy().configName(),
                t.lossPercent(), p.nodeLoss(), p.every().lossPercent(), 100.0 * t.onTime() / Math.max(1, t.arrivals()),
                100.0 * t.dropped() / Math.max(1, t.arrivals()), perClass, r.meanLag(), r.maxLag(),
                t.failed() > 0 ? ", " + t.failed() + " failed otherwise" : "");
    }

    private static List<YieldFunction> yields(QosWorkload workload, Form form) {
        return workload.serviceClasses(form).stream().map(ServiceClass::yield).toList();
    }

    /** The same seed for every policy and form at a level: every server sees the same requests. */
    private static long seed(QosWorkload workload, int level) {
        return 10_007L * workload.ordinal() + level;
    }

    private long elapsed() {
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos);
    }
}
