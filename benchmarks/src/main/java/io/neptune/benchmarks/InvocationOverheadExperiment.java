package io.neptune.benchmarks;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.json.Json;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * Experiment 1 of issue 5, the dissertation's invocation overhead (section 2.5: an echo call took
 * 1128 µs, of which Neptune was responsible for 97 µs over a TCP round trip): unary echo latency
 * (p50, p99) and closed-loop throughput at 1, 8 and 64 callers for
 *
 * <ul>
 *   <li>raw Netty TCP ping-pong ({@link NettyTcpEcho}, flushes consolidated as Neptune's are), the floor: over
 *       one connection and over as many as Neptune's fixed-node path uses ({@value #NEPTUNE_CONNECTIONS}, each
 *       with an event loop thread of its own at both ends); the floor is the better of the two;
 *   <li>Neptune to a partition with a single replica, so no policy polls ({@link EchoCluster#FIXED_PARTITION});
 *   <li>the same with the method declared {@code @Read(blocking = false)}: it runs on the server's I/O thread;
 *   <li>the same fixed-node calls with an OpenTelemetry SDK on every node ({@link TracingSdk}): once with
 *       the always-off sampler (installed, nothing recorded) and once always-on (every span recorded and
 *       exported in batches to the SDK's no-op exporter), against the rows above, whose nodes have the
 *       no-op API;
 *   <li>Neptune with random polling over two replicas ({@link EchoCluster#SHARED_PARTITION});
 *   <li>the same two replicas with the {@code load-aware} policy (polls only stale load reports) and
 *       with {@code p2c} (power of two choices over the caller's own calls in flight, no polls);
 *   <li>gRPC-java unary echo with its defaults ({@link GrpcEcho}), the alternative most users would pick;
 *   <li>the same with {@code directExecutor()} at both ends, gRPC's fast path without a thread hop.
 * </ul>
 *
 * <p>All servers and the callers run in this JVM on 127.0.0.1 and every request carries the same
 * 39 bytes of application payload, the JSON of {@link EchoCluster#PING}. The callers are
 * asynchronous ({@link ClosedLoop}): N calls outstanding, not N threads. Each caller count runs the
 * systems one after another, so drifting machine load hits them alike.
 *
 * <p>Usage: {@code ./neptune bench overhead [--quick]}; the report goes to
 * {@code docs/benchmarks/invocation-overhead.*} under the working directory. {@code --quick} measures
 * the same systems at 1 and 64 callers in shorter runs ({@link Plan#QUICK}).
 */
public final class InvocationOverheadExperiment {
    static final List<Integer> CALLERS = List.of(1, 8, 64);
    /** Connections (and event loop threads at each end) of Neptune's path: the client's default, the I/O threads. */
    static final int NEPTUNE_CONNECTIONS = ClientConfig.DEFAULT_CONNECTIONS_PER_NODE;
    /** The prefix of both raw Netty labels. */
    static final String RAW = "raw Netty TCP";
    static final String RAW_SINGLE = RAW + " 1 connection";
    static final String RAW_MULTI = RAW + " " + NEPTUNE_CONNECTIONS + " connections";
    // Labels are CSV cells: no commas.
    static final String FIXED = "Neptune fixed node";
    static final String INLINE = "Neptune fixed node non-blocking";
    static final String FIXED_TLS = "Neptune fixed node, TLS (JDK)";
    static final String FIXED_OPENSSL = "Neptune fixed node, TLS (OpenSSL)";
    static final String TRACED_UNSAMPLED = "Neptune fixed node tracing SDK unsampled";
    static final String TRACED_SAMPLED = "Neptune fixed node tracing SDK sampled";
    /** The caller counts of the tracing table: one call at a time, and the most outstanding. */
    static final List<Integer> TRACING_CALLERS = List.of(1, 64);
    static final String POLLING = "Neptune random polling";
    static final String LOAD_AWARE = "Neptune load-aware";
    static final String P2C = "Neptune P2C";
    static final String GRPC = "gRPC-java";
    static final String GRPC_DIRECT = "gRPC-java direct executor";

    /**
     * How long each run lasts.
     *
     * @param quick whether this is the quick mode
     * @param callers the caller counts measured, each system at each
     * @param firstWarmUp the first, unmeasured run of each system at 8 callers (JIT, connections)
     * @param warmUp the unmeasured start of every measured run
     * @param measure the measured period of every run
     */
    record Plan(boolean quick, List<Integer> callers, Duration firstWarmUp, Duration warmUp, Duration measure) {
        /**
         * The quick plan: every system at 1 and 64 callers, the caller counts of the overhead and tracing
         * tables, in runs of 0.5 + 1 s after a 1 s first warm-up. One caller still completes thousands of
         * calls in 1 s, enough for the p50 the overhead table subtracts; p99 is noisier than in the full
         * plan, and the plot has no point at 8 callers.
         */
        static final Plan QUICK = new Plan(true, TRACING_CALLERS, Duration.ofSeconds(1), Duration.ofMillis(500),
                Duration.ofSeconds(1));
        /** The full plan: 1, 8 and 64 callers, runs of 2 + 10 s after a 5 s first warm-up. */
        static final Plan FULL = new Plan(false, CALLERS, Duration.ofSeconds(5), Duration.ofSeconds(2),
                Duration.ofSeconds(10));
    }

    /**
     * One measured run.
     *
     * @param system the system's label
     * @param result latency and throughput
     * @param load the one-minute load average when the run began
     */
    record Measurement(String system, ClosedLoop.Result result, String load) {}

    private InvocationOverheadExperiment() {}

    /** Runs the experiment; {@code --quick} for {@link Plan#QUICK}. */
    public static void main(String[] args) throws Exception {
        boolean quick = ExperimentRun.quick(args);
        Path root = Report.repositoryRoot();
        Plan plan = quick ? Plan.QUICK : Plan.FULL;
        String loadBefore = Report.loadAverage();
        long began = System.nanoTime();
        System.out.printf(Locale.ROOT, "invocation overhead (%s): callers %s, runs of %.1f + %.1f s; load average %s%n",
                quick ? "quick" : "full", plan.callers(), seconds(plan.warmUp()), seconds(plan.measure()), loadBefore);
        List<Measurement> measurements = run(plan);
        double seconds = (System.nanoTime() - began) / 1e9;
        String loadAfter = Report.loadAverage();
        System.out.printf(Locale.ROOT, "done in %.0f s; load average %s at start, %s at end%n", seconds, loadBefore,
                loadAfter);
        String context = String.format(Locale.ROOT, "Run time %.0f s; load average (1, 5, 15 min) %s at the start and"
                + " %s at the end (other work shares this host).", seconds, loadBefore, loadAfter);
        System.out.println(floorTable(measurements, plan.callers()));
        System.out.println(tracingTable(measurements));
        report(plan, measurements, context).write(root, "./neptune bench overhead" + (quick ? " --quick" : ""));
        System.out.println("wrote docs/benchmarks/invocation-overhead.*");
    }

    private static List<Measurement> run(Plan plan) throws IOException, InterruptedException {
        byte[] payload = Json.mapper().writeValueAsBytes(EchoCluster.PING);
        CallOptions random = CallOptions.builder().policy(BalancingPolicy.RANDOM).build();
        CallOptions polling = CallOptions.builder().policy(BalancingPolicy.RANDOM_POLLING).build();
        CallOptions loadAware = CallOptions.builder().policy(BalancingPolicy.LOAD_AWARE).build();
        CallOptions p2c = CallOptions.builder().policy(BalancingPolicy.P2C).build();
        List<Measurement> measurements = new ArrayList<>();
        try (NettyTcpEcho raw = new NettyTcpEcho(payload);
                NettyTcpEcho rawMulti = new NettyTcpEcho(payload, NEPTUNE_CONNECTIONS);
                GrpcEcho grpc = new GrpcEcho(payload, false);
                GrpcEcho grpcDirect = new GrpcEcho(payload, true);
                EchoCluster neptune = EchoCluster.start();
                EchoCluster neptuneTls = EchoCluster.startWithTls(SecurityConfig.TlsProvider.JDK);
                EchoCluster neptuneOpenSsl = EchoCluster.startWithTls(SecurityConfig.TlsProvider.OPENSSL);
                OpenTelemetrySdk unsampledSdk = TracingSdk.UNSAMPLED.open();
                EchoCluster neptuneUnsampled = EchoCluster.startTraced(unsampledSdk);
                OpenTelemetrySdk sampledSdk = TracingSdk.SAMPLED.open();
                EchoCluster neptuneSampled = EchoCluster.startTraced(sampledSdk)) {
            neptune.verifyPollingPrefersIdleReplica();
            Map<String, Supplier<CompletableFuture<?>>> systems = new LinkedHashMap<>();
            systems.put(RAW_SINGLE, raw::roundTripAsync);
            systems.put(RAW_MULTI, rawMulti::roundTripAsync);
            systems.put(FIXED, () -> neptune.echo(EchoCluster.FIXED_PARTITION, random));
            systems.put(TRACED_UNSAMPLED, () -> neptuneUnsampled.echo(EchoCluster.FIXED_PARTITION, random));
            systems.put(TRACED_SAMPLED, () -> neptuneSampled.echo(EchoCluster.FIXED_PARTITION, random));
            systems.put(FIXED_TLS, () -> neptuneTls.echo(EchoCluster.FIXED_PARTITION, random));
            systems.put(FIXED_OPENSSL, () -> neptuneOpenSsl.echo(EchoCluster.FIXED_PARTITION, random));
            systems.put(INLINE, () -> neptune.echo(EchoCluster.FIXED_PARTITION, "echoInline", random));
            systems.put(POLLING, () -> neptune.echo(EchoCluster.SHARED_PARTITION, polling));
            systems.put(LOAD_AWARE, () -> neptune.echo(EchoCluster.SHARED_PARTITION, loadAware));
            systems.put(P2C, () -> neptune.echo(EchoCluster.SHARED_PARTITION, p2c));
            systems.put(GRPC, grpc::echoAsync);
            systems.put(GRPC_DIRECT, grpcDirect::echoAsync);
            for (Map.Entry<String, Supplier<CompletableFuture<?>>> system : systems.entrySet()) {
                ClosedLoop.Result r = new ClosedLoop(system.getValue()).run(8, plan.firstWarmUp(), Duration.ofMillis(1));
                System.out.printf(Locale.ROOT, "warmed up %s (%d failures)%n", system.getKey(), r.failures());
            }
            for (int callers : plan.callers()) {
                for (Map.Entry<String, Supplier<CompletableFuture<?>>> system : systems.entrySet()) {
                    String load = Report.loadAverage().split(",")[0];
                    ClosedLoop.Result r = new ClosedLoop(system.getValue()).run(callers, plan.warmUp(), plan.measure());
                    System.out.printf(Locale.ROOT, "%-26s %2d callers: %8.0f calls/s, p50 %7.1f µs, p99 %8.1f µs,"
                            + " mean %7.1f µs, %6.0f B/call, CPU %5.1f µs/call, %4.2f wake-ups/call, %d failures%s;"
                            + " load %s%n",
                            system.getKey(), callers, r.throughput(), r.p50(), r.p99(), r.mean(), r.bytesPerCall(),
                            r.cpuMicrosPerCall(), r.switchesPerCall(), r.failures(),
                            r.firstFailure().isEmpty() ? "" : " (first: " + r.firstFailure() + ")", load);
                    measurements.add(new Measurement(system.getKey(), r, load));
                }
            }
        }
        return measurements;
    }

    private static Report report(Plan plan, List<Measurement> measurements, String context) {
        Report report = new Report("invocation-overhead", "Invocation overhead: unary echo, closed loop", "system",
                "callers", "calls", "failures", "calls/s", "p50 (µs)", "p99 (µs)", "mean (µs)", "bytes/call",
                "CPU µs/call", "wake-ups/call", "load (1 min)");
        for (Measurement m : measurements) {
            ClosedLoop.Result r = m.result();
            report.row(m.system(), r.callers(), r.calls(), r.failures(), r.throughput(), r.p50(), r.p99(), r.mean(),
                    Math.round(r.bytesPerCall()), r.cpuMicrosPerCall(), r.switchesPerCall(), m.load());
            report.point(m.system(), r.callers(), r.throughput());
        }
        report.axes("concurrent callers (calls outstanding)", "throughput (calls/s)", true).legendOutside();
        report.note(String.format(Locale.ROOT, "Each row: %.1f s warm-up, then %.1f s measured, with that many"
                + " asynchronous calls outstanding (a closed loop: each caller sends its next call when the previous"
                + " one completes). Before the first row each system ran %d s at 8 callers unmeasured. Servers and"
                + " callers share one JVM on 127.0.0.1; every request carries the same 39-byte JSON payload. gRPC uses"
                + " a byte[] marshaller instead of protoc-generated classes; \"gRPC-java\" keeps its default executors,"
                + " the \"direct executor\" row runs handler and callbacks on its event loops.",
                seconds(plan.warmUp()), seconds(plan.measure()), plan.firstWarmUp().toSeconds()));
        report.note("bytes/call: heap bytes allocated by all threads of this one JVM (callers, client, servers and"
                + " the idle background of the other systems) during the measured period, over the calls completed"
                + " in it (HotSpot's per-thread counters, com.sun.management.ThreadMXBean#getThreadAllocatedBytes);"
                + " both ends of every call are in it, and so is the load generator's own share, which the raw Netty"
                + " row shows. CPU µs/call: the process's CPU time over the same period and calls. wake-ups/call:"
                + " the voluntary context switches of all its threads (/proc/self/task/*/status) over the same period"
                + " and calls: each is a thread that slept and was woken, the hand-offs a call pays (raw Netty pays"
                + " about one per side).");
        report.note("The raw Netty floor flushes as Neptune's pipelines do (a FlushConsolidationHandler(256, true) at the"
                + " head of both ends' pipelines: echoes written during a read burst leave in one write at its end) and"
                + " runs once over one connection and once over " + NEPTUNE_CONNECTIONS + ", as many as the fixed-node"
                + " path uses (the client's connections per node), each with an event loop thread of its own at both"
                + " ends (the nodes' I/O threads). The floor is the better of the two at each caller count.");
        report.note(floorTable(measurements, plan.callers()));
        report.note(overheadTable(measurements));
        report.note(tracingTable(measurements));
        report.note(context);
        return report;
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }

    /**
     * The floor at each caller count, the better of the raw Netty runs over one connection and over
     * several: with the highest calls/s, or the lowest p50 if {@code byLatency}.
     */
    static ClosedLoop.Result floor(List<Measurement> measurements, int callers, boolean byLatency) {
        ClosedLoop.Result single = find(measurements, RAW_SINGLE, callers);
        ClosedLoop.Result multi = find(measurements, RAW_MULTI, callers);
        boolean singleWins = byLatency ? single.p50() <= multi.p50() : single.throughput() >= multi.throughput();
        return singleWins ? single : multi;
    }

    /** Which raw run is {@link #floor}'s at {@code callers}. */
    static String floorLabel(List<Measurement> measurements, int callers, boolean byLatency) {
        return floor(measurements, callers, byLatency) == find(measurements, RAW_SINGLE, callers) ? RAW_SINGLE
                : RAW_MULTI;
    }

    /** The two raw runs at each caller count, which one is the floor, and the fixed node against it. */
    static String floorTable(List<Measurement> measurements, List<Integer> callerCounts) {
        StringBuilder md = new StringBuilder("The raw Netty floor, one connection against " + NEPTUNE_CONNECTIONS
                + " (same run):\n\n");
        md.append("| callers | 1 connection calls/s | ").append(NEPTUNE_CONNECTIONS).append(" connections calls/s"
                + " | 1 connection p50 (µs) | ").append(NEPTUNE_CONNECTIONS).append(" connections p50 (µs)"
                + " | best calls/s | Neptune fixed node ÷ best calls/s | best p50 | Neptune fixed node p50 ÷ best |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
        for (int callers : callerCounts) {
            ClosedLoop.Result single = find(measurements, RAW_SINGLE, callers);
            ClosedLoop.Result multi = find(measurements, RAW_MULTI, callers);
            ClosedLoop.Result fixed = find(measurements, FIXED, callers);
            ClosedLoop.Result byThroughput = floor(measurements, callers, false);
            ClosedLoop.Result byLatency = floor(measurements, callers, true);
            md.append(String.format(Locale.ROOT, "| %d | %.0f | %.0f | %.1f | %.1f | %s | %.2f | %s | %.2f |%n", callers,
                    single.throughput(), multi.throughput(), single.p50(), multi.p50(),
                    connections(floorLabel(measurements, callers, false)), fixed.throughput() / byThroughput.throughput(),
                    connections(floorLabel(measurements, callers, true)), fixed.p50() / byLatency.p50()));
        }
        return md.toString().stripTrailing();
    }

    private static String connections(String rawLabel) {
        return rawLabel.substring(RAW.length()).trim();
    }

    /** The middleware overhead at one caller: each system's latency minus the raw floor's (the lower p50). */
    static String overheadTable(List<Measurement> measurements) {
        ClosedLoop.Result floor = floor(measurements, 1, true);
        StringBuilder md = new StringBuilder("Overhead over the raw Netty floor at 1 caller (" + connections(
                floorLabel(measurements, 1, true)) + ", the lower p50; the dissertation: 97 µs):\n\n");
        md.append("| system | p50 − raw p50 (µs) | mean − raw mean (µs) |\n| --- | --- | --- |\n");
        for (String system : List.of(FIXED, TRACED_UNSAMPLED, TRACED_SAMPLED, FIXED_TLS, FIXED_OPENSSL, INLINE, POLLING,
                LOAD_AWARE, P2C, GRPC, GRPC_DIRECT)) {
            ClosedLoop.Result r = find(measurements, system, 1);
            md.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f |%n", system, r.p50() - floor.p50(),
                    r.mean() - floor.mean()));
        }
        return md.toString().stripTrailing();
    }

    /**
     * The cost of tracing on the fixed-node call: throughput and latency with the SDK unsampled and
     * sampled, and their ratios to the same calls with tracing off (the no-op API) in the same run.
     */
    static String tracingTable(List<Measurement> measurements) {
        StringBuilder md = new StringBuilder("Tracing on the fixed-node call (ratios: to tracing off, same run):\n\n");
        md.append("| tracing | callers | calls/s | p50 (µs) | p99 (µs) | calls/s ratio | p50 ratio | p99 ratio |\n");
        md.append("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put(FIXED, "off (no-op API)");
        labels.put(TRACED_UNSAMPLED, "SDK always-off sampler");
        labels.put(TRACED_SAMPLED, "SDK always-on sampler");
        for (int callers : TRACING_CALLERS) {
            ClosedLoop.Result off = find(measurements, FIXED, callers);
            for (Map.Entry<String, String> label : labels.entrySet()) {
                ClosedLoop.Result r = find(measurements, label.getKey(), callers);
                md.append(String.format(Locale.ROOT, "| %s | %d | %.0f | %.1f | %.1f | %.2f | %.2f | %.2f |%n",
                        label.getValue(), callers, r.throughput(), r.p50(), r.p99(), r.throughput() / off.throughput(),
                        r.p50() / off.p50(), r.p99() / off.p99()));
            }
        }
        return md.toString().stripTrailing();
    }

    private static ClosedLoop.Result find(List<Measurement> measurements, String system, int callers) {
        return measurements.stream().filter(m -> m.system().equals(system) && m.result().callers() == callers)
                .map(Measurement::result).findFirst()
                .orElseThrow(() -> new IllegalStateException("no run of " + system + " at " + callers + " callers"));
    }
}
