package io.neptune.benchmarks;

import io.neptune.benchmarks.QosWorkload.Form;
import io.neptune.client.BalancingPolicy;
import io.neptune.core.ServiceClass;
import io.neptune.core.YieldFunction;
import io.neptune.server.SchedulingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * Issue 10, Figure 4.11 (dissertation section 4.5.3): the aggregate yield of Neptune's request
 * distribution (class-aware random polling, poll size 3) against server partitioning, at 75%, 125%
 * and 200% demand, on clusters of several sizes. Both schemes run side by side on one
 * {@link QosCluster#replicated} cluster of in-JVM nodes, each on its own slot (an independent
 * emulated cluster with {@link #WORKERS} worker per server), fed the same Differentiated Search
 * request sequence (hybrid yields, no guarantees), every node running {@link SchedulingPolicy#ADAPTIVE}
 * as in the dissertation. Server partitioning re-partitions every {@link #PARTITIONING_INTERVAL}
 * (the dissertation's 10 s / {@link QosWorkload#SCALE}) from announcements every
 * {@link #ANNOUNCE_INTERVAL}.
 *
 * <p>Thread-safety: one thread.
 */
final class QosScalability {
    /** Workers per server and slot: one, so that 16 servers and two schemes fit a small host. */
    static final int WORKERS = 1;
    /** Server partitioning's interval: 10 s scaled. */
    static final Duration PARTITIONING_INTERVAL = Duration.ofSeconds(10).dividedBy(QosWorkload.SCALE);
    /** How often nodes announce (their class counters feed server partitioning): 1 s scaled. */
    static final Duration ANNOUNCE_INTERVAL = Duration.ofSeconds(1).dividedBy(QosWorkload.SCALE);
    private static final long DRAIN_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** The two request distribution schemes; a scheme's ordinal is its slot. */
    enum Scheme {
        /** Class-aware random polling over every server (section 4.3). */
        NEPTUNE("neptune", BalancingPolicy.RANDOM_POLLING),
        /** The comparison scheme: servers partitioned among the classes every interval. */
        PARTITIONING("server-partitioning", BalancingPolicy.SERVER_PARTITIONING);

        final String label;
        final BalancingPolicy policy;

        Scheme(String label, BalancingPolicy policy) {
            this.label = label;
            this.policy = policy;
        }
    }

    /**
     * What runs.
     *
     * @param servers the cluster sizes
     * @param levels the demand levels, percent
     * @param warmup unrecorded time at the start of each round
     * @param measure recorded time of each round
     */
    record Plan(List<Integer> servers, List<Integer> levels, Duration warmup, Duration measure) {
        /**
         * The quick plan: 8 servers, the size closest to the dissertation's 16 that starts quickly, at every
         * level, in rounds of 4 + 4 s (the warm-up longer than Adaptive's 3 s window).
         */
        static final Plan QUICK = new Plan(List.of(8), List.of(75, 125, 200), Duration.ofSeconds(4),
                Duration.ofSeconds(4));
        /** The full plan: 2 to 16 servers, rounds of 5 + 20 s. */
        static final Plan FULL = new Plan(List.of(2, 4, 8, 16), List.of(75, 125, 200), Duration.ofSeconds(5),
                Duration.ofSeconds(20));
    }

    /**
     * One scheme at one size and level.
     *
     * @param servers the cluster size
     * @param level the demand, percent
     * @param rate the offered rate, requests per second
     * @param scheme the request distribution scheme
     * @param classes the generator's figures per class over the recorded window
     * @param seconds the recorded window's length
     * @param meanLagMillis the generator's mean lag behind schedule
     */
    record Point(int servers, int level, double rate, Scheme scheme, List<QosTally.Figures> classes, double seconds,
            double meanLagMillis) {
        QosTally.Figures total() {
            return classes.stream().reduce(new QosTally.Figures(0, 0, 0, 0, 0, 0, 0, Double.NaN),
                    QosTally.Figures::plus);
        }

        /** Realised yield per second. */
        double yieldRate() {
            return total().realizedYield() / seconds;
        }
    }

    private QosScalability() {}

    /** The service classes: Differentiated Search, hybrid yields, no guaranteed shares. */
    static List<ServiceClass> classes() {
        return QosWorkload.SEARCH.serviceClasses(Form.HYBRID);
    }

    /**
     * Runs {@code plan}; 100% demand on {@code n} servers is {@code n * WORKERS * perWorkerRate}
     * requests per second. Progress lines go to {@code log}.
     */
    static List<Point> run(Plan plan, double perWorkerRate, Consumer<String> log) throws InterruptedException {
        List<Point> points = new ArrayList<>();
        for (int n : plan.servers()) {
            try (QosCluster cluster = QosCluster.replicated(n, Scheme.values().length, WORKERS,
                    SchedulingPolicy.ADAPTIVE, classes(), QosExperiment.ADAPTIVE_WINDOW, ANNOUNCE_INTERVAL,
                    PARTITIONING_INTERVAL)) {
                double full = n * WORKERS * perWorkerRate;
                round(cluster, n, 0, 0.5 * full, plan.warmup(), Duration.ZERO);
                log.accept(String.format(Locale.ROOT, "Figure 4.11: %d servers up, warm-up done", n));
                for (int level : plan.levels()) {
                    List<Point> round = round(cluster, n, level, full * level / 100, plan.warmup(), plan.measure());
                    points.addAll(round);
                    for (Point p : round) {
                        log.accept(String.format(Locale.ROOT, "Figure 4.11: %2d servers %3d%% (%6.1f req/s) %-19s"
                                + " yield %7.1f/s, loss %5.1f%% (gold/silver/bronze %.1f/%.1f/%.1f%%), lag %.1f ms",
                                n, level, p.rate(), p.scheme().label, p.yieldRate(), p.total().lossPercent(),
                                p.classes().get(0).lossPercent(), p.classes().get(1).lossPercent(),
                                p.classes().get(2).lossPercent(), p.meanLagMillis()));
                    }
                }
            }
        }
        return points;
    }

    private static List<Point> round(QosCluster cluster, int n, int level, double rate, Duration warmup,
            Duration measure) throws InterruptedException {
        List<YieldFunction> yields = classes().stream().map(ServiceClass::yield).toList();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        long from = start + warmup.toNanos();
        long end = from + measure.toNanos();
        List<OpenLoopRun> runs = new ArrayList<>();
        List<QosTally> tallies = new ArrayList<>();
        for (Scheme scheme : Scheme.values()) {
            QosTally tally = new QosTally(yields, QosWorkload.DEADLINE.toNanos(), false);
            tallies.add(tally);
            OpenLoopRun run = new OpenLoopRun(List.of(cluster.client()), cluster.service(scheme.ordinal()),
                    QosWorkload.SEARCH.arrivals(rate, scheme.policy), tally, 40_000L + 100L * n + level);
            long offset = TimeUnit.MICROSECONDS.toNanos(1_370L * scheme.ordinal());
            run.start("qos-" + scheme.label, start + offset, from + offset, end + offset);
            runs.add(run);
        }
        List<Point> round = new ArrayList<>();
        for (Scheme scheme : Scheme.values()) {
            OpenLoopRun.Result result = runs.get(scheme.ordinal()).awaitResult(end - System.nanoTime()
                    + DRAIN_NANOS);
            QosTally tally = tallies.get(scheme.ordinal());
            round.add(new Point(n, level, rate, scheme, IntStream.range(0, yields.size()).mapToObj(tally::of)
                    .toList(), measure.toNanos() / 1e9, result.meanLag()));
        }
        return measure.isZero() ? List.of() : round;
    }
}
