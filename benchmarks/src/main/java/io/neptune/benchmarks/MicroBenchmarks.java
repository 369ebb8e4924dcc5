package io.neptune.benchmarks;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the micro-benchmarks of issue 5 through the JMH runner and writes their results to
 * {@code docs/benchmarks/micro.*}: {@link CodecBenchmark} (a message of the discussion workload
 * encoded and decoded with JSON, Smile and CBOR payloads), {@link ReplicaChoiceBenchmark} (yellow
 * page lookup and policy decision at 16 and 64 nodes) and {@link RedoLogAppendBenchmark} (REDO log
 * append per fsync policy). The full run uses the benchmarks' own warmup and measurement settings
 * (about 5 minutes); {@code --quick} uses at most 1 s of warmup and 2 × 0.4 s of measurement per
 * benchmark (about 80 s). Run it from the repository root.
 */
public final class MicroBenchmarks {
    private MicroBenchmarks() {}

    /** Runs the benchmarks; {@code --quick} for the short settings. */
    public static void main(String[] args) throws RunnerException {
        boolean quick = ExperimentRun.quick(args);
        Path root = Report.repositoryRoot();
        String loadBefore = Report.loadAverage();
        long began = System.nanoTime();
        List<RunResult> results = new ArrayList<>();
        results.addAll(run(CodecBenchmark.class, quick, 2, 500, 400));
        results.addAll(run(ReplicaChoiceBenchmark.class, quick, 1, 400, 300));
        results.addAll(run(RedoLogAppendBenchmark.class, quick, 1, 300, 400));
        double seconds = (System.nanoTime() - began) / 1e9;
        String loadAfter = Report.loadAverage();
        System.out.printf(Locale.ROOT, "micro-benchmarks done in %.0f s; load average %s at start, %s at end%n",
                seconds, loadBefore, loadAfter);
        report(results, quick, String.format(Locale.ROOT, "Run time %.0f s; load average (1, 5, 15 min) %s at start"
                + " and %s at the end (other work shares this host).", seconds, loadBefore, loadAfter))
                .write(root, "./neptune bench micro" + (quick ? " --quick" : ""));
    }

    /**
     * Runs the benchmarks of {@code benchmark}: with its own settings, or when {@code quick} with
     * {@code warmups} warmup iterations of {@code warmupMillis} (the codec's Jackson code needs the
     * longest to reach C2) and 2 measurement iterations of {@code measureMillis}.
     */
    private static Collection<RunResult> run(Class<?> benchmark, boolean quick, int warmups, int warmupMillis,
            int measureMillis) throws RunnerException {
        ChainedOptionsBuilder options = new OptionsBuilder().include(Pattern.quote(benchmark.getName()) + "\\.")
                .addProfiler(GCProfiler.class); // bytes allocated per operation do not move with machine load
        if (quick) {
            options.warmupIterations(warmups).warmupTime(TimeValue.milliseconds(warmupMillis))
                    .measurementIterations(2).measurementTime(TimeValue.milliseconds(measureMillis)).forks(1);
        }
        return new Runner(options.build()).run();
    }

    private static Report report(List<RunResult> results, boolean quick, String context) {
        Report report = new Report("micro", "Micro-benchmarks: codec, replica choice, REDO log append", "benchmark",
                "case", "score", "error (99.9%)", "unit", "allocated B/op", "frame bytes")
                .axes("operation", "ns per operation (log scale)", false).logarithmicY().legendOutside();
        Map<String, Map<String, Double>> codecTotals = new TreeMap<>();
        for (RunResult run : results) { // codec, replica choice, REDO log; JMH orders each by method and parameters
            BenchmarkParams params = run.getParams();
            Result<?> result = run.getPrimaryResult();
            String method = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
            double score = result.getScore();
            Object error = Double.isNaN(result.getScoreError()) ? "n/a" : (Object) result.getScoreError();
            Result<?> allocated = run.getSecondaryResults().get("gc.alloc.rate.norm");
            Object bytes = allocated == null ? "n/a" : (Object) allocated.getScore();
            if (params.getBenchmark().contains(CodecBenchmark.class.getSimpleName())) {
                String message = params.getParam("message");
                String format = params.getParam("format");
                report.row("codec " + method, message + ", " + format, score, error, result.getScoreUnit(), bytes,
                        CodecBenchmark.frameBytes(message, format));
                report.categoryPoint(format, message + " " + method, score);
                codecTotals.computeIfAbsent(message, m -> new TreeMap<>()).merge(format, score, Double::sum);
            } else if (params.getBenchmark().contains(ReplicaChoiceBenchmark.class.getSimpleName())) {
                String nodes = params.getParam("nodes") + " nodes";
                report.row("replica choice", params.getParam("policy") + ", " + nodes, score, error,
                        result.getScoreUnit(), bytes, "");
                report.categoryPoint(nodes, params.getParam("policy"), score);
            } else {
                String policy = method.equals("append") ? "append, fsync " + params.getParam("policy") : method;
                report.row("REDO log", policy + ", " + params.getThreads() + " threads", score, error,
                        result.getScoreUnit(), bytes, "");
            }
        }
        codecTotals.forEach((message, byFormat) -> { // a format whose benchmark failed shows as NaN
            double json = byFormat.getOrDefault("json", Double.NaN);
            double smile = byFormat.getOrDefault("smile", Double.NaN);
            double cbor = byFormat.getOrDefault("cbor", Double.NaN);
            report.note(String.format(Locale.ROOT,
                    "%s encode + decode: json %.0f ns, smile %.0f ns (json/smile %.1f×), cbor %.0f ns"
                            + " (json/cbor %.1f×).",
                    message, json, smile, json / smile, cbor, json / cbor));
        });
        report.note("Codec and replica choice: JMH average time per operation, one thread; REDO log: throughput of"
                + " durable appends (the plot shows the first two only). "
                + (quick ? "Quick settings: 1 fork per benchmark; warmup and measurement 2 × 0.5 s and 2 × 0.4 s"
                        + " (codec), 1 × 0.4 s and 2 × 0.3 s (replica choice), 1 × 0.3 s and 2 × 0.4 s (REDO log);"
                        + " with 2 measurements JMH gives no error bound."
                        : "Settings: each benchmark class's own annotations, 1 fork per benchmark."));
        report.note(context);
        return report;
    }
}
