package io.neptune.benchmarks;

import io.neptune.benchmarks.QosScalability.Scheme;
import io.neptune.benchmarks.QosWorkload.Form;
import io.neptune.client.CallOptions;
import io.neptune.core.ClassStats;
import io.neptune.core.ServiceClass;
import io.neptune.server.SchedulingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.DoubleUnaryOperator;

/**
 * Issue 10, Figure 4.12 (dissertation section 4.5.4): per-class demand and allocation over a 300 s
 * timeline (here 30 s, times / {@link QosWorkload#SCALE}) with a silver demand spike and one server
 * failing and recovering, Neptune against server partitioning, side by side on one
 * {@link QosCluster#replicated} cluster (each scheme on its own slot). Differentiated Search with a
 * 20% guarantee per class, fixed-interval arrivals and a constant service time ({@link PacedArrivals}).
 * The failed server is the one that served the most gold under server partitioning in the second
 * before the failure: the server "allocated to the Gold class"; closing its node takes it from both
 * schemes at once.
 *
 * <p>Thread-safety: one thread (plus the failure thread it starts).
 */
final class QosTimeline {
    /** Each class's guaranteed share. */
    static final double GUARANTEE = 0.2;
    /** Every request's service time: Table 4.2's 250 ms, scaled. */
    static final long SERVICE_MICROS = 250_000 / QosWorkload.SCALE;
    /** Silver's demand during the spike (our choice: the dissertation gives no figure; high enough to push bronze to its guarantee). */
    static final double SPIKE = 0.8;
    private static final long DRAIN_NANOS = TimeUnit.MINUTES.toNanos(1);

    /**
     * What runs; times are scaled (the dissertation's / 10).
     *
     * @param servers the cluster size
     * @param bucket the measuring interval (the dissertation's 2 s)
     * @param preroll unplotted time before t = 0 at the initial demand
     * @param length the timeline (300 s)
     * @param spikeFrom the silver spike's start (50 s)
     * @param spikeTo its end (150 s)
     * @param failAt when the server fails (200 s)
     * @param recoverAt when it comes back (250 s)
     */
    record Plan(int servers, Duration bucket, Duration preroll, Duration length, Duration spikeFrom, Duration spikeTo,
            Duration failAt, Duration recoverAt) {
        static final Plan QUICK = new Plan(16, Duration.ofMillis(200), Duration.ofSeconds(3), Duration.ofSeconds(30),
                Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofSeconds(20), Duration.ofSeconds(25));
        static final Plan FULL = QUICK;

        /** Class {@code k}'s demand (fraction of the cluster's capacity) at {@code t} seconds of the timeline. */
        double demand(int k, double t) {
            double share = QosWorkload.SEARCH.classes().get(k).share();
            boolean spike = k == 1 && t >= seconds(spikeFrom) && t < seconds(spikeTo);
            return spike ? SPIKE : share;
        }
    }

    /**
     * The measured timeline.
     *
     * @param plan what ran
     * @param failed which server failed
     * @param demand [class][bucket] demanded fraction of the n servers' capacity
     * @param allocation [scheme][class][bucket] fraction of the n servers' time used
     * @param lagMillis per scheme, the generator's mean lag
     */
    record Result(Plan plan, int failed, double[][] demand, double[][][] allocation, double[] lagMillis) {
        double bucketSeconds() {
            return seconds(plan.bucket());
        }

        int buckets() {
            return demand[0].length;
        }

        /** Servers up in bucket {@code b}, as a fraction of all. */
        double up(int b) {
            double t = b * bucketSeconds();
            boolean down = t + bucketSeconds() > seconds(plan.failAt()) && t < seconds(plan.recoverAt());
            return down ? (plan.servers() - 1.0) / plan.servers() : 1;
        }
    }

    private QosTimeline() {}

    /** The service classes: Differentiated Search, hybrid yields, {@link #GUARANTEE} each. */
    static List<ServiceClass> classes() {
        return QosWorkload.SEARCH.serviceClasses(Form.HYBRID).stream()
                .map(c -> new ServiceClass(c.name(), c.yield(), GUARANTEE)).toList();
    }

    /** Runs {@code plan}; progress lines to {@code log}. */
    static Result run(Plan plan, Consumer<String> log) throws InterruptedException {
        int n = plan.servers();
        int classes = QosWorkload.SEARCH.classes().size();
        double capacity = n * QosScalability.WORKERS * 1e6 / SERVICE_MICROS;
        double pre = seconds(plan.preroll());
        double bucket = seconds(plan.bucket());
        int buckets = (int) Math.round(seconds(plan.length()) / bucket);
        try (QosCluster cluster = QosCluster.replicated(n, Scheme.values().length, QosScalability.WORKERS,
                SchedulingPolicy.ADAPTIVE, classes(), QosExperiment.ADAPTIVE_WINDOW, QosScalability.ANNOUNCE_INTERVAL,
                QosScalability.PARTITIONING_INTERVAL)) {
            log.accept(String.format(Locale.ROOT, "Figure 4.12: %d servers up, capacity %.0f req/s per scheme", n,
                    capacity));
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            long origin = start + plan.preroll().toNanos();
            long end = origin + plan.length().toNanos();
            List<OpenLoopRun> runs = new ArrayList<>();
            List<PacedArrivals> sources = new ArrayList<>();
            for (Scheme scheme : Scheme.values()) {
                List<DoubleUnaryOperator> demands = new ArrayList<>();
                List<CallOptions> options = new ArrayList<>();
                for (int k = 0; k < classes; k++) {
                    int c = k;
                    demands.add(t -> plan.demand(c, t - pre));
                    options.add(QosWorkload.SEARCH.options(k, scheme.policy));
                }
                PacedArrivals source = new PacedArrivals(demands, options, capacity, SERVICE_MICROS, bucket,
                        pre + seconds(plan.length()));
                sources.add(source);
                OpenLoopRun run = new OpenLoopRun(List.of(cluster.client()), cluster.service(scheme.ordinal()),
                        source, (request, elapsed, error, measured) -> { }, 1);
                long offset = TimeUnit.MICROSECONDS.toNanos(1_370L * scheme.ordinal());
                run.start("qos-timeline-" + scheme.label, start + offset, origin + offset, end + offset);
                runs.add(run);
            }
            double[][][] allocation = new double[Scheme.values().length][classes][buckets];
            int failed = sample(cluster, plan, origin, buckets, allocation, log);
            double[] lag = new double[runs.size()];
            for (int s = 0; s < runs.size(); s++) {
                lag[s] = runs.get(s).awaitResult(end - System.nanoTime() + DRAIN_NANOS).meanLag();
            }
            int skip = (int) Math.round(pre / bucket);
            double[][] demand = new double[classes][buckets];
            for (int k = 0; k < classes; k++) {
                for (int b = 0; b < buckets; b++) {
                    demand[k][b] = sources.get(0).demand(k, skip + b);
                }
            }
            return new Result(plan, failed, demand, allocation, lag);
        }
    }

    /** Samples the servers' class usage at every bucket's end, failing and recovering a server on time; returns it. */
    private static int sample(QosCluster cluster, Plan plan, long origin, int buckets, double[][][] allocation,
            Consumer<String> log) throws InterruptedException {
        int n = plan.servers();
        long bucketNanos = plan.bucket().toNanos();
        List<ClassUsage> usage = new ArrayList<>();
        List<String> names = QosWorkload.SEARCH.classes().stream().map(QosWorkload.Spec::name).toList();
        for (long now = System.nanoTime(); origin - now > 0; now = System.nanoTime()) {
            LockSupport.parkNanos(origin - now); // the pre-roll is not plotted
        }
        for (Scheme scheme : Scheme.values()) {
            usage.add(new ClassUsage(names));
            usage.get(scheme.ordinal()).sample(stats(cluster, scheme));
        }
        long failBucket = plan.failAt().toNanos() / bucketNanos;
        long recoverBucket = plan.recoverAt().toNanos() / bucketNanos;
        long lookBack = Math.max(1, TimeUnit.SECONDS.toNanos(1) / bucketNanos);
        double[] goldBefore = new double[n];
        int failed = -1;
        Thread faults = null;
        for (int b = 0; b < buckets; b++) {
            if (b == failBucket - lookBack) {
                goldBefore = gold(cluster);
            }
            if (b == failBucket) {
                double[] gold = gold(cluster);
                failed = 0;
                for (int i = 0; i < n; i++) {
                    if (gold[i] - goldBefore[i] > gold[failed] - goldBefore[failed]) {
                        failed = i;
                    }
                }
                int victim = failed;
                faults = new Thread(() -> faults(cluster, victim, origin + recoverBucket * bucketNanos, log),
                        "qos-timeline-faults");
                faults.setDaemon(true);
                faults.start();
            }
            long at = origin + (b + 1) * bucketNanos;
            for (long now = System.nanoTime(); at - now > 0; now = System.nanoTime()) {
                LockSupport.parkNanos(at - now);
            }
            for (Scheme scheme : Scheme.values()) {
                double[] used = usage.get(scheme.ordinal()).sample(stats(cluster, scheme));
                for (int k = 0; k < used.length; k++) {
                    allocation[scheme.ordinal()][k][b] = used[k] / (seconds(plan.bucket()) * n
                            * QosScalability.WORKERS);
                }
            }
        }
        if (faults != null) {
            faults.join(TimeUnit.MINUTES.toMillis(1));
        }
        return failed;
    }

    private static void faults(QosCluster cluster, int victim, long recoverAt, Consumer<String> log) {
        long t0 = System.nanoTime();
        cluster.fail(victim);
        log.accept(String.format(Locale.ROOT, "Figure 4.12: server %d failed (close took %d ms)", victim,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)));
        for (long now = System.nanoTime(); recoverAt - now > 0; now = System.nanoTime()) {
            LockSupport.parkNanos(recoverAt - now);
        }
        long t1 = System.nanoTime();
        cluster.recover(victim);
        log.accept(String.format(Locale.ROOT, "Figure 4.12: server %d recovered (start took %d ms)", victim,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1)));
    }

    /** Every server's gold worker time so far under server partitioning. */
    private static double[] gold(QosCluster cluster) {
        double[] gold = new double[cluster.servers()];
        for (int i = 0; i < gold.length; i++) {
            gold[i] = cluster.stats(i, Scheme.PARTITIONING.ordinal()).stream()
                    .filter(c -> c.serviceClass().equals("gold")).mapToDouble(ClassStats::usedSeconds).sum();
        }
        return gold;
    }

    private static List<List<ClassStats>> stats(QosCluster cluster, Scheme scheme) {
        List<List<ClassStats>> stats = new ArrayList<>();
        for (int i = 0; i < cluster.servers(); i++) {
            stats.add(cluster.stats(i, scheme.ordinal()));
        }
        return stats;
    }

    static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }
}
