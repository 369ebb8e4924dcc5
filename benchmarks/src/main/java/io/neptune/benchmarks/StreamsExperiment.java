package io.neptune.benchmarks;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Stream throughput (issue 11, section 1): messages/s and MB/s of server streams of 100 B and
 * 16 KB messages, 1 and 16 streams at once, for
 *
 * <ul>
 *   <li>Neptune: a {@code @Read} method returning {@code Flow.Publisher<byte[]>}
 *       ({@link BenchEchoService#stream}) on {@code node-b} of an {@link EchoCluster}, streamed to
 *       {@code node-a}'s client;
 *   <li>gRPC-java server streaming with its defaults ({@link GrpcStreams}), the alternative most
 *       users would pick;
 *   <li>the same with {@code directExecutor()} at both ends, gRPC's fast path without a thread hop.
 * </ul>
 *
 * <p>One round opens the case's streams at once, each of the same number of messages, and lasts
 * from opening the first to the end of the last; it also notes each stream's time to its first
 * message. Every case runs warm-up rounds and then measured rounds, the systems taking turns round
 * by round, so drifting machine load hits them alike. All in this JVM on 127.0.0.1.
 *
 * <p>Usage: {@code ./neptune bench streams [--quick]}; the report goes to
 * {@code docs/benchmarks/streams.*} under the working directory.
 */
public final class StreamsExperiment {
    static final List<Integer> PAYLOADS = List.of(100, 16 * 1024);
    static final List<Integer> STREAMS = List.of(1, 16);
    // Labels are CSV cells: no commas.
    static final String NEPTUNE = "Neptune";
    static final String GRPC = "gRPC-java";
    static final String GRPC_DIRECT = "gRPC-java direct executor";
    /** The longest a round may take before the run fails. */
    private static final Duration ROUND_TIMEOUT = Duration.ofMinutes(2);

    /**
     * How much each case streams.
     *
     * @param quick whether this is the quick mode
     * @param warmUpRounds unmeasured rounds of each system before each case's measured rounds
     * @param rounds measured rounds of each system in each case
     * @param smallItems messages per round (over all its streams) of the 100 B payload
     * @param largeItems messages per round of the 16 KB payload
     */
    record Plan(boolean quick, int warmUpRounds, int rounds, int smallItems, int largeItems) {
        static final Plan QUICK = new Plan(true, 1, 5, 120_000, 12_000);
        static final Plan FULL = new Plan(false, 2, 10, 300_000, 30_000);

        /** The plan {@code args} ask for: {@code --quick} or nothing. */
        static Plan parse(String... args) {
            return ExperimentRun.quick(args) ? QUICK : FULL;
        }

        /** The case of {@code itemBytes} messages over {@code streams} streams: this plan's messages shared out. */
        Case of(int itemBytes, int streams) {
            int items = itemBytes <= PAYLOADS.get(0) ? smallItems : largeItems;
            return new Case(itemBytes, streams, Math.max(1, items / streams));
        }
    }

    /**
     * One combination of payload and concurrency.
     *
     * @param itemBytes payload bytes of each message
     * @param streams streams open at once
     * @param itemsPerStream messages in each stream
     */
    record Case(int itemBytes, int streams, int itemsPerStream) {
        StreamBurst burst() {
            return new StreamBurst(itemsPerStream, itemBytes);
        }
    }

    /** A system under test: opens one stream of {@code burst} whose items go to {@code tally}. */
    @FunctionalInterface
    interface StreamSource {
        void open(StreamBurst burst, StreamTally tally);
    }

    private StreamsExperiment() {}

    /** Runs the experiment; {@code --quick} for the short plan (about 2 minutes). */
    public static void main(String[] args) throws Exception {
        Plan plan = Plan.parse(args);
        ExperimentRun run = ExperimentRun.begin(String.format(Locale.ROOT, "streams (%s): payloads %s B, streams %s,"
                + " %d + %d rounds", plan.quick() ? "quick" : "full", PAYLOADS, STREAMS, plan.warmUpRounds(),
                plan.rounds()));
        List<StreamsReport.Measurement> measurements = run(plan);
        String context = run.finish();
        StreamsReport.report(plan, measurements, context).write(run.root(), ExperimentRun.command("streams", args));
        System.out.println("wrote docs/benchmarks/streams.*");
    }

    private static List<StreamsReport.Measurement> run(Plan plan) throws Exception {
        CallOptions options = CallOptions.builder().policy(BalancingPolicy.RANDOM).timeout(ROUND_TIMEOUT).build();
        List<StreamsReport.Measurement> measurements = new ArrayList<>();
        try (GrpcStreams grpc = new GrpcStreams(false);
                GrpcStreams grpcDirect = new GrpcStreams(true);
                EchoCluster neptune = EchoCluster.start()) {
            Map<String, StreamSource> systems = new LinkedHashMap<>();
            systems.put(NEPTUNE, (burst, tally) -> neptune.stream(burst, options).subscribe(tally));
            systems.put(GRPC, grpc::open);
            systems.put(GRPC_DIRECT, grpcDirect::open);
            for (int itemBytes : PAYLOADS) {
                for (int streams : STREAMS) {
                    measurements.addAll(runCase(plan.of(itemBytes, streams), systems, plan));
                }
            }
        }
        return measurements;
    }

    private static List<StreamsReport.Measurement> runCase(Case c, Map<String, StreamSource> systems, Plan plan)
            throws Exception {
        String load = Report.loadAverage().split(",")[0];
        for (int i = 0; i < plan.warmUpRounds(); i++) {
            for (StreamSource source : systems.values()) {
                round(source, c);
            }
        }
        Map<String, List<StreamsReport.Round>> rounds = new LinkedHashMap<>();
        for (int i = 0; i < plan.rounds(); i++) {
            for (Map.Entry<String, StreamSource> system : systems.entrySet()) {
                rounds.computeIfAbsent(system.getKey(), s -> new ArrayList<>()).add(round(system.getValue(), c));
            }
        }
        List<StreamsReport.Measurement> measured = new ArrayList<>();
        rounds.forEach((system, r) -> {
            StreamsReport.Measurement m = new StreamsReport.Measurement(system, c, r, load);
            System.out.printf(Locale.ROOT, "%-26s %5d B x %2d streams of %6d: %9.0f msg/s (sd %7.0f), %7.1f MB/s,"
                    + " first message %6.2f ms; load %s%n", system, c.itemBytes(), c.streams(), c.itemsPerStream(),
                    m.itemsPerSecond().mean(), m.itemsPerSecond().sd(), m.megabytesPerSecond().mean(),
                    m.firstItemMillis().mean(), load);
            measured.add(m);
        });
        return measured;
    }

    /** Opens the case's streams at once and waits for all of them to end. */
    private static StreamsReport.Round round(StreamSource source, Case c) throws Exception {
        List<StreamTally> tallies = new ArrayList<>();
        for (int i = 0; i < c.streams(); i++) {
            StreamTally tally = new StreamTally(c.burst());
            tallies.add(tally);
            source.open(c.burst(), tally);
        }
        List<StreamTally.Result> results = new ArrayList<>();
        for (StreamTally tally : tallies) {
            results.add(await(tally.done()));
        }
        return StreamsReport.Round.of(results);
    }

    private static StreamTally.Result await(CompletableFuture<StreamTally.Result> done) throws Exception {
        try {
            return done.get(ROUND_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a stream failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("a stream did not end within " + ROUND_TIMEOUT, e);
        }
    }
}
