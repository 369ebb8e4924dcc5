package io.neptune.benchmarks;

import io.neptune.client.BalancingPolicy;
import io.neptune.core.MembershipConfig;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Issue 5, experiment 2: the load-balancing policies of the dissertation's chapter 3 (Figures 3.2,
 * 3.3 and 3.5, Table 3.2) on 16 emulated servers and 4 client nodes in this JVM ({@link
 * BalancingCluster}). Each server has one worker per service and a request holds it for its
 * service time by sleeping ({@link WorkService}); open-loop arrivals ({@link OpenLoopRun}) offer
 * 50% or 90% of the 16 workers' capacity. Mean response times are normalized to the ideal policy
 * (a central tracker of outstanding requests) measured side by side in the same round.
 *
 * <p>A round runs several policies at once, each on its own slot service: every slot is an
 * independent emulated 16-server system fed the same request sequence (same seed), so machine
 * noise hits all policies of a round alike.
 *
 * <p>Usage: {@code java -cp benchmarks.jar io.neptune.benchmarks.LoadBalancingExperiment [--quick]};
 * writes {@code docs/benchmarks/load-balancing.*}, {@code broadcast-interval.*} and
 * {@code discard-slow-polls.*} under the working directory. {@code --quick} runs shorter rounds, the
 * poll sizes at 90% load only and broadcast on one workload ({@link Plan#QUICK}).
 */
public final class LoadBalancingExperiment {
    private static final List<Double> LOADS = List.of(0.5, 0.9);
    /** The load of the dissertation's claims (Figures 3.2, 3.3 and 3.5, Table 3.2). */
    private static final double HIGH_LOAD = 0.9;
    private static final PolicySetup KEEP_SLOW_POLLS = PolicySetup.polling(3, false);
    /**
     * The policies compared with ideal, in units that always share a round: poll size 3 with and
     * without discarding slow polls (Table 3.2) run side by side.
     */
    private static final List<List<PolicySetup>> POLICY_GROUPS = List.of(
            List.of(PolicySetup.polling(3, true), KEEP_SLOW_POLLS, PolicySetup.RANDOM),
            List.of(PolicySetup.polling(2, true), PolicySetup.polling(4, true)),
            List.of(PolicySetup.polling(8, true)),
            List.of(PolicySetup.LOAD_AWARE),
            List.of(PolicySetup.P2C));
    /**
     * Calls plus load polls per second one round may offer. Every node shares the host's 2 cores,
     * so a round that polls 16 servers 8 times per call would measure CPU contention instead of the
     * policy: about 6,500 messages per second keep this JVM under about one core.
     */
    private static final double MESSAGE_BUDGET = 6_500;
    private static final Duration JIT_WARM_UP = Duration.ofSeconds(4);
    /** Simulated warm-up of the model's steady-state figures. */
    private static final Duration STEADY_WARMUP = Duration.ofSeconds(60);
    /** Simulated window of the model's steady-state figures. */
    private static final Duration STEADY_WINDOW = Duration.ofSeconds(600);
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(3);

    private final Plan plan;
    private final long startedNanos = System.nanoTime();
    private final List<Point> pollPoints = new ArrayList<>();
    private final List<Point> broadcastPoints = new ArrayList<>();
    private final QueueingModel model = new QueueingModel(BalancingCluster.SERVERS);
    private final Map<List<Object>, Double> modelCache = new HashMap<>();
    private final Map<Workload, PollProbe.Result> pollProfiles = new EnumMap<>(Workload.class);

    /**
     * How long and over what each part runs.
     *
     * @param warmup unrecorded time at the start of each round
     * @param measure recorded time of each round
     * @param pollLoads the loads the poll sizes, random, load-aware and p2c run at (broadcast runs at every
     *     load of {@link #LOADS} in any plan: its loads share one round)
     * @param intervalsMillis the mean announce intervals of the broadcast policy
     * @param broadcastWorkloads the workloads the broadcast policy runs on
     */
    record Plan(Duration warmup, Duration measure, List<Double> pollLoads, List<Double> intervalsMillis,
            List<Workload> broadcastWorkloads) {
        /**
         * The quick plan: rounds of 2 + 4 s; the poll sizes at 90% load only, where every claim of the
         * dissertation's chapter 3 is made (the full plan adds 50%, which takes 7 of the 16 poll rounds);
         * broadcast on Poisson/Exp at the two announce intervals the dissertation's claims name, 31.25 ms
         * and 1 s (each interval starts a cluster of its own).
         */
        static final Plan QUICK = new Plan(Duration.ofSeconds(2), Duration.ofSeconds(4), List.of(HIGH_LOAD),
                List.of(31.25, 1000.0), List.of(Workload.POISSON_EXP));
        /** The full plan: rounds of 10 + 60 s, both loads, six intervals, every workload. */
        static final Plan FULL = new Plan(Duration.ofSeconds(10), Duration.ofSeconds(60), LOADS,
                List.of(31.25, 62.5, 125.0, 250.0, 500.0, 1000.0), List.of(Workload.values()));
    }

    /**
     * One measured data point.
     *
     * @param workload the workload
     * @param load the offered fraction of capacity
     * @param setup the policy
     * @param intervalMillis the mean announce interval of the servers
     * @param result the measurement
     * @param ideal the ideal policy's mean response time in the same round, in milliseconds
     * @param cores CPU cores this JVM used on average during the round
     * @param modelWindow the {@link QueueingModel}'s mean response time normalized to its ideal, on
     *     the same requests in the same window (NaN until computed)
     * @param modelSteady the same over a long window: the model's steady state (NaN until computed)
     * @param pollsPerCall load polls the policy's clients sent per call during the round, warm-up included
     */
    record Point(Workload workload, double load, PolicySetup setup, double intervalMillis, OpenLoopRun.Result result,
            double ideal, double cores, double modelWindow, double modelSteady, double pollsPerCall) {
        /** The mean response time normalized to the ideal policy's. */
        double normalized() {
            return result.mean() / ideal;
        }

        Point withModel(double window, double steady) {
            return new Point(workload, load, setup, intervalMillis, result, ideal, cores, window, steady, pollsPerCall);
        }
    }

    private record Entry(Workload workload, double load, PolicySetup setup) {}

    private LoadBalancingExperiment(Plan plan) {
        this.plan = plan;
    }

    /** Runs the experiment; {@code --quick} for {@link Plan#QUICK}. */
    public static void main(String[] args) throws Exception {
        boolean quick = ExperimentRun.quick(args);
        String command = "java -Xmx1g -cp benchmarks/target/benchmarks.jar " + LoadBalancingExperiment.class.getName()
                + (quick ? " --quick" : "");
        LoadBalancingExperiment experiment = new LoadBalancingExperiment(quick ? Plan.QUICK : Plan.FULL);
        String loadBefore = Report.loadAverage();
        System.out.printf("load balancing: %d servers x %d worker, %d client nodes; load average %s%n",
                BalancingCluster.SERVERS, BalancingCluster.WORKERS, BalancingCluster.CLIENT_NODES, loadBefore);
        experiment.pollSizes();
        experiment.broadcast();
        String loadAfter = Report.loadAverage();
        System.out.printf("[%4d s] cluster runs done; load average %s%n", experiment.elapsedSeconds(), loadAfter);
        List<Point> polls = experiment.withModel(experiment.pollPoints);
        List<Point> broadcasts = experiment.withModel(experiment.broadcastPoints);
        System.out.printf("[%4d s] queueing model done%n", experiment.elapsedSeconds());
        new LoadBalancingReports(experiment.plan, polls, broadcasts, experiment.pollProfiles,
                "load average (1, 5, 15 min) " + loadBefore + " at the start and " + loadAfter + " at the end")
                .write(Path.of("").toAbsolutePath(), command);
    }

    /**
     * Figures 3.3/3.5 and Table 3.2: every poll size, random and ideal per workload and load, in as
     * few rounds as {@link #MESSAGE_BUDGET} allows, each round with its own ideal.
     */
    private void pollSizes() throws InterruptedException {
        try (BalancingCluster cluster = BalancingCluster.start(POLICY_GROUPS.stream().mapToInt(List::size).sum() + 1,
                MembershipConfig.DEFAULT_ANNOUNCE_INTERVAL)) {
            warmUpJit(cluster);
            for (Workload workload : Workload.values()) {
                for (double load : plan.pollLoads()) {
                    for (List<PolicySetup> group : groups(workload, load)) {
                        List<Entry> entries = new ArrayList<>();
                        group.forEach(setup -> entries.add(new Entry(workload, load, setup)));
                        entries.add(new Entry(workload, load, PolicySetup.IDEAL));
                        pollPoints.addAll(round(cluster, entries, Double.NaN));
                    }
                }
            }
        }
    }

    /** Runs every poll policy for a few seconds, unrecorded, so that the first round is not the JIT's. */
    private void warmUpJit(BalancingCluster cluster) throws InterruptedException {
        List<Entry> entries = new ArrayList<>();
        POLICY_GROUPS.forEach(group -> group.forEach(
                setup -> entries.add(new Entry(Workload.POISSON_EXP, 0.3, setup))));
        entries.add(new Entry(Workload.POISSON_EXP, 0.3, PolicySetup.IDEAL));
        List<OpenLoopRun.Result> results = runRound(cluster, entries, Duration.ZERO, JIT_WARM_UP, -1);
        System.out.printf("[%4d s] JIT warm-up done: %d calls, %d failed%n", elapsedSeconds(),
                results.stream().mapToLong(r -> r.requests() + r.failures()).sum(),
                results.stream().mapToLong(OpenLoopRun.Result::failures).sum());
    }

    /**
     * The policy groups of one workload and load: adjacent {@link #POLICY_GROUPS} merged while the
     * calls and polls of the merged group (plus its ideal) stay within {@link #MESSAGE_BUDGET}.
     */
    private static List<List<PolicySetup>> groups(Workload workload, double load) {
        double rate = workload.rate(load, BalancingCluster.SERVERS, BalancingCluster.WORKERS);
        List<List<PolicySetup>> groups = new ArrayList<>();
        List<PolicySetup> current = new ArrayList<>();
        for (List<PolicySetup> unit : POLICY_GROUPS) {
            List<PolicySetup> policies = unit.stream()
                    .filter(p -> !p.equals(KEEP_SLOW_POLLS) || load == HIGH_LOAD) // Table 3.2: 90% only
                    .toList();
            if (!current.isEmpty() && rate * (messages(current) + messages(policies) + 1) > MESSAGE_BUDGET) {
                groups.add(current);
                current = new ArrayList<>();
            }
            current.addAll(policies);
        }
        groups.add(current);
        return groups;
    }

    /**
     * Calls plus polls per arrival of {@code policies}, at most: load-aware may weigh every server
     * when its service takes long beside a poll, and then polls those whose report is stale.
     */
    private static int messages(List<PolicySetup> policies) {
        return policies.stream().mapToInt(p -> p.policy() == BalancingPolicy.RANDOM_POLLING ? 1 + p.pollSize()
                : p.policy() == BalancingPolicy.LOAD_AWARE ? 1 + BalancingCluster.SERVERS : 1).sum();
    }

    /** Figure 3.2: broadcast against ideal, one cluster per mean announce interval. */
    private void broadcast() throws InterruptedException {
        for (double interval : plan.intervalsMillis()) {
            Duration announce = Duration.ofNanos(Math.round(interval * 1e6));
            try (BalancingCluster cluster = BalancingCluster.start(2 * LOADS.size(), announce)) {
                for (Workload workload : plan.broadcastWorkloads()) {
                    List<Entry> entries = new ArrayList<>();
                    for (double load : LOADS) {
                        entries.add(new Entry(workload, load, PolicySetup.BROADCAST));
                        entries.add(new Entry(workload, load, PolicySetup.IDEAL));
                    }
                    broadcastPoints.addAll(round(cluster, entries, interval));
                }
            }
        }
    }

    /**
     * Adds the {@link QueueingModel}'s ratios to ideal to every point: on the run's own requests and
     * window, and in steady state ({@link #STEADY_WARMUP}, {@link #STEADY_WINDOW}).
     */
    private List<Point> withModel(List<Point> points) {
        List<Point> modelled = new ArrayList<>();
        for (Point p : points) {
            modelled.add(p.withModel(modelRatio(p, plan.warmup(), plan.measure()),
                    modelRatio(p, STEADY_WARMUP, STEADY_WINDOW)));
        }
        return modelled;
    }

    private double modelRatio(Point p, Duration warmup, Duration window) {
        return model(p.workload(), p.load(), p.setup(), p.intervalMillis(), warmup, window)
                / model(p.workload(), p.load(), PolicySetup.IDEAL, Double.NaN, warmup, window);
    }

    private double model(Workload workload, double load, PolicySetup setup, double intervalMillis, Duration warmup,
            Duration window) {
        double interval = setup.equals(PolicySetup.BROADCAST) ? intervalMillis : Double.NaN;
        return modelCache.computeIfAbsent(List.of(workload, load, setup, interval, warmup, window),
                key -> model.meanResponseMillis(workload, load, setup, interval, seed(workload, load),
                        warmup.toMillis(), window.toMillis()));
    }

    /** Runs {@code entries} at once, entry {@code i} on slot {@code i}, and prints one line per point. */
    private List<Point> round(BalancingCluster cluster, List<Entry> entries, double intervalMillis)
            throws InterruptedException {
        long cpuBefore = processCpuNanos();
        long wallBefore = System.nanoTime();
        int probed = entries.stream().map(Entry::setup).toList().indexOf(KEEP_SLOW_POLLS);
        long[] pollsBefore = entries.stream().mapToLong(e -> cluster.pollsSent(e.setup())).toArray();
        List<OpenLoopRun.Result> results = runRound(cluster, entries, plan.warmup(), plan.measure(), probed);
        double cores = (processCpuNanos() - cpuBefore) / (double) (System.nanoTime() - wallBefore);
        List<Point> points = new ArrayList<>();
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            double ideal = idealMean(entries, results, e);
            double calls = e.workload().rate(e.load(), BalancingCluster.SERVERS, BalancingCluster.WORKERS)
                    * (plan.warmup().toNanos() + plan.measure().toNanos()) / 1e9;
            Point point = new Point(e.workload(), e.load(), e.setup(), intervalMillis, results.get(i), ideal, cores,
                    Double.NaN, Double.NaN, (cluster.pollsSent(e.setup()) - pollsBefore[i]) / calls);
            points.add(point);
            print(point);
        }
        return points;
    }

    /**
     * Runs {@code entries} at once and returns their results; when {@code probedSlot >= 0}, a
     * {@link PollProbe} times polls to that slot's servers during the recorded window.
     */
    private List<OpenLoopRun.Result> runRound(BalancingCluster cluster, List<Entry> entries, Duration warmup,
            Duration measure, int probedSlot) throws InterruptedException {
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        long measureFrom = start + warmup.toNanos();
        long end = measureFrom + measure.toNanos();
        List<OpenLoopRun> runs = new ArrayList<>();
        for (int slot = 0; slot < entries.size(); slot++) {
            Entry e = entries.get(slot);
            double rate = e.workload().rate(e.load(), BalancingCluster.SERVERS, BalancingCluster.WORKERS);
            OpenLoopRun run = new OpenLoopRun(cluster.clients(e.setup()), cluster.service(slot), e.workload(), rate,
                    e.setup().callOptions(), seed(e.workload(), e.load()));
            long offset = TimeUnit.MICROSECONDS.toNanos(1_370L * slot); // same sequence, not the same instants
            run.start(e.setup().label() + "-" + slot, start + offset, measureFrom + offset, end + offset);
            runs.add(run);
        }
        if (probedSlot >= 0) {
            TimeUnit.NANOSECONDS.sleep(measureFrom - System.nanoTime());
            PollProbe probe = new PollProbe(cluster.pollAddresses(probedSlot), cluster.service(probedSlot));
            probe.start();
            TimeUnit.NANOSECONDS.sleep(end - System.nanoTime());
            Entry e = entries.get(probedSlot);
            PollProbe.Result polls = probe.stop();
            pollProfiles.put(e.workload(), polls);
            System.out.printf(Locale.ROOT, "[%4d s] %-12s %2.0f%% polls: %d timed, %.1f%% over 10 ms, %.1f%% over "
                    + "20 ms, p50 %.2f ms, p99 %.1f ms, %d lost%n", elapsedSeconds(), e.workload().label(),
                    e.load() * 100, polls.polls(), polls.over10ms(), polls.over20ms(), polls.p50(), polls.p99(),
                    polls.lost());
        }
        List<OpenLoopRun.Result> results = new ArrayList<>();
        for (OpenLoopRun run : runs) {
            results.add(run.awaitResult(end - System.nanoTime() + DRAIN_TIMEOUT_NANOS));
        }
        return results;
    }

    /** The ideal policy's mean in the same round for the same workload and load. */
    private static double idealMean(List<Entry> entries, List<OpenLoopRun.Result> results, Entry of) {
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            if (e.setup().equals(PolicySetup.IDEAL) && e.workload() == of.workload() && e.load() == of.load()) {
                return results.get(i).mean();
            }
        }
        throw new IllegalStateException("no ideal run for " + of);
    }

    private void print(Point p) {
        OpenLoopRun.Result r = p.result();
        String interval = Double.isNaN(p.intervalMillis()) ? ""
                : String.format(Locale.ROOT, " every %.2f ms", p.intervalMillis());
        System.out.printf(Locale.ROOT, "[%4d s] %-12s %2.0f%% %-16s mean %7.1f ms = %5.2f x ideal, p50 %7.1f, "
                        + "p99 %7.1f ms, n=%d, failed=%d, held %.1f ms, lag %.1f/%.0f ms, JVM %.2f cores, %.2f polls/call%s%n",
                elapsedSeconds(), p.workload().label(), p.load() * 100, p.setup().label() + interval, r.mean(),
                p.normalized(), r.p50(), r.p99(), r.requests(), r.failures(), r.held(), r.meanLag(), r.maxLag(),
                p.cores(), p.pollsPerCall(), r.failures() > 0 ? " (first failure: " + r.firstFailure() + ")" : "");
    }

    private long elapsedSeconds() {
        return TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - startedNanos);
    }

    /** Same seed for the same workload and load: every policy sees the same requests. */
    private static long seed(Workload workload, double load) {
        return 31L * workload.ordinal() + Math.round(load * 100);
    }

    private static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return 0;
    }
}
