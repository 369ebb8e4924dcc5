package io.neptune.benchmarks.report;

import static io.neptune.benchmarks.report.Extractors.table;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rows of chapter 5, replication (Figures 5.1 to 5.6), read from the reports of
 * {@code ./neptune bench replication}, {@code timeline} and {@code apps} as
 * {@code ReplicationReports}, {@code FailureTimelineReport} and {@code ApplicationsReports} write
 * them: {@code replication-scalability.csv}, {@code workload-imbalance.csv} and
 * {@code consistency-levels.csv} (throughput at the saturation point, {@code vs NoRep} and
 * {@code vs L2}), {@code failure-timeline.csv} (calls per second, with the kill and restarts in
 * {@code events}), and {@code auction.csv} and {@code persistent-cache.csv}. Where the committed run
 * lacks the dissertation's degree or node count, a row uses the largest the run has and says so in
 * "ours". Every row reads the CSV: these benches wrote no JSON summary before issue 27.
 */
final class ChapterFiveRows {
    /** How long after a restart the failure timeline's tail of timeouts and errors is counted. */
    private static final int TAIL_SECONDS = 10;

    private ChapterFiveRows() {}

    static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        rows.add(Row.of(Claim.atLeast("Fig. 5.1", "replication costs little at 10% writes: the highest degree's"
                + " throughput against NoRep's (level 2)", 1, "× NoRep"),
                data -> degreeAgainstNoRep(data, "10", false), "every replica re-executes each write"));
        rows.add(Row.of(Claim.about("Fig. 5.1", "at 50% writes NoRep is about 2× degree 4 (level 2)", 2, "×", 1),
                data -> degreeAgainstNoRep(data, "50", true), "every replica re-executes each write"));
        rows.add(Row.of(Claim.atLeast("Fig. 5.1", "throughput grows with the nodes: NoRep's gain from the fewest"
                + " to the most nodes, per node added", 1, "×"), data -> scaling(data, "replication-nodes", "L2")
                .or(() -> scaling(data, "replication-scalability", "L2")), "").notRun("the quick mode runs 4 nodes"
                + " only; neither `./neptune bench replication --nodes` nor the full mode (2, 4, 8) has been run"));
        rows.add(Row.of(Claim.about("Fig. 5.2", "with every request on one partition (imbalance 1, level 2),"
                + " degree 4 is almost 3× NoRep", 3, "× NoRep", 1), ChapterFiveRows::hotPartition,
                "our emulation charges nothing beyond the service times, so the hot partition's reads spread"
                        + " over its replicas as the model says"));
        rows.add(Row.of(Claim.atMost("Fig. 5.3", "the three consistency levels perform very closely under a"
                + " balanced workload: the fastest ÷ the slowest", 1, "×").tolerance(0.2),
                data -> levels(data, "1/64"), "see the section"));
        rows.add(Row.of(Claim.about("Fig. 5.3", "at imbalance 1, level 1 is 12% above level 2", 12, "%", 0),
                data -> levelOver(data, "L1", "L2"), "the primary's ordering work costs no emulated worker time"
                        + " here, so level 1 gains nothing; equal within one quick-mode bisection step"));
        rows.add(Row.of(Claim.about("Fig. 5.3", "at imbalance 1, level 2 is 9% above level 3", 9, "%", 0),
                data -> levelOver(data, "L2", "L3"), "level 3's gap is within about one quick-mode bisection"
                        + " step, so its size is not resolved"));
        rows.add(Row.of(Claim.below("Fig. 5.4", "throughput drops while 3 of 8 nodes are down: ok/s from the kill"
                + " to the first restart ÷ before the kill", 1, "×"), ChapterFiveRows::dropWhileDown,
                "clients retry on another replica, and at 60% load the survivors had spare capacity"));
        rows.add(Row.of(Claim.above("Fig. 5.4", "a tail of timeouts and errors after each recovery: the fewest"
                + " in the " + TAIL_SECONDS + " s after a restart", 0, " calls"), ChapterFiveRows::tailAfterRestart,
                ""));
        rows.add(Row.of(Claim.below("Fig. 5.5", "the auction's replication overhead is smaller than the discussion"
                + " group's at 10% writes: auction's loss against NoRep ÷ the discussion group's, same degree and"
                + " nodes", 1, "×"), ChapterFiveRows::auctionAgainstDiscussion, ""));
        rows.add(Row.of(Claim.atLeast("Fig. 5.5", "the auction's throughput grows with the nodes (NoRep, per node"
                + " added)", 1, "×"), data -> scaling(data, "auction", ""), ""));
        rows.add(Row.of(Claim.below("Fig. 5.6", "the persistent cache has a large replication overhead: its"
                + " 4 replicas against NoRep, ÷ the auction's, on the most nodes", 1, "×"),
                ChapterFiveRows::cacheAgainstAuction, ""));
        rows.add(Row.of(Claim.atLeast("Fig. 5.6", "the persistent cache's throughput grows with the nodes (NoRep,"
                + " per node added)", 1, "×"), data -> scaling(data, "persistent-cache", ""), ""));
        return rows;
    }

    /** The highest degree's {@code vs NoRep} at level 2 on the most nodes, or NoRep over it. */
    private static Optional<Measured> degreeAgainstNoRep(BenchData data, String writes, boolean inverse) {
        return table(data, "replication-scalability").flatMap(t -> {
            Table level2 = t.where("level", "L2").where("writes %", writes);
            Optional<Map<String, String>> highest = level2.rows().stream()
                    .max(Comparator.comparingInt(ChapterFiveRows::nodes).thenComparingInt(Extractors::degree));
            if (highest.isEmpty() || Extractors.degree(highest.get()) == 1) {
                return Optional.empty();
            }
            double ratio = level2.number(highest.get(), "vs NoRep");
            double value = inverse ? 1 / ratio : ratio;
            double model = modelRatio(level2, highest.get());
            return Optional.of(Measured.of(value, Claim.format(value) + "× (" + where(highest.get()) + "; model "
                    + Claim.format(inverse ? 1 / model : model) + "×)", t));
        });
    }

    private static int nodes(Map<String, String> row) {
        return Integer.parseInt(Table.cell(row, "nodes"));
    }

    /** "degree 3 on 4 nodes" for a row of a replication report. */
    private static String where(Map<String, String> row) {
        return "degree " + Table.cell(row, "replicas") + " on " + Table.cell(row, "nodes") + " nodes";
    }

    private static double modelRatio(Table level2, Map<String, String> row) {
        double noRep = level2.where("nodes", Table.cell(row, "nodes")).where("replicas", "NoRep").number("model req/s");
        return level2.number(row, "model req/s") / noRep;
    }

    /** NoRep's throughput gain from the fewest to the most nodes, divided by the ratio of nodes. */
    private static Optional<Measured> scaling(BenchData data, String report, String level) {
        return table(data, report).flatMap(t -> {
            Table noRep = t.where("replicas", "NoRep");
            if (!level.isEmpty()) {
                noRep = noRep.where("level", level);
            }
            List<Double> nodes = noRep.rows().stream().map(row -> Double.parseDouble(Table.cell(row, "nodes"))).sorted()
                    .distinct().toList();
            if (nodes.size() < 2) {
                return Optional.empty();
            }
            Table few = noRep.where("nodes", Claim.format(nodes.get(0)));
            Table many = noRep.where("nodes", Claim.format(nodes.get(nodes.size() - 1)));
            double gain = many.number("saturation req/s") / few.number("saturation req/s");
            double perNode = gain / (nodes.get(nodes.size() - 1) / nodes.get(0));
            return Optional.of(Measured.of(perNode, Claim.format(perNode) + "× (" + Claim.format(few.number(
                    "saturation req/s")) + " → " + Claim.format(many.number("saturation req/s")) + " req/s on "
                    + Claim.format(nodes.get(0)) + " → " + Claim.format(nodes.get(nodes.size() - 1)) + " nodes)", t));
        });
    }

    private static Optional<Measured> hotPartition(BenchData data) {
        return table(data, "workload-imbalance").flatMap(t -> {
            Table hot = t.where("imbalance", "1").where("level", "L2");
            Optional<Map<String, String>> highest = hot.rows().stream().max(Comparator.comparingInt(
                    Extractors::degree));
            if (highest.isEmpty() || Extractors.degree(highest.get()) == 1) {
                return Optional.empty();
            }
            double ratio = hot.number(highest.get(), "vs NoRep");
            double model = hot.number(highest.get(), "model req/s") / hot.where("replicas", "NoRep").number(
                    "model req/s");
            return Optional.of(Measured.of(ratio, Claim.format(ratio) + "× (" + where(highest.get()) + "; model "
                    + Claim.format(model) + "×)", t));
        });
    }

    private static Optional<Measured> levels(BenchData data, String imbalance) {
        return table(data, "consistency-levels").flatMap(t -> Extractors.rows(t, "imbalance", imbalance)).map(t -> {
            List<Double> rates = Extractors.numbers(t, "saturation req/s", x -> x);
            double spread = rates.stream().mapToDouble(Double::doubleValue).max().orElseThrow()
                    / rates.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
            return Measured.of(spread, Claim.format(spread) + "× (" + Extractors.range(rates) + " req/s, "
                    + where(t.rows().get(0)) + ")", t);
        });
    }

    private static Optional<Measured> levelOver(BenchData data, String higher, String lower) {
        return table(data, "consistency-levels").flatMap(t -> Extractors.rows(t, "imbalance", "1")).flatMap(t -> {
            Optional<Double> a = Extractors.number(t, "saturation req/s", "level", higher);
            Optional<Double> b = Extractors.number(t, "saturation req/s", "level", lower);
            if (a.isEmpty() || b.isEmpty()) {
                return Optional.empty();
            }
            double percent = (a.get() / b.get() - 1) * 100;
            return Optional.of(Measured.of(percent, Extractors.signedPercent(percent) + " (" + Claim.format(a.get())
                    + " against " + Claim.format(b.get()) + " req/s; " + where(t.rows().get(0)) + ")", t));
        });
    }

    private static Optional<Measured> dropWhileDown(BenchData data) {
        return table(data, "failure-timeline").flatMap(t -> {
            int kill = firstEvent(t, "SIGKILL");
            int restart = firstEvent(t, "restart");
            if (kill < 0 || restart <= kill) {
                return Optional.empty();
            }
            double before = meanOk(t, 0, kill);
            double down = meanOk(t, kill, restart);
            return Optional.of(Measured.of(down / before, Claim.format(down / before) + "× (" + Claim.format(before)
                    + " → " + Claim.format(down) + " ok/s)", t));
        });
    }

    private static Optional<Measured> tailAfterRestart(BenchData data) {
        return table(data, "failure-timeline").flatMap(t -> {
            List<Double> tails = new ArrayList<>();
            for (Map<String, String> row : t.rows()) {
                if (Table.cell(row, "events").contains("restart")) {
                    int from = (int) t.number(row, "second");
                    tails.add(t.where(r -> {
                        int second = Integer.parseInt(Table.cell(r, "second"));
                        return second >= from && second < from + TAIL_SECONDS;
                    }).rows().stream().mapToDouble(r -> t.number(r, "timeouts/s") + t.number(r, "errors/s")).sum());
                }
            }
            if (tails.isEmpty()) {
                return Optional.empty();
            }
            double fewest = tails.stream().mapToDouble(Double::doubleValue).min().orElseThrow();
            return Optional.of(Measured.of(fewest, Extractors.range(tails) + " per restart (" + tails.size()
                    + " restarts)", t));
        });
    }

    private static int firstEvent(Table t, String word) {
        return t.rows().stream().filter(row -> Table.cell(row, "events").contains(word))
                .mapToInt(row -> (int) t.number(row, "second")).findFirst().orElse(-1);
    }

    private static double meanOk(Table t, int from, int to) {
        return t.where(row -> {
            int second = Integer.parseInt(Table.cell(row, "second"));
            return second >= from && second < to;
        }).rows().stream().mapToDouble(row -> t.number(row, "ok/s")).average().orElseThrow();
    }

    private static Optional<Measured> auctionAgainstDiscussion(BenchData data) {
        Optional<Table> auction = table(data, "auction");
        Optional<Table> discussion = table(data, "replication-scalability");
        if (auction.isEmpty() || discussion.isEmpty()) {
            return Optional.empty();
        }
        Table level2 = discussion.get().where("level", "L2").where("writes %", "10");
        for (Map<String, String> row : level2.rows().stream().sorted(Comparator.comparingInt(
                Extractors::degree).reversed()).toList()) {
            Optional<Double> auctionRatio = Extractors.number(auction.get(), "vs NoRep",
                    "nodes", Table.cell(row, "nodes"), "replicas", Table.cell(row, "replicas"));
            if (Extractors.degree(row) > 1 && auctionRatio.isPresent()) {
                double discussionRatio = level2.number(row, "vs NoRep");
                double ratio = (1 - auctionRatio.get()) / (1 - discussionRatio);
                return Optional.of(Measured.of(ratio, Claim.format(ratio) + "× (" + where(row) + ": auction "
                        + Claim.format(auctionRatio.get()) + "× NoRep, discussion group "
                        + Claim.format(discussionRatio) + "×; different runs)", auction.get(), discussion.get()));
            }
        }
        return Optional.empty();
    }

    private static Optional<Measured> cacheAgainstAuction(BenchData data) {
        Optional<Table> cache = table(data, "persistent-cache");
        Optional<Table> auction = table(data, "auction");
        if (cache.isEmpty() || auction.isEmpty()) {
            return Optional.empty();
        }
        String nodes = cache.get().rows().stream().map(row -> Table.cell(row, "nodes")).max(Comparator.comparingInt(
                Integer::parseInt)).orElseThrow();
        Optional<Double> cacheRatio = Extractors.number(cache.get(), "vs NoRep", "nodes", nodes, "replicas", "4");
        Optional<Double> auctionRatio = Extractors.number(auction.get(), "vs NoRep", "nodes", nodes, "replicas", "4");
        if (cacheRatio.isEmpty() || auctionRatio.isEmpty()) {
            return Optional.empty();
        }
        double ratio = cacheRatio.get() / auctionRatio.get();
        return Optional.of(Measured.of(ratio, Claim.format(ratio) + "× (4 replicas on " + nodes + " nodes: cache "
                + Claim.format(cacheRatio.get()) + "× NoRep, auction " + Claim.format(auctionRatio.get()) + "×)",
                cache.get(), auction.get()));
    }
}
