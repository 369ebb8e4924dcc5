package io.neptune.benchmarks;

import io.neptune.benchmarks.EmulatedDiscussion.ServiceTimes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Experiment 6 of issue 5, the dissertation's Figures 5.5 and 5.6: the throughput at the saturation
 * point ({@link SaturationSearch}) of the auction (level 3, 1 s staleness bound; 10% bids, 3% new
 * items, the rest views) and of the persistent cache (level 2; 10% updates, 90% lookups) for no
 * replication and replication degrees 2–4, by number of service nodes.
 *
 * <p>The services are the real examples ({@link EmulatedAuction} wraps the example auction,
 * {@link EmulatedCache} the example cache) on emulated machines ({@link ServerCapacity}, two workers
 * per node), in-process on the loopback stack ({@link DiscussionCluster}). The emulated service
 * times encode the cost ratios the dissertation names: a bid is cheap next to a read, a cache
 * update (a disk write) costly next to a lookup (memory).
 *
 * <p>Usage: {@code ./neptune bench apps [--quick] [--step-seconds N] [--refinements K] [--variants REGEX]};
 * the reports go to {@code docs/benchmarks/auction.*} and {@code persistent-cache.*} under the
 * working directory. {@code --quick} runs each application on 4 nodes without replication and with 4
 * replicas (the replication overhead Figure 5.6 compares between the two), in steps of 3 s with 2
 * bisection steps; the full mode runs 2, 4 and 8 nodes, every degree, in steps of 10 s with 5.
 */
public final class ApplicationsExperiment {
    private ApplicationsExperiment() {}

    /** The two applications of §5.4.4. */
    enum App {
        AUCTION("auction", "Auction on Neptune (Figure 5.5): level 3, 1 s staleness, 10% bids, 3% new items",
                EmulatedAuction.BIDS + EmulatedAuction.ADDS, EmulatedAuction.TIMES.means()),
        CACHE("persistent-cache", "Persistent cache on Neptune (Figure 5.6): level 2, 10% updates",
                EmulatedCache.UPDATES, EmulatedCache.TIMES);

        private final String report;
        private final String title;
        private final double writes;
        private final ServiceTimes means;

        App(String report, String title, double writes, ServiceTimes means) {
            this.report = report;
            this.title = title;
            this.writes = writes;
            this.means = means;
        }

        /** The report's file stem under {@code docs/benchmarks/}. */
        String report() {
            return report;
        }

        /** The report's title. */
        String title() {
            return title;
        }

        /** The service of one node on {@code capacity}. */
        Object service(ServerCapacity capacity) {
            return switch (this) {
                case AUCTION -> new EmulatedAuction(capacity, EmulatedAuction.TIMES);
                case CACHE -> new EmulatedCache(capacity, EmulatedCache.TIMES);
            };
        }

        /** The service's emulated capacity on {@code nodes} nodes with {@code degree} replicas. */
        double model(int nodes, int degree) {
            return ReplicationExperiment.modelCapacity(nodes, degree, writes,
                    ZipfPartitions.withImbalance(EmulatedDiscussion.PARTITIONS, ReplicationExperiment.BALANCED), means);
        }
    }

    /**
     * One measured configuration.
     *
     * @param app the application
     * @param nodes service nodes
     * @param degree replicas per partition (1 = NoRep)
     */
    record Variant(App app, int nodes, int degree) {
        String label() {
            return String.format(Locale.ROOT, "%s, %d nodes, %s", app.report, nodes,
                    degree == 1 ? "NoRep" : degree + " replicas");
        }
    }

    /**
     * What one run measures.
     *
     * @param quick whether this is the quick mode
     * @param step how long one load step offers its rate
     * @param refinements bisection steps after the doubling
     * @param variants every configuration, in run order
     */
    record Plan(boolean quick, Duration step, int refinements, List<Variant> variants) {}

    public static void main(String[] args) {
        Plan plan = options(List.of(args));
        ExperimentRun run = ExperimentRun.begin(String.format(Locale.ROOT, "applications experiment (%s): %d"
                + " configurations, steps of %d s", plan.quick() ? "quick" : "full", plan.variants().size(),
                plan.step().toSeconds()));
        Map<Variant, Measurement> results = new LinkedHashMap<>();
        for (Variant variant : plan.variants()) {
            results.put(variant, measure(plan, variant));
        }
        String context = run.finish();
        String command = ExperimentRun.command("apps", args);
        for (App app : App.values()) {
            if (plan.variants().stream().anyMatch(v -> v.app() == app)) {
                ApplicationsReports.report(app, plan, results, context).write(run.root(), command);
                System.out.println("wrote docs/benchmarks/" + app.report + ".*");
            }
        }
    }

    /**
     * Parses {@code [--quick] [--step-seconds N] [--refinements K] [--variants REGEX]} ({@link SearchOptions});
     * the filter applies to the labels, e.g. {@code "auction"} or {@code "NoRep|4 replicas"}.
     */
    static Plan options(List<String> args) {
        SearchOptions o = SearchOptions.parse(args, SearchOptions.defaults(true, Duration.ofSeconds(3), 2),
                SearchOptions.defaults(false, Duration.ofSeconds(10), 5));
        boolean quick = o.quick();
        List<Variant> variants = new ArrayList<>();
        for (App app : App.values()) {
            for (int nodes : quick ? new int[] {4} : new int[] {2, 4, 8}) {
                for (int degree : quick ? new int[] {1, 4} : new int[] {1, 2, 3, 4}) {
                    if (degree <= nodes) {
                        variants.add(new Variant(app, nodes, degree));
                    }
                }
            }
        }
        return new Plan(quick, o.step(), o.refinements(), o.keep(variants, Variant::label));
    }

    /**
     * The saturation throughput of one configuration.
     *
     * @param variant the configuration
     * @param model the emulated capacity
     * @param outcome the search's result
     * @param load the host's one-minute load average when the search began
     */
    record Measurement(Variant variant, double model, SaturationSearch.Outcome outcome, String load) {
        double rate() {
            return outcome.rate();
        }
    }

    /** Starts the variant's cluster, seeds it (auction items), warms it up and searches its saturation point. */
    private static Measurement measure(Plan plan, Variant variant) {
        long started = System.nanoTime();
        App app = variant.app();
        try (DiscussionCluster cluster = DiscussionCluster.start(variant.nodes(), variant.degree(),
                ReplicationExperiment.WORKERS, capacity -> List.of(app.service(capacity)))) {
            RequestMix mix = switch (app) {
                case AUCTION -> {
                    EmulatedAuction.Mix auction = new EmulatedAuction.Mix(variant.nodes());
                    auction.seed(cluster.client(), 4);
                    yield auction;
                }
                case CACHE -> new EmulatedCache.Mix();
            };
            System.out.printf(Locale.ROOT, "cluster %s: %s ready and seeded in %.1f s%n", cluster.name(),
                    variant.label(), (System.nanoTime() - started) / 1e9);
            OpenLoopProbe probe = new OpenLoopProbe(cluster.client(), mix,
                    ZipfPartitions.withImbalance(EmulatedDiscussion.PARTITIONS, ReplicationExperiment.BALANCED),
                    cluster::firstReplicaOf, variant.hashCode());
            double model = app.model(variant.nodes(), variant.degree());
            ReplicationExperiment.warmUp(probe, model, variant.label());
            cluster.awaitIdle(300, 15_000);
            String load = Report.loadAverage().split(",")[0];
            return new Measurement(variant, model, ReplicationExperiment.search(cluster, probe, plan.step(),
                    plan.refinements(), variant.label(), model), load);
        }
    }
}
