package io.neptune.benchmarks;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.server.HostingConfig;
import io.neptune.server.MiniCluster;
import io.neptune.server.NeptuneNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Figure 3.1 of the dissertation: the load index inaccuracy, the mean |Q(t) − Q(t + Δt)| of one
 * server's queue length for a delay Δt, at 50% and 90% load on the three workloads of chapter 3
 * ({@link Workload}), with Δt from 0.1 to 100 mean service times ({@link LoadIndexInaccuracy#DELAYS}).
 *
 * <p>Measured on a real node: in this JVM on the loopback stack, a node {@code server} hosts one
 * {@link WorkService} slot per case (each its own service with one worker and a FIFO queue: an
 * independent single server, as in {@link LoadBalancingExperiment}) and a node {@code client},
 * hosting nothing, calls it. One open-loop generator per case ({@link OpenLoopRun}) sends the
 * workload's arrivals at the case's load of one worker; after a warm-up, a {@link LoadIndexSampler}
 * per case polls the server's load index of the case's service over UDP, as a client's poll does,
 * every 1/{@value #STEPS_PER_SERVICE} of the mean service time. Every case runs at once, so a run
 * takes one window. Beside each measurement: the same statistic of the exact single-server queue
 * ({@link QueueingModel#queueLengths}) fed the very same requests over the same window (the run's
 * seed), over a long window (its steady state), and for Poisson/Exp the closed-form bound 2ρ/(1 − ρ²).
 *
 * <p>Usage: {@code ./neptune bench inaccuracy [--quick]} from the repository root; writes
 * {@code docs/benchmarks/load-index-inaccuracy.*}. {@code --quick} measures a 55 s window
 * instead of 540 s, too short for the delays of 20 mean service times and more to settle at
 * 90% load (the model of the same window says by how much).
 */
public final class LoadIndexExperiment {
    /** The report's file stem. */
    static final String REPORT = "load-index-inaccuracy";
    /** The loads of Figure 3.1. */
    static final List<Double> LOADS = List.of(0.5, 0.9);
    /** Samples of the load index per mean service time; a delay of 0.1 service times is two steps. */
    static final int STEPS_PER_SERVICE = 20;
    /** The first case's seed; case {@code i} uses {@code SEED + i}. */
    static final long SEED = 31_000;
    /** Simulated mean service times of the model's steady state, after a tenth as many of warm-up. */
    static final int STEADY_SERVICES = 500_000;
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration CALL_TIMEOUT = Duration.ofMinutes(5);
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.MINUTES.toNanos(3);

    /**
     * How long a run generates load.
     *
     * @param quick whether this is the quick mode
     * @param warmup unsampled time from the first call, for the JIT and the queues to fill
     * @param window sampled time after it
     */
    record Plan(boolean quick, Duration warmup, Duration window) {
        static final Plan QUICK = new Plan(true, Duration.ofSeconds(5), Duration.ofSeconds(55));
        static final Plan FULL = new Plan(false, Duration.ofSeconds(30), Duration.ofSeconds(540));

        /** The plan {@code args} ask for: {@code --quick} or nothing. */
        static Plan parse(String... args) {
            return ExperimentRun.quick(args) ? QUICK : FULL;
        }
    }

    /**
     * One workload at one load, on its own slot of the server.
     *
     * @param workload the workload
     * @param load the offered fraction of one worker's capacity
     * @param slot the {@link WorkService} slot, and the offset of the case's seed
     */
    record Case(Workload workload, double load, int slot) {
        /** Every workload at every load of {@link #LOADS}, slots 0 up. */
        static List<Case> all() {
            List<Case> cases = new ArrayList<>();
            for (double load : LOADS) {
                for (Workload workload : Workload.values()) {
                    cases.add(new Case(workload, load, cases.size()));
                }
            }
            return cases;
        }

        long seed() {
            return SEED + slot;
        }

        /** The sampling step in milliseconds. */
        double stepMillis() {
            return workload.meanServiceMillis() / STEPS_PER_SERVICE;
        }

        /** The grid steps of a delay of {@code serviceTimes} mean service times. */
        static int lag(double serviceTimes) {
            return (int) Math.round(serviceTimes * STEPS_PER_SERVICE);
        }

        String label() {
            return String.format(Locale.ROOT, "%s %.0f%%", workload.label(), load * 100);
        }
    }

    /**
     * The statistics of one queue-length series: the inaccuracy at every delay of
     * {@link LoadIndexInaccuracy#DELAYS}, the mean queue length, the busy fraction and the mean
     * difference of independent draws (the limit as the delay grows).
     */
    record Series(List<Double> inaccuracy, double meanQueue, double busy, double independentDraws, int samples) {
        static Series of(int[] queueLengths) {
            List<Double> inaccuracy = LoadIndexInaccuracy.DELAYS.stream()
                    .map(d -> LoadIndexInaccuracy.inaccuracy(queueLengths, Case.lag(d))).toList();
            return new Series(inaccuracy, LoadIndexInaccuracy.mean(queueLengths),
                    LoadIndexInaccuracy.busyFraction(queueLengths), LoadIndexInaccuracy.independentDraws(queueLengths),
                    queueLengths.length);
        }
    }

    /**
     * One case's outcome.
     *
     * @param c the case
     * @param node the statistics of the node's load index as the sampler read it
     * @param window the model's, fed the same requests over the same window
     * @param steady the model's over {@value #STEADY_SERVICES} mean service times
     * @param samples what the sampler read and missed
     * @param calls the generator's calls
     */
    record Measurement(Case c, Series node, Series window, Series steady, LoadIndexSampler.Samples samples,
            OpenLoopRun.Result calls) {}

    private LoadIndexExperiment() {}

    /** Runs the experiment; {@code --quick} for the short window. */
    public static void main(String[] args) throws Exception {
        Plan plan = Plan.parse(args);
        List<Case> cases = Case.all();
        ExperimentRun run = ExperimentRun.begin(String.format(Locale.ROOT, "load index inaccuracy (%s): %d cases on"
                + " one node, %d s warm-up + %d s sampled", plan.quick() ? "quick" : "full", cases.size(),
                plan.warmup().toSeconds(), plan.window().toSeconds()));
        String head = ExperimentRun.gitHead(run.root());
        List<Measurement> measurements = measure(plan, cases);
        String context = run.finish() + " Git HEAD: " + head + ".";
        LoadIndexReport.report(plan, measurements, context).write(run.root(),
                ExperimentRun.command("inaccuracy", args));
        System.out.println("wrote docs/benchmarks/" + REPORT + ".*");
    }

    private static List<Measurement> measure(Plan plan, List<Case> cases) throws InterruptedException {
        CallOptions options = CallOptions.builder().policy(BalancingPolicy.RANDOM).timeout(CALL_TIMEOUT).build();
        List<OpenLoopRun> runs = new ArrayList<>();
        List<LoadIndexSampler> samplers = new ArrayList<>();
        try (MiniCluster cluster = MiniCluster.builder().name("inaccuracy").ioThreads(2).build()) {
            NeptuneNode client = cluster.add(cluster.config("client"), b -> b);
            NeptuneNode server = cluster.add(cluster.config("server"), b -> {
                for (Case c : cases) {
                    b.host(WorkService.forSlot(c.slot()), HostingConfig.builder().workers(1).build());
                }
                return b;
            });
            MiniCluster.await("the client's yellow page to list every case's service", STARTUP_TIMEOUT,
                    () -> cases.stream().allMatch(c -> client.replicasOf(WorkService.name(c.slot()), 0).size() == 1));
            long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            long sampleFrom = start + plan.warmup().toNanos();
            long end = sampleFrom + plan.window().toNanos();
            List<NeptuneClient> clients = List.of(client.client());
            for (Case c : cases) {
                String service = WorkService.name(c.slot());
                OpenLoopRun open = new OpenLoopRun(clients, service, c.workload(),
                        c.workload().rate(c.load(), 1, 1), options, c.seed());
                long step = Math.round(c.stepMillis() * 1e6);
                LoadIndexSampler sampler = new LoadIndexSampler(server.pollAddress(), service, sampleFrom, step,
                        (int) (plan.window().toNanos() / step));
                open.start(c.label(), start, sampleFrom, end);
                sampler.start();
                runs.add(open);
                samplers.add(sampler);
            }
            System.out.printf(Locale.ROOT, "%d generators and samplers started; sampling for %d s after %d s%n",
                    cases.size(), plan.window().toSeconds(), plan.warmup().toSeconds());
            List<Measurement> measurements = new ArrayList<>();
            for (int i = 0; i < cases.size(); i++) {
                LoadIndexSampler.Samples samples = samplers.get(i).await(end - System.nanoTime()
                        + TimeUnit.MINUTES.toNanos(1));
                OpenLoopRun.Result calls = runs.get(i).awaitResult(DRAIN_TIMEOUT_NANOS);
                measurements.add(model(plan, cases.get(i), samples, calls));
            }
            return measurements;
        }
    }

    /** The case's measurement beside the model's, on the same grid and the same requests. */
    private static Measurement model(Plan plan, Case c, LoadIndexSampler.Samples samples, OpenLoopRun.Result calls) {
        QueueingModel model = new QueueingModel(1);
        double step = c.stepMillis();
        Series window = Series.of(model.queueLengths(c.workload(), c.load(), c.seed(),
                new QueueingModel.Grid(plan.warmup().toMillis(), step, samples.grid().length)));
        double steadyWarmup = c.workload().meanServiceMillis() * STEADY_SERVICES / 10.0;
        Series steady = Series.of(model.queueLengths(c.workload(), c.load(), c.seed(),
                new QueueingModel.Grid(steadyWarmup, step, STEADY_SERVICES * STEPS_PER_SERVICE)));
        Measurement m = new Measurement(c, Series.of(samples.grid()), window, steady, samples, calls);
        int ten = LoadIndexInaccuracy.DELAYS.indexOf(10.0);
        int last = LoadIndexInaccuracy.DELAYS.size() - 1;
        System.out.printf(Locale.ROOT, "%-18s polls %d (skipped %d, lost %d), calls %d (failed %d);"
                + " inaccuracy at 10x: node %.2f, model %.2f same window, %.2f steady; at 100x: %.2f, %.2f, %.2f%n",
                c.label(), samples.readings(), samples.skipped(), samples.lost(), calls.requests(), calls.failures(),
                m.node().inaccuracy().get(ten), window.inaccuracy().get(ten), steady.inaccuracy().get(ten),
                m.node().inaccuracy().get(last), window.inaccuracy().get(last), steady.inaccuracy().get(last));
        return m;
    }
}
