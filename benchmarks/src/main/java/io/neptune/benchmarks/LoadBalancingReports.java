package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.neptune.benchmarks.LoadBalancingExperiment.Plan;
import io.neptune.benchmarks.LoadBalancingExperiment.Point;
import io.neptune.client.BalancingPolicy;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Writes the three reports of {@link LoadBalancingExperiment}: {@code load-balancing} (poll sizes,
 * random and ideal), {@code broadcast-interval} and {@code discard-slow-polls}.
 *
 * <p>Thread-safety: not thread-safe; use from one thread.
 */
final class LoadBalancingReports {
    /** Table 3.2 of the dissertation: mean response time without and with discarding slow polls, ms. */
    private static final Map<Workload, double[]> TABLE_3_2 = Map.of(
            Workload.MEDIUM_GRAIN, new double[] {282.1, 283.1},
            Workload.POISSON_EXP, new double[] {81.8, 79.2},
            Workload.FINE_GRAIN, new double[] {51.6, 47.3});

    private final Plan plan;
    private final List<Point> pollPoints;
    private final List<Point> broadcastPoints;
    private final Map<Workload, PollProbe.Result> pollProfiles;
    private final String machineLoad;

    LoadBalancingReports(Plan plan, List<Point> pollPoints, List<Point> broadcastPoints,
            Map<Workload, PollProbe.Result> pollProfiles, String machineLoad) {
        this.plan = plan;
        this.pollPoints = List.copyOf(pollPoints);
        this.broadcastPoints = List.copyOf(broadcastPoints);
        this.pollProfiles = Map.copyOf(pollProfiles);
        this.machineLoad = machineLoad;
    }

    /** Writes every report under {@code root/docs/benchmarks}. */
    void write(Path root, String command) {
        pollSizes().write(root, command);
        broadcast().write(root, command);
        discard().write(root, command);
    }

    private String emulation() {
        return String.format(Locale.ROOT, "Emulated: %d servers, each a NeptuneNode in one JVM on the loopback stack "
                + "with %d worker per service; a request holds the worker for its service time by sleeping "
                + "(LockSupport.parkNanos), so queueing is real whatever the core count. %d client nodes (hosting "
                + "nothing) share the calls; arrivals are open loop from a timer thread, latency counts from the "
                + "scheduled send time. Service times and arrival intervals are gamma distributed with Table 3.1's "
                + "mean and standard deviation (arrival intervals scaled to rate = load x 16 / mean service time); "
                + "Poisson/Exp is exponential for both. Each round runs its policies at once, each on a slot service "
                + "of its own (an independent 16-server system) fed the same request sequence; %s warm-up, then %s "
                + "recorded. Ideal = a central tracker of outstanding calls shared by all clients (zero delay). "
                + "model_window and model_steady: the mean response time / ideal of QueueingModel, a discrete-event "
                + "simulation of the same model with no overhead at all (16 FIFO single-worker servers, exact and "
                + "free load information), on the very same requests and window as the measurement, and over 600 "
                + "simulated seconds after a 60 s warm-up (its steady state). Machine: %s.", BalancingCluster.SERVERS, BalancingCluster.WORKERS, BalancingCluster.CLIENT_NODES,
                seconds(plan.warmup().toMillis()), seconds(plan.measure().toMillis()), machineLoad);
    }

    private static String seconds(long millis) {
        return millis / 1000 + " s";
    }

    private Report pollSizes() {
        Report report = new Report("load-balancing", "Mean response time by policy, normalized to ideal (16 servers)",
                "workload", "load_pct", "policy", "requests", "failures", "mean_ms", "vs_ideal", "model_window",
                "model_steady", "ideal_ms", "p50_ms", "p99_ms", "held_ms", "lag_ms", "jvm_cores", "polls_per_call");
        report.axes("poll size (1 = random, 16 = ideal)", "mean response time / ideal", true).legendOutside();
        Map<String, SortedMap<Integer, Double>> lines = new LinkedHashMap<>();
        for (Point p : pollPoints) {
            OpenLoopRun.Result r = p.result();
            report.row(p.workload().label(), pct(p.load()), p.setup().label(), r.requests(), r.failures(), r.mean(),
                    p.normalized(), p.modelWindow(), p.modelSteady(), p.ideal(), r.p50(), r.p99(), r.held(),
                    r.meanLag(), p.cores(), p.pollsPerCall());
            boolean pollSizeLine = p.setup().policy() == BalancingPolicy.RANDOM_POLLING
                    || p.setup().policy() == BalancingPolicy.RANDOM || p.setup().policy() == BalancingPolicy.IDEAL;
            if (p.setup().discardSlowPolls() && pollSizeLine) {
                lines.computeIfAbsent(p.workload().label() + " " + pct(p.load()) + "%", k -> new TreeMap<>())
                        .putIfAbsent(pollSize(p), p.normalized()); // ideal: 1 in every round
            }
        }
        lines.forEach((line, points) -> points.forEach((x, y) -> report.point(line, x, y)));
        report.note(emulation());
        report.note("load-aware: random polling that polls only sampled candidates whose last load report (carried "
                + "by every response, or a poll reply) is stale, adding the client's own calls in flight; it samples "
                + "3, or more when the service's response time is long beside a poll round (here every server); "
                + "p2c: two random candidates, the one with fewer of this client's calls in flight, no polls "
                + "(Finagle/Envoy); they share a round only while the message budget allows. The model treats them as "
                + "poll-3 and poll-2 with exact information. Neither is in the plot, whose x axis is the poll size. "
                + "polls_per_call: load polls the policy's clients sent over the round's calls, warm-up included.");
        report.note("Random polling discards polls slower than 10 ms (Neptune's default) in every poll-k row; "
                + "poll-3-keep-slow waits for all three polls, up to 1 s (the dissertation's Figure 3.5 setting). "
                + "held_ms is the mean time a worker was really held (the sleep is shortened by each worker's recent "
                + "mean oversleep so that it averages the nominal service time); lag_ms is how late the generator "
                + "sent calls on average. "
                + "Rows of one workload and load may come from several rounds (at most 6,500 calls + polls per "
                + "second per round, so that this JVM stays under about one core); each round has its own ideal "
                + "(ideal_ms), and vs_ideal uses the ideal of the row's own round.");
        if (plan.equals(Plan.QUICK)) {
            report.note("--quick: short rounds, and the poll sizes at 90% load only. The random policy's queues "
                    + "(M/G/1 at 90%) take longer than a round to reach steady state, so its figures at 90% are "
                    + "below the steady state: compare vs_ideal with "
                    + "model_window (same requests, same window) for what Neptune adds or loses, and model_steady "
                    + "with the dissertation.");
        }
        return report;
    }

    private Report broadcast() {
        Report report = new Report("broadcast-interval",
                "Broadcast policy by mean announce interval, normalized to ideal (16 servers)", "workload", "load_pct",
                "interval_ms", "requests", "failures", "broadcast_mean_ms", "ideal_mean_ms", "vs_ideal", "model_window",
                "model_steady", "broadcast_p99_ms", "jvm_cores");
        report.axes("mean announce interval (ms)", "mean response time / ideal", true).legendOutside();
        for (Point p : broadcastPoints) {
            if (!p.setup().equals(PolicySetup.BROADCAST)) {
                continue;
            }
            OpenLoopRun.Result r = p.result();
            report.row(p.workload().label(), pct(p.load()),
                    BigDecimal.valueOf(p.intervalMillis()).stripTrailingZeros().toPlainString(), r.requests(),
                    r.failures(), r.mean(),
                    p.ideal(), p.normalized(), p.modelWindow(), p.modelSteady(), r.p99(), p.cores());
            report.point(p.workload().label() + " " + pct(p.load()) + "%", p.intervalMillis(), p.normalized());
        }
        report.note(emulation());
        report.note("Servers announce their load (active + queued calls per service) through JGroups every interval "
                + "x U(0.5, 1.5); clients send each call to the least loaded replica of their latest announcements. "
                + "One cluster per interval; the ideal runs in the same round.");
        return report;
    }

    private Report discard() {
        Report report = new Report("discard-slow-polls",
                "Random polling (poll size 3, 90% load) with and without discarding slow polls", "workload",
                "load_pct", "requests", "keep_slow_mean_ms", "discard_mean_ms", "improvement_pct", "ideal_mean_ms",
                "polls_over_10ms_pct", "polls_over_20ms_pct", "poll_p50_ms", "poll_p99_ms",
                "dissertation_keep_ms", "dissertation_discard_ms", "dissertation_improvement_pct");
        for (Point keep : pollPoints) {
            if (keep.setup().discardSlowPolls()) {
                continue;
            }
            Optional<Point> discard = pollPoints.stream().filter(p -> p.workload() == keep.workload()
                    && p.load() == keep.load() && p.setup().equals(PolicySetup.polling(3, true))).findFirst();
            if (discard.isEmpty()) {
                continue;
            }
            double k = keep.result().mean();
            double d = discard.get().result().mean();
            double[] dissertation = requireNonNull(TABLE_3_2.get(keep.workload()), "TABLE_3_2: every workload");
            PollProbe.Result polls = pollProfiles.getOrDefault(keep.workload(),
                    new PollProbe.Result(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0));
            report.row(keep.workload().label(), pct(keep.load()), keep.result().requests(), k, d, 100 * (k - d) / k,
                    keep.ideal(), polls.over10ms(), polls.over20ms(), polls.p50(), polls.p99(), dissertation[0],
                    dissertation[1],
                    100 * (dissertation[0] - dissertation[1]) / dissertation[0]);
        }
        report.note(emulation());
        report.note("Discarding: polls not answered within the 10 ms poll deadline are ignored and the call goes to "
                + "the least loaded of those that answered (a random candidate if none did). Keeping: the round waits "
                + "for every poll, up to 1 s (a lost poll datagram would otherwise hold the call until its deadline). "
                + "Both ran in the same round as the ideal policy. polls_*: a probe timed one poll at a time (at "
                + "most 50 per second) to random servers of the keep-slow slot during the recorded window; the "
                + "dissertation profiled 8.1% of polls over 10 ms and 5.6% over 20 ms (poll size 3, 90% load).");
        return report;
    }

    private static int pollSize(Point p) {
        return switch (p.setup().policy()) {
            case RANDOM -> 1;
            case IDEAL -> BalancingCluster.SERVERS;
            default -> p.setup().pollSize();
        };
    }

    private static long pct(double load) {
        return Math.round(load * 100);
    }
}
