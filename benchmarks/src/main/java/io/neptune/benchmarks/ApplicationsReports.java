package io.neptune.benchmarks;

import io.neptune.benchmarks.ApplicationsExperiment.App;
import io.neptune.benchmarks.ApplicationsExperiment.Measurement;
import io.neptune.benchmarks.ApplicationsExperiment.Plan;
import io.neptune.benchmarks.ApplicationsExperiment.Variant;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** Turns the measurements of {@link ApplicationsExperiment} into one report per application (Figures 5.5, 5.6). */
final class ApplicationsReports {
    private ApplicationsReports() {}

    /** The report of {@code app}: saturation throughput by nodes and replication degree, next to the model. */
    static Report report(App app, Plan plan, Map<Variant, Measurement> results, String context) {
        Report report = new Report(app.report(), app.title(), "nodes", "replicas", "saturation req/s", "model req/s", "vs NoRep", "model vs NoRep", "p50 ms",
                "p99 ms", "steps", "load 1m");
        boolean byNodes = plan.variants().stream().filter(v -> v.app() == app).map(Variant::nodes)
                .collect(Collectors.toCollection(TreeSet::new)).size() > 1;
        for (Variant v : plan.variants()) {
            Measurement m = results.get(v);
            if (v.app() != app || m == null) {
                continue;
            }
            Measurement noRep = results.get(new Variant(app, v.nodes(), 1));
            SaturationSearch.Outcome o = m.outcome();
            report.row(v.nodes(), v.degree() == 1 ? "NoRep" : v.degree(), m.rate(), m.model(),
                    noRep == null ? "-" : ReplicationReports.ratio(m.rate(), noRep.rate()),
                    ReplicationReports.ratio(m.model(), app.model(v.nodes(), 1)), ReplicationReports.p50(o),
                    ReplicationReports.p99(o), o.steps(), m.load());
            String line = v.degree() == 1 ? "NoRep" : v.degree() + " replicas";
            if (byNodes) {
                report.point(line, v.nodes(), m.rate());
            } else {
                report.point("measured", v.degree(), m.rate());
                report.point("model", v.degree(), m.model());
            }
        }
        report.axes(byNodes ? "service nodes" : "replicas per partition (1 = NoRep), "
                + plan.variants().get(0).nodes() + " nodes", "throughput at saturation (req/s)", false);
        report.note(app == App.AUCTION ? AUCTION : CACHE);
        report.note(ReplicationReports.saturationRule(plan.step(), plan.refinements()));
        report.note("Emulated capacity (issue 5, Method): every node is an in-process NeptuneNode on the loopback"
                + " stack with 2 workers; a request holds a worker for its emulated service time, asleep, with the"
                + " example service's real H2 work inside that time. Writes go through Neptune's real replication"
                + " (REDO log with group fsync, propagation, re-execution at every replica, each holding a worker"
                + " there). NoRep is one replica: it logs (with fsync) but propagates nothing. 'model' is this"
                + " emulation's capacity if reads are spread evenly over a partition's replicas and every replica"
                + " applies every write: 2 x nodes / (w x W x replicas + (1 - w) x R) for write share w, mean write W"
                + " and mean read R.");
        report.note(ReplicationReports.resolution(plan.step(), plan.refinements()));
        report.note(context + " 'load 1m' is the host's one-minute load average when that search began.");
        return report;
    }

    private static final String AUCTION = String.format(Locale.ROOT, "Workload (dissertation §5.4.4, from eBay's"
            + " 1999 log): 10%% BidItem, 3%% AddItem, the rest split evenly between ViewCategory and ViewItem, for a"
            + " category chosen evenly among about 400 x nodes (64 partitions), at level 3 with a 1 s staleness bound;"
            + " 4 items per partition are offered before the warm-up so that bids have items. Service: the example"
            + " io.neptune.examples.auction.AuctionService, wrapped (EmulatedAuction) with emulated service times"
            + " ViewCategory %d ms, ViewItem %d ms, BidItem %d ms, AddItem %.1f ms: reads dearer than the discussion"
            + " group's 13.6 ms ViewHeaders (the dissertation's auction is slower: authentication, user accounts), a"
            + " bid cheap (one row update, 'very little overhead by themselves'), a new item like an AddMsg. Mean"
            + " write / mean read = %.2f (discussion group: 0.68), so replication should cost the auction less than"
            + " the discussion group at 10%% writes: the dissertation's claim.",
            EmulatedAuction.TIMES.viewCategory().toMillis(), EmulatedAuction.TIMES.viewItem().toMillis(),
            EmulatedAuction.TIMES.bid().toMillis(), EmulatedAuction.TIMES.addItem().toNanos() / 1e6,
            ratioOf(EmulatedAuction.TIMES.means()));

    private static final String CACHE = String.format(Locale.ROOT, "Workload (dissertation §5.4.4): 10%% CacheUpdate"
            + " (2 KB values), 90%% CacheLookup, on a key chosen evenly among %d per partition (64 partitions), at"
            + " level 2. Service: the example io.neptune.examples.cache.CacheService, wrapped (EmulatedCache) with"
            + " emulated service times CacheLookup %d ms (served from memory) and CacheUpdate %d ms (a disk write):"
            + " mean write / mean read = %.0f, so every extra replica's copy of an update costs much more than the"
            + " reads it takes over: the dissertation's 'large replication overhead'.",
            EmulatedCache.KEYS_PER_PARTITION, EmulatedCache.TIMES.read().toMillis(),
            EmulatedCache.TIMES.write().toMillis(), ratioOf(EmulatedCache.TIMES));

    private static double ratioOf(EmulatedDiscussion.ServiceTimes times) {
        return (double) times.write().toNanos() / times.read().toNanos();
    }
}
