package io.neptune.benchmarks.report;

import static io.neptune.benchmarks.report.Extractors.table;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The rows of chapter 2 (invocation overhead) and the Summary's rows beyond the dissertation: the
 * micro-benchmarks, streams, the call path, footprint, bounded logs, idle cost and retries. Where an
 * issue set an aim with a number (issue 26's idle cost), the row holds ours against it; the others
 * print ours with no verdict. They read {@code invocation-overhead.csv} ({@code InvocationOverheadExperiment}),
 * {@code micro.csv} ({@code MicroBenchmarks}; its {@code case} cells were written unquoted),
 * {@code streams.csv} ({@code StreamsReport}), {@code footprint.csv} (made by hand from two demo runs)
 * and {@code idle.csv} ({@code IdleReport}); all CSV, none had a JSON summary before issue 27.
 */
final class BeyondRows {
    private BeyondRows() {}

    static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        rows.add(Row.of(Claim.about("Ch. 2", "97 µs of middleware overhead per call: Neptune's fixed-node p50"
                + " minus raw Netty's, 1 caller", 97, " µs", 0), BeyondRows::overhead,
                "the dissertation's baseline opened a TCP connection per call on 400 MHz machines; here a call"
                        + " on a persistent loopback connection pays thread hand-offs"));
        rows.add(Row.of(Claim.none("micro", "(design) choosing a replica is negligible beside a round trip"),
                BeyondRows::replicaChoice, ""));
        rows.add(Row.of(Claim.none("streams", "(design) a stream for several rounds of interaction: Neptune's"
                + " messages/s against gRPC-java server streaming"), BeyondRows::streams, ""));
        rows.add(Row.of(Claim.none("call path", "(beyond) Neptune's fixed node against raw Netty at 64 callers"),
                BeyondRows::callPath, ""));
        rows.add(Row.of(Claim.none("footprint", "(beyond) threads of a demo node hosting 150 replicated"
                + " partitions, before and after the shared log writers"), BeyondRows::footprint, ""));
        rows.add(Row.of(Claim.none("bounded logs", "(beyond) log size and restart time with checkpoints"),
                data -> Optional.empty(), "").reportless("the logs bench prints its figures and writes no report;"
                + " see [Bounded logs](#bounded-logs-and-snapshots-issue-13-1)"));
        rows.add(Row.of(Claim.none("retries", "(beyond) attempts per call against a primary that refuses every"
                + " write"), data -> Optional.empty(), "").reportless("counted by an integration test, not a bench;"
                + " see [Retries](#retries-under-a-failing-primary-issue-28)"));
        for (String mode : List.of("majority", "fail-stop")) {
            rows.add(Row.of(Claim.atMost("issue 26", "an idle node hosting 500 partitions × 3 replicas uses under 5%"
                    + " of a core (its own threads); " + mode, 5, "% of a core"),
                    data -> idle(data, mode, "node threads % core", "% of a core"), whyIdle(mode)));
        }
        rows.add(Row.of(Claim.atMost("issue 26", "heap per hosted replica under 100 KiB (500 partitions, the"
                + " larger of the two modes)", 100, " KiB"), BeyondRows::heapPerReplica, ""));
        for (String mode : List.of("majority", "fail-stop")) {
            rows.add(Row.of(Claim.atMost("issue 26", "3 nodes in one JVM start 500 partitions in under 10 s; "
                    + mode, 10, " s"), data -> idle(data, mode, "start s", " s"), whySlowStart(mode)));
        }
        return rows;
    }

    private static String whyIdle(String mode) {
        return mode.equals("majority") ? "majority's per-partition heartbeats (JSON, every 250 ms per follower) and"
                + " every replica's 100 ms tick" : "";
    }

    private static String whySlowStart(String mode) {
        return mode.equals("majority") ? "three nodes share one JVM and 2 cores, and the third node's replicas join"
                + " while the first two nodes' replicas hold elections" : "";
    }

    private static Optional<Measured> overhead(BenchData data) {
        return table(data, "invocation-overhead").flatMap(t -> {
            Optional<Double> neptune = Extractors.number(t, "p50 (µs)", "system", "Neptune fixed node",
                    "callers", "1");
            Optional<Map<String, String>> raw = rawFloor(t, "1", "p50 (µs)", false);
            if (neptune.isEmpty() || raw.isEmpty()) {
                return Optional.empty();
            }
            double floor = t.number(raw.get(), "p50 (µs)");
            double over = neptune.get() - floor;
            return Optional.of(Measured.of(over, Claim.format(over) + " µs (p50 " + Claim.format(neptune.get())
                    + " against " + Claim.format(floor) + " µs" + rawVariant(raw.get()) + ")", t));
        });
    }

    /**
     * The raw Netty row at {@code callers} with the best {@code column} (the highest, or the lowest when
     * {@code highest} is false): since issue 26 the report measures the floor over one connection and over
     * as many as Neptune uses, and the floor is the better of them; older reports have one row.
     */
    static Optional<Map<String, String>> rawFloor(Table t, String callers, String column, boolean highest) {
        Table raw = t.where(row -> Table.cell(row, "system").startsWith("raw Netty TCP")
                && Table.cell(row, "callers").equals(callers));
        Comparator<Map<String, String>> order = Comparator.comparingDouble(row -> raw.number(row, column));
        return highest ? raw.rows().stream().max(order) : raw.rows().stream().min(order);
    }

    /** ", 2 connections" for a row of a report that measured the floor over several, else nothing. */
    private static String rawVariant(Map<String, String> row) {
        String system = Table.cell(row, "system");
        return system.equals("raw Netty TCP") ? "" : ", " + system.substring("raw Netty TCP".length()).trim();
    }

    private static Optional<Measured> replicaChoice(BenchData data) {
        return table(data, "micro").flatMap(t -> Extractors.rows(t, "benchmark", "replica choice")).map(t -> {
            List<Double> plain = t.where(row -> !Table.cell(row, "case").startsWith("random-polling")).rows().stream()
                    .map(row -> t.number(row, "score")).toList();
            List<Double> polling = t.where(row -> Table.cell(row, "case").startsWith("random-polling")).rows().stream()
                    .map(row -> t.number(row, "score") / 1000).toList();
            return Measured.of(0, Extractors.range(plain) + " ns (lookup, random, round-robin); random polling's local"
                    + " part " + Extractors.range(polling) + " µs", t);
        });
    }

    private static Optional<Measured> streams(BenchData data) {
        return table(data, "streams").map(t -> {
            Table neptune = t.where("system", "Neptune");
            List<Double> small = Extractors.numbers(neptune.where("payload (B)", "100"), "x gRPC-java", x -> x);
            List<Double> large = Extractors.numbers(neptune.where("payload (B)", "16384"), "x gRPC-java", x -> x);
            return Measured.of(0, "100 B: " + Extractors.range(small) + "× gRPC-java's messages/s; 16 KB: "
                    + Extractors.range(large) + "×", t);
        });
    }

    private static Optional<Measured> callPath(BenchData data) {
        return table(data, "invocation-overhead").flatMap(t -> {
            Optional<Double> fixed = Extractors.number(t, "calls/s", "system", "Neptune fixed node", "callers", "64");
            Optional<Map<String, String>> raw = rawFloor(t, "64", "calls/s", true);
            Optional<Double> bytes = Extractors.number(t, "bytes/call", "system", "Neptune fixed node",
                    "callers", "64");
            if (fixed.isEmpty() || raw.isEmpty() || bytes.isEmpty()) {
                return Optional.empty();
            }
            double floor = t.number(raw.get(), "calls/s");
            return Optional.of(Measured.of(0, Claim.format(fixed.get() / floor) + "× raw Netty's calls/s ("
                    + Claim.format(fixed.get()) + " against " + Claim.format(floor) + rawVariant(raw.get()) + "), "
                    + Claim.format(bytes.get()) + " bytes allocated per call", t));
        });
    }

    private static Optional<Measured> footprint(BenchData data) {
        return table(data, "footprint").map(t -> {
            String before = Table.cell(t.rows().get(0), "code");
            Table after = t.where(row -> Table.cell(row, "code").contains("(32 threads)"));
            return Measured.of(0, "before (" + before + "): " + Extractors.range(Extractors.numbers(
                    t.where("code", before).where("phase", "load"), "threads", x -> x)) + " threads under load;"
                    + " shared writers (" + Table.cell(after.rows().get(0), "code") + "): " + Extractors.range(
                    Extractors.numbers(after.where("phase", "rest"), "threads", x -> x)) + " at rest, "
                    + Extractors.range(Extractors.numbers(after.where("phase", "load"), "threads", x -> x))
                    + " under load", t);
        });
    }

    private static Optional<Measured> idle(BenchData data, String mode, String column, String unit) {
        return table(data, "idle").flatMap(t -> Extractors.number(t, column, "partitions", "500", "mode", mode)
                .map(value -> Measured.of(value, Claim.format(value) + unit, t)));
    }

    private static Optional<Measured> heapPerReplica(BenchData data) {
        return table(data, "idle").flatMap(t -> Extractors.rows(t, "partitions", "500")).map(t -> {
            Map<String, String> larger = t.rows().stream().max((a, b) -> Double.compare(
                    t.number(a, "KiB per hosted replica"), t.number(b, "KiB per hosted replica"))).orElseThrow();
            double kib = t.number(larger, "KiB per hosted replica");
            return Measured.of(kib, Claim.format(kib) + " KiB (" + Table.cell(larger, "mode") + ")", t);
        });
    }
}
