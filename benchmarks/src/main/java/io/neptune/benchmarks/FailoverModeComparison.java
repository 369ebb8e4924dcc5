package io.neptune.benchmarks;

import io.neptune.core.ConsistencyLevel;
import io.neptune.core.FailoverMode;
import io.neptune.server.ClusterAdmin;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The cost of {@code majority} fail-over against the dissertation's {@code fail-stop} on the
 * replication benchmark (issue 9, section 3): the discussion group on 4 nodes with 3 replicas per
 * partition, balanced, at levels 2 and 3 and at 10% and 50% writes, each in both modes, in one run.
 *
 * <p>Every measured case gets a fresh cluster (so no case inherits another's data or elections)
 * of the same emulated machines as {@link ReplicationExperiment}, and the two modes of one
 * configuration run back to back, in the order fail-stop, majority for the first configuration and
 * majority, fail-stop for the next (ABBA), so a drift of the shared host's load hits both modes
 * alike. Each case measures the process's CPU while the cluster is idle (the majority primaries'
 * heartbeats), one step at half the model capacity (write latency below saturation, where waiting
 * for the fastest majority instead of every secondary shows), and the saturation search.
 *
 * <p>Usage: {@code ./neptune bench replication --failover-modes [--quick] [--step-seconds N]
 * [--refinements K] [--variants REGEX]}; the report goes to {@code docs/benchmarks/failover-modes.*}.
 */
final class FailoverModeComparison {
    /** The option of {@code ./neptune bench replication} that runs this comparison. */
    static final String OPTION = "--failover-modes";
    static final int NODES = 4;
    static final int DEGREE = 3;
    private static final Duration IDLE_WINDOW = Duration.ofSeconds(5);

    private FailoverModeComparison() {}

    /**
     * One measured case.
     *
     * @param level consistency level (2 or 3)
     * @param writes share of requests that are writes
     * @param mode the fail-over mode of every partition
     */
    record Case(ConsistencyLevel level, double writes, FailoverMode mode) {
        String label() {
            return String.format(Locale.ROOT, "%d nodes, %d replicas, L%d, %.0f%% writes, %s", NODES, DEGREE,
                    level.ordinal() + 1, 100 * writes, mode.configName());
        }

        /** The same configuration in the other mode. */
        Case other() {
            return new Case(level, writes, mode == FailoverMode.MAJORITY ? FailoverMode.FAIL_STOP
                    : FailoverMode.MAJORITY);
        }
    }

    /**
     * What one run measures.
     *
     * @param quick whether this is the quick mode
     * @param step how long one load step offers its rate
     * @param refinements bisection steps after the doubling
     * @param cases every case, in run order
     * @param filtered whether {@code --variants} left some out
     */
    record Plan(boolean quick, Duration step, int refinements, List<Case> cases, boolean filtered) {}

    /**
     * What one case measured.
     *
     * @param c the case
     * @param model the emulated capacity ({@link ReplicationExperiment#modelCapacity})
     * @param idleCpuMillisPerSecond this process's CPU time per second while the cluster was idle
     * @param halfLoad the step at half the model capacity
     * @param outcome the saturation search
     * @param elections elections (epoch changes summed over the partitions) from the half-load step to
     *     the end of the search: primaries that stepped down under load, in majority mode
     * @param load the host's one-minute load average when the case began
     */
    record Measurement(Case c, double model, double idleCpuMillisPerSecond, OpenLoopProbe.Result halfLoad,
            SaturationSearch.Outcome outcome, long elections, String load) {}

    /** Runs the comparison; {@code args} are those of {@code ./neptune bench replication}, with {@link #OPTION}. */
    static void main(String[] args) {
        Plan plan = options(List.of(args));
        ExperimentRun run = ExperimentRun.begin(String.format(Locale.ROOT, "fail-over modes (%s): %d cases,"
                + " steps of %d s", plan.quick() ? "quick" : "full", plan.cases().size(), plan.step().toSeconds()));
        Map<Case, Measurement> results = run(plan);
        String context = run.finish();
        if (plan.filtered()) {
            System.out.println("a --variants run writes no report (it would replace the full one with a subset)");
            return;
        }
        report(plan, results, context).write(run.root(), ExperimentRun.command("replication", args));
        System.out.println("wrote docs/benchmarks/failover-modes.*");
    }

    /** Parses the options of {@link SearchOptions} besides {@link #OPTION}; quick and full differ only in steps. */
    static Plan options(List<String> args) {
        List<String> rest = args.stream().filter(a -> !a.equals(OPTION)).toList();
        SearchOptions o = SearchOptions.parse(rest, SearchOptions.defaults(true, Duration.ofSeconds(4), 2),
                SearchOptions.defaults(false, Duration.ofSeconds(10), 5));
        List<Case> all = cases();
        List<Case> kept = o.keep(all, Case::label);
        return new Plan(o.quick(), o.step(), o.refinements(), kept, kept.size() < all.size());
    }

    /** Levels 2 and 3 at 10% and 50% writes, each configuration's two modes in turn, ABBA. */
    static List<Case> cases() {
        List<Case> cases = new ArrayList<>();
        int configuration = 0;
        for (ConsistencyLevel level : List.of(ConsistencyLevel.LEVEL_2, ConsistencyLevel.LEVEL_3)) {
            for (double writes : new double[] {0.1, 0.5}) {
                Case failStop = new Case(level, writes, FailoverMode.FAIL_STOP);
                cases.addAll(configuration++ % 2 == 0 ? List.of(failStop, failStop.other())
                        : List.of(failStop.other(), failStop));
            }
        }
        return cases;
    }

    private static Map<Case, Measurement> run(Plan plan) {
        Map<Case, Measurement> results = new LinkedHashMap<>();
        boolean first = true;
        for (Case c : plan.cases()) {
            results.put(c, measure(plan, c, first));
            first = false;
        }
        return results;
    }

    private static Measurement measure(Plan plan, Case c, boolean first) {
        String load = Report.loadAverage().split(",")[0];
        double model = ReplicationExperiment.modelCapacity(NODES, DEGREE, c.writes(),
                ZipfPartitions.withImbalance(EmulatedDiscussion.PARTITIONS, ReplicationExperiment.BALANCED));
        long started = System.nanoTime();
        try (DiscussionCluster cluster = DiscussionCluster.start(NODES, DEGREE, EnumSet.of(c.level()), c.mode(),
                ReplicationExperiment.WORKERS, ReplicationExperiment.TIMES)) {
            System.out.printf(Locale.ROOT, "cluster %s for %s: ready in %.1f s%n", cluster.name(), c.label(),
                    (System.nanoTime() - started) / 1e9);
            OpenLoopProbe probe = new OpenLoopProbe(cluster.client(), EmulatedDiscussion.nameOf(c.level()),
                    c.writes(), ZipfPartitions.withImbalance(EmulatedDiscussion.PARTITIONS,
                            ReplicationExperiment.BALANCED), NODES, cluster::firstReplicaOf,
                    100L * c.level().ordinal() + Math.round(100 * c.writes()));
            for (int i = 0; i < (first ? 3 : 1); i++) { // the first case also warms the JIT for the rest
                ReplicationExperiment.warmUp(probe, model, c.label());
            }
            cluster.awaitIdle(300, 15_000);
            double idleCpu = idleCpuMillisPerSecond();
            cluster.awaitReady();
            cluster.awaitPreferredPrimaries(30_000);
            long epochsBefore = epochs(cluster, c.level());
            OpenLoopProbe.Result half = probe.run(0.5 * model, plan.step());
            System.out.printf(Locale.ROOT, "%s: half load %.0f req/s: %.1f%% on time, write p50 %.1f ms, p99 %.1f ms;"
                    + " idle CPU %.0f ms/s%n", c.label(), half.rate(), 100 * half.onTimeShare(), half.writeP50Millis(),
                    half.writeP99Millis(), idleCpu);
            SaturationSearch.Outcome outcome = search(plan, cluster, probe, c.label(), model);
            cluster.awaitReady();
            long elections = epochs(cluster, c.level()) - epochsBefore;
            System.out.printf(Locale.ROOT, "%s: %d elections during the measured steps%n", c.label(), elections);
            return new Measurement(c, model, idleCpu, half, outcome, elections, load);
        }
    }

    /**
     * {@link ReplicationExperiment#search}, except that each step also waits for every partition to
     * be led by its preferred replica again: in majority mode an overloaded step makes primaries step
     * down, and the handovers back would otherwise run in the next step and count against it.
     */
    private static SaturationSearch.Outcome search(Plan plan, DiscussionCluster cluster, OpenLoopProbe probe,
            String label, double model) {
        cluster.awaitReady();
        SaturationSearch search = new SaturationSearch(probe, plan.step(), plan.refinements(), () -> {
            boolean idle = cluster.awaitIdle(300, 15_000);
            cluster.awaitReady();
            if (!cluster.awaitPreferredPrimaries(30_000)) {
                System.out.printf(Locale.ROOT, "%s: some partitions not led by their first replica after 30 s%n",
                        label);
            }
            return idle && cluster.awaitIdle(300, 15_000);
        });
        return search.run(label, Math.max(5, 0.75 * model));
    }

    /**
     * The sum over the partitions of the highest epoch any replica reports: it grows by one with
     * every election (after a primary's death, step-down or handover), in both modes.
     */
    private static long epochs(DiscussionCluster cluster, ConsistencyLevel level) {
        String service = EmulatedDiscussion.nameOf(level);
        long sum = 0;
        for (int p = 0; p < EmulatedDiscussion.PARTITIONS; p++) {
            sum += cluster.admin().replicas(service, p).orTimeout(30, TimeUnit.SECONDS).join().stream()
                    .mapToLong(ClusterAdmin.ReplicaStatus::epoch).max().orElse(0);
        }
        return sum;
    }

    /** This process's CPU time per second of wall time over {@link #IDLE_WINDOW}: JGroups, ticks, heartbeats. */
    private static double idleCpuMillisPerSecond() {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long cpuBefore = os.getProcessCpuTime();
        long before = System.nanoTime();
        try {
            TimeUnit.NANOSECONDS.sleep(IDLE_WINDOW.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        double seconds = (System.nanoTime() - before) / 1e9;
        return (os.getProcessCpuTime() - cpuBefore) / 1e6 / seconds;
    }

    /** The table, one row per case (fail-stop first), and a bar plot of the saturation rates. */
    static Report report(Plan plan, Map<Case, Measurement> results, String context) {
        Report report = new Report("failover-modes", "Fail-over modes: majority against fail-stop, discussion group",
                "level", "writes %", "mode", "saturation req/s", "vs fail-stop", "p50 ms", "p99 ms",
                "half load req/s", "write p50 ms at half load", "write p99 ms at half load", "write p50 vs fail-stop",
                "reads at primary %", "idle CPU ms/s", "elections", "steps", "load 1m");
        for (Case c : plan.cases()) {
            if (c.mode() != FailoverMode.FAIL_STOP) {
                continue;
            }
            for (Case each : List.of(c, c.other())) {
                Measurement m = results.get(each);
                if (m == null) {
                    continue;
                }
                Measurement base = results.get(c);
                SaturationSearch.Outcome o = m.outcome();
                report.row("L" + (each.level().ordinal() + 1), Math.round(100 * each.writes()),
                        each.mode().configName(), o.rate(),
                        base == null ? "-" : ReplicationReports.ratio(o.rate(), base.outcome().rate()),
                        ReplicationReports.p50(o), ReplicationReports.p99(o), m.halfLoad().rate(),
                        m.halfLoad().writeP50Millis(), m.halfLoad().writeP99Millis(),
                        base == null ? "-" : ReplicationReports.ratio(m.halfLoad().writeP50Millis(),
                                base.halfLoad().writeP50Millis()),
                        ReplicationReports.atPrimary(o), m.idleCpuMillisPerSecond(), m.elections(), o.steps(),
                        m.load());
                report.categoryPoint(each.mode().configName(), String.format(Locale.ROOT, "L%d, %.0f%% writes",
                        each.level().ordinal() + 1, 100 * each.writes()), o.rate());
            }
        }
        report.axes(NODES + " nodes, " + DEGREE + " replicas per partition, balanced",
                "throughput at saturation (req/s)", false);
        report.note("What differs (docs/protocols/replication.md): in fail-stop mode a write commits once every live"
                + " in-sync secondary logged it; in majority mode once a majority of the configured replicas did (the"
                + " primary and the faster of its two secondaries here), and every new primary first logs a no-op."
                + " Majority primaries also send each follower a heartbeat every 100 ms while idle, and a level-3"
                + " secondary serves a read only within the staleness bound of a commit point the primary confirmed"
                + " with a majority (a read-index round trip).");
        report.note("Method: every case runs on a fresh cluster of the emulated machines of the replication"
                + " experiment (2 workers, 13.6 ms per ViewHeaders, 9.3 ms per AddMsg at every replica that applies"
                + " it); the two modes of a configuration run back to back, in ABBA order over the configurations."
                + " 'half load' is one step at half the model capacity (" + plan.step().toSeconds() + " s), where"
                + " queues are short and write latency shows the commit rule; 'idle CPU' is this JVM's CPU time per"
                + " second over " + IDLE_WINDOW.toSeconds() + " s with no load (all four nodes and the driver are in"
                + " this JVM). Latency ratios are of medians of a few hundred writes: read them to about 10%."
                + " 'elections' counts primary changes (epochs summed over the 64 partitions) from the half-load step"
                + " to the end of the search: a majority primary steps down when no majority answered it within the"
                + " election timeout (1 s here: half the 2 s ack-timeout), which overload alone can cause; a"
                + " fail-stop primary excludes a secondary that did not acknowledge within 2 s and keeps going."
                + " Before each step, every partition is led by its first replica again (as after start), so the"
                + " handovers that follow step-downs in one step do not fall into the next.");
        report.note(ReplicationReports.saturationRule(plan.step(), plan.refinements()));
        report.note(ReplicationReports.resolution(plan.step(), plan.refinements()));
        report.note(context + " 'load 1m' is the host's one-minute load average when that case began.");
        return report;
    }
}
