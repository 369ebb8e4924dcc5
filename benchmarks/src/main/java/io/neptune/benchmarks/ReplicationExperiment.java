package io.neptune.benchmarks;

import io.neptune.benchmarks.EmulatedDiscussion.ServiceTimes;
import io.neptune.core.ConsistencyLevel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Experiments 3 and 4 of issue 5, the dissertation's Figures 5.1–5.3: the discussion group's
 * throughput at the saturation point ({@link SaturationSearch}) for no replication and replication
 * degrees 2–4, at 10% and 50% writes, at consistency levels 1, 2 and 3, under a balanced workload
 * and under Zipf partition popularity with imbalance factors from 1/64 to 1.
 *
 * <p>Every node runs in this JVM on the loopback stack and emulates one of the dissertation's
 * dual-processor machines ({@link ServerCapacity}): two workers, and each request holds one for its
 * service time, asleep. The service times are derived from the dissertation's single-node
 * throughput without replication (152 req/s at 10% writes, 175 req/s at 50%), which gives 13.6 ms
 * per {@code ViewHeaders} and 9.3 ms per {@code AddMsg}. Writes go through Neptune's real
 * replication: REDO log with group fsync, propagation to the secondaries, and re-execution at
 * every replica.
 *
 * <p>Usage: {@code ./neptune bench replication [--quick]} ({@code --quick}: {@link #quickPlan()}); the
 * reports go to {@code docs/benchmarks/replication-scalability.*}, {@code consistency-levels.*} and
 * {@code workload-imbalance.*} under the working directory. Chapter 5 measured the dissertation's
 * fail-stop replication, so every partition here runs in {@code fail-stop} mode;
 * {@code ./neptune bench replication --failover-modes [--quick]} instead compares it with the
 * {@code majority} default in one run ({@link FailoverModeComparison}), and
 * {@code ./neptune bench replication --nodes [--quick]} measures only Figure 5.1's node axis
 * ({@link #nodesPlan}), into {@code docs/benchmarks/replication-nodes.*}.
 */
public final class ReplicationExperiment {
    /** Emulated workers per node: the dissertation's nodes had two CPUs. */
    static final int WORKERS = 2;
    /** Service times solving 0.9 r + 0.1 w = 2/152 s and 0.5 r + 0.5 w = 2/175 s. */
    static final ServiceTimes TIMES = new ServiceTimes(Duration.ofNanos(13_600_000), Duration.ofNanos(9_300_000));
    /** The option that runs {@link #nodesPlan} instead of the whole experiment. */
    static final String NODES_OPTION = "--nodes";
    static final double BALANCED = 1.0 / EmulatedDiscussion.PARTITIONS;
    private static final Duration WARM_UP = Duration.ofSeconds(2);

    private ReplicationExperiment() {}

    /**
     * One measured configuration.
     *
     * @param nodes service nodes
     * @param degree replicas per partition (1 = NoRep)
     * @param level consistency level
     * @param writes share of requests that are writes
     * @param imbalance share of requests to the most popular partition
     */
    record Variant(int nodes, int degree, ConsistencyLevel level, double writes, double imbalance) {
        String label() {
            return String.format(Locale.ROOT, "%d nodes, %s, L%d, %.0f%% writes, imbalance %s", nodes,
                    degree == 1 ? "NoRep" : degree + " replicas", level.ordinal() + 1, 100 * writes,
                    fraction(imbalance));
        }
    }

    /**
     * What one mode measures.
     *
     * @param quick whether this is the quick mode
     * @param step how long one load step offers its rate
     * @param refinements bisection steps after the doubling
     * @param variants every configuration, in run order
     * @param filtered whether {@code --variants} left some out
     */
    record Plan(boolean quick, Duration step, int refinements, List<Variant> variants, boolean filtered) {}

    public static void main(String[] args) {
        if (List.of(args).contains(FailoverModeComparison.OPTION)) {
            FailoverModeComparison.main(args);
            return;
        }
        boolean byNodes = List.of(args).contains(NODES_OPTION);
        List<String> rest = List.of(args).stream().filter(arg -> !arg.equals(NODES_OPTION)).toList();
        Plan plan = byNodes ? options(rest, nodesPlan(true), nodesPlan(false)) : options(rest, quickPlan(), fullPlan());
        ExperimentRun run = ExperimentRun.begin(String.format(Locale.ROOT, "replication experiment (%s): %d"
                + " configurations, steps of %d s", plan.quick() ? "quick" : "full", plan.variants().size(),
                plan.step().toSeconds()));
        Map<Variant, Measurement> results = run(plan);
        String context = run.finish();
        String command = ExperimentRun.command("replication", args);
        Path root = run.root();
        if (plan.filtered()) {
            System.out.println("a --variants run writes no reports (it would replace the full ones with a subset)");
            return;
        }
        ReplicationReports reports = new ReplicationReports(plan, results, context);
        if (byNodes) {
            reports.scalability("replication-nodes", "Replication by node count: discussion group, balanced, 10% writes")
                    .write(root, command);
            System.out.println("wrote docs/benchmarks/replication-nodes.*");
            return;
        }
        reports.scalability("replication-scalability", "Replication scalability: discussion group, balanced")
                .write(root, command);
        reports.levels().write(root, command);
        reports.imbalance().write(root, command);
        System.out.println("wrote docs/benchmarks/replication-scalability.*, consistency-levels.*,"
                + " workload-imbalance.*");
    }

    /**
     * Parses {@code [--quick] [--step-seconds N] [--refinements K] [--variants REGEX]}: the plan, its
     * step length and bisection steps, and a filter on the variants' labels (e.g. {@code "L1|L3"}).
     */
    static Plan options(List<String> args, Plan quick, Plan full) {
        SearchOptions o = SearchOptions.parse(args, SearchOptions.defaults(true, quick.step(), quick.refinements()),
                SearchOptions.defaults(false, full.step(), full.refinements()));
        Plan plan = o.quick() ? quick : full;
        List<Variant> variants = o.keep(plan.variants(), Variant::label);
        return new Plan(plan.quick(), o.step(), o.refinements(), variants, variants.size() < plan.variants().size());
    }

    /**
     * The saturation throughput of one configuration.
     *
     * @param variant the configuration
     * @param model the emulated capacity (see {@link #modelCapacity})
     * @param outcome the search's result
     * @param load the host's one-minute load average when the search began
     */
    record Measurement(Variant variant, double model, SaturationSearch.Outcome outcome, String load) {
        double rate() {
            return outcome.rate();
        }
    }

    /**
     * Four nodes: the configurations the chapter-5 claims with a number compare, eight searches of
     * about four 3-second steps (the step of the applications' quick mode). At level 2, NoRep and 3 replicas at 10% and 50% writes, balanced
     * (Figure 5.1) and at imbalance 1 (Figure 5.2); levels 1 and 3 at 3 replicas and imbalance 1
     * (Figure 5.3's +12% and +9%). The full plan adds the degrees between, the other node counts and
     * imbalance factors, and the levels under a balanced workload.
     */
    static Plan quickPlan() {
        List<Variant> v = new ArrayList<>();
        for (int degree : new int[] {1, 3}) {
            for (double writes : new double[] {0.1, 0.5}) {
                v.add(new Variant(4, degree, ConsistencyLevel.LEVEL_2, writes, BALANCED));
            }
            v.add(new Variant(4, degree, ConsistencyLevel.LEVEL_2, 0.1, 1));
        }
        for (ConsistencyLevel level : List.of(ConsistencyLevel.LEVEL_1, ConsistencyLevel.LEVEL_3)) {
            v.add(new Variant(4, 3, level, 0.1, 1));
        }
        return new Plan(true, Duration.ofSeconds(3), 2, ordered(v), false);
    }

    /**
     * Figure 5.1 on 2, 4 and 8 nodes (every degree up to 4, both write ratios, all levels), and
     * Figures 5.2 and 5.3 on 8 nodes (seven imbalance factors; degrees at level 2; levels at 4 replicas).
     */
    static Plan fullPlan() {
        List<Variant> v = new ArrayList<>();
        for (int nodes : new int[] {2, 4, 8}) {
            for (int degree = 1; degree <= Math.min(4, nodes); degree++) {
                for (double writes : new double[] {0.1, 0.5}) {
                    for (ConsistencyLevel level : degree == 1 ? EnumSet.of(ConsistencyLevel.LEVEL_2)
                            : EnumSet.allOf(ConsistencyLevel.class)) {
                        v.add(new Variant(nodes, degree, level, writes, BALANCED));
                    }
                }
            }
        }
        for (int i = 6; i >= 0; i--) {
            double imbalance = 1.0 / (1 << i);
            for (int degree = 1; degree <= 4; degree++) {
                v.add(new Variant(8, degree, ConsistencyLevel.LEVEL_2, 0.1, imbalance));
            }
            v.add(new Variant(8, 4, ConsistencyLevel.LEVEL_1, 0.1, imbalance));
            v.add(new Variant(8, 4, ConsistencyLevel.LEVEL_3, 0.1, imbalance));
        }
        return new Plan(false, Duration.ofSeconds(10), 5, ordered(v), false);
    }

    /**
     * Figure 5.1's node axis alone, the part of {@link #fullPlan} that its claim "throughput grows with
     * the nodes" needs: NoRep, 2 and 4 replicas (as many as there are nodes) at level 2, 10% writes,
     * balanced, on 2, 4 and 8 nodes; eight searches with the full plan's steps, or the quick plan's.
     */
    static Plan nodesPlan(boolean quick) {
        List<Variant> v = new ArrayList<>();
        for (int nodes : new int[] {2, 4, 8}) {
            for (int degree : new int[] {1, 2, 4}) {
                if (degree <= nodes) {
                    v.add(new Variant(nodes, degree, ConsistencyLevel.LEVEL_2, 0.1, BALANCED));
                }
            }
        }
        Plan steps = quick ? quickPlan() : fullPlan();
        return new Plan(quick, steps.step(), steps.refinements(), ordered(v), false);
    }

    /** Distinct variants grouped by cluster shape (nodes, degree), keeping first-seen order. */
    private static List<Variant> ordered(List<Variant> variants) {
        Map<List<Integer>, List<Variant>> byCluster = new LinkedHashMap<>();
        for (Variant variant : variants) {
            List<Variant> group = byCluster.computeIfAbsent(List.of(variant.nodes(), variant.degree()),
                    k -> new ArrayList<>());
            if (!group.contains(variant)) {
                group.add(variant);
            }
        }
        return byCluster.values().stream().flatMap(List::stream).toList();
    }

    private static Map<Variant, Measurement> run(Plan plan) {
        Map<Variant, Measurement> results = new LinkedHashMap<>();
        List<Variant> variants = plan.variants();
        for (int i = 0; i < variants.size(); ) {
            Variant first = variants.get(i);
            int end = i;
            Set<ConsistencyLevel> levels = EnumSet.noneOf(ConsistencyLevel.class);
            while (end < variants.size() && variants.get(end).nodes() == first.nodes()
                    && variants.get(end).degree() == first.degree()) {
                levels.add(variants.get(end).level());
                end++;
            }
            long started = System.nanoTime();
            try (DiscussionCluster cluster = DiscussionCluster.start(first.nodes(), first.degree(), levels, WORKERS,
                    TIMES)) {
                System.out.printf(Locale.ROOT, "cluster %s: %d nodes, degree %d, levels %s, ready in %.1f s%n",
                        cluster.name(), first.nodes(), first.degree(), levels, (System.nanoTime() - started) / 1e9);
                warmUp(cluster, first, levels);
                for (Variant variant : variants.subList(i, end)) {
                    results.put(variant, measure(plan, cluster, variant));
                }
            }
            i = end;
        }
        return results;
    }

    /** A third of the model capacity for a few seconds per level, not measured: JIT, connections, H2 caches. */
    private static void warmUp(DiscussionCluster cluster, Variant variant, Set<ConsistencyLevel> levels) {
        for (ConsistencyLevel level : levels) {
            warmUp(probe(cluster, new Variant(variant.nodes(), variant.degree(), level, variant.writes(), BALANCED)),
                    model(variant), "L" + (level.ordinal() + 1));
        }
        cluster.awaitIdle(300, 15_000);
    }

    /** Offers a third of {@code model} for {@link #WARM_UP}, not measured: JIT, connections, H2 caches. */
    static void warmUp(OpenLoopProbe probe, double model, String label) {
        OpenLoopProbe.Result r = probe.run(0.3 * model, WARM_UP);
        System.out.printf(Locale.ROOT, "warm-up %s at %.0f req/s: %.1f%% on time%n", label, r.rate(),
                100 * r.onTimeShare());
    }

    private static Measurement measure(Plan plan, DiscussionCluster cluster, Variant variant) {
        double model = model(variant);
        String load = Report.loadAverage().split(",")[0];
        return new Measurement(variant, model, search(cluster, probe(cluster, variant), plan.step(), plan.refinements(),
                variant.label(), model), load);
    }

    /**
     * Runs the saturation search of {@code probe} on {@code cluster} from 0.75 × {@code model}; every
     * step starts from idle nodes with every replica serving.
     */
    static SaturationSearch.Outcome search(DiscussionCluster cluster, OpenLoopProbe probe, Duration step,
            int refinements, String label, double model) {
        cluster.awaitReady();
        SaturationSearch search = new SaturationSearch(probe, step, refinements, () -> {
            boolean idle = cluster.awaitIdle(300, 15_000);
            cluster.awaitReady(); // a secondary excluded during an overloaded step recovers first
            return idle;
        });
        return search.run(label, Math.max(5, 0.75 * model));
    }

    private static OpenLoopProbe probe(DiscussionCluster cluster, Variant variant) {
        return new OpenLoopProbe(cluster.client(), EmulatedDiscussion.nameOf(variant.level()), variant.writes(),
                ZipfPartitions.withImbalance(EmulatedDiscussion.PARTITIONS, variant.imbalance()), variant.nodes(),
                cluster::firstReplicaOf, variant.hashCode());
    }

    private static double model(Variant variant) {
        return modelCapacity(variant.nodes(), variant.degree(), variant.writes(),
                ZipfPartitions.withImbalance(EmulatedDiscussion.PARTITIONS, variant.imbalance()));
    }

    /**
     * The emulated capacity: the rate at which the busiest node's workers are fully used, if reads
     * of a partition are spread evenly over its replicas and every replica applies every write;
     * also at most the rate at which one partition's serialized writes fill one worker.
     */
    static double modelCapacity(int nodes, int degree, double writes, ZipfPartitions popularity) {
        return modelCapacity(nodes, degree, writes, popularity, TIMES);
    }

    /** {@link #modelCapacity(int, int, double, ZipfPartitions)} for a service whose mean read and write take {@code times}. */
    static double modelCapacity(int nodes, int degree, double writes, ZipfPartitions popularity, ServiceTimes times) {
        double read = times.read().toNanos() / 1e9;
        double write = times.write().toNanos() / 1e9;
        double[] busy = new double[nodes];
        double hottest = 0;
        for (int p = 0; p < popularity.partitions(); p++) {
            double share = popularity.probability(p);
            hottest = Math.max(hottest, share);
            for (int r = 0; r < degree; r++) {
                busy[(p + r) % nodes] += share * (writes * write + (1 - writes) * read / degree);
            }
        }
        double busiest = 0;
        for (double b : busy) {
            busiest = Math.max(busiest, b);
        }
        double byWorkers = WORKERS / busiest;
        double bySerialWrites = writes > 0 ? 1 / (hottest * writes * write) : Double.POSITIVE_INFINITY;
        return Math.min(byWorkers, bySerialWrites);
    }

    /** An imbalance factor as {@code 1/n} when it is one. */
    static String fraction(double imbalance) {
        long inverse = Math.round(1 / imbalance);
        return Math.abs(1.0 / inverse - imbalance) < 1e-9 ? (inverse == 1 ? "1" : "1/" + inverse)
                : String.format(Locale.ROOT, "%.3f", imbalance);
    }
}
