package io.neptune.benchmarks;

import io.neptune.benchmarks.IdleService.Count;
import io.neptune.benchmarks.IdleService.Touch;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.FailoverMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.server.ClusterAdmin.ReplicaStatus;
import io.neptune.server.HostingConfig;
import io.neptune.server.MiniCluster;
import io.neptune.server.NeptuneNode;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * What a node costs while it only hosts partitions (issue 26: "a node hosting 500 partitions × 3
 * replicas starts in under 10 s, idles under 5% of a core, and keeps heap per hosted partition
 * under 100 KiB beyond its data"), for a list of partition counts N.
 *
 * <p>Each count gets a fresh cluster in this JVM on the loopback JGroups stack with the production
 * membership timing: three nodes that each host partitions {@code 0..N-1} of {@link IdleService}
 * (level 2, 3 replicas per partition, the chosen fail-over mode; partition {@code p}'s replica on
 * node {@code p % 3} has the highest priority, so primaries are spread evenly), and an observer
 * node that hosts nothing, whose yellow page and client the experiment uses. Per count it measures:
 *
 * <ul>
 *   <li><b>start</b>: wall time from the first hosting node's start call (the observer is already
 *       up) until the observer's yellow page shows every partition with a primary and 3 serving
 *       (not recovering) replicas. The three nodes start one after the other, so this is the sum
 *       of their start calls plus the elections that follow; and the time until every partition is
 *       led by its preferred replica (the first primaries hand over by priority);
 *   <li><b>idle CPU</b>: after one write to every partition (so every log holds a record) and a
 *       pause for the cluster to settle, this process's CPU time per second of wall time over the
 *       idle window, divided by 3 for a per-node figure. That includes the observer and the JVM's
 *       own work, the JIT above all: in a fresh JVM it keeps compiling the idle paths for minutes.
 *       So the CPU time of each node's own threads (by name, {@link NodeThreads}) is reported too,
 *       and the <b>baseline</b>: the process's CPU before any node of the case started;
 *   <li><b>epoch changes</b>: partitions whose highest replica epoch changed over the idle window,
 *       i.e. that held an election (a step-down, a lost heartbeat) while nothing happened; a healthy
 *       idle cluster has none;
 *   <li><b>threads</b>: live threads after the idle window minus those before the case's nodes
 *       started, in total and by the node they are named after; the rest are "other";
 *   <li><b>heap</b>: heap used after two {@link System#gc()} calls after the idle window, minus the
 *       same before the case's nodes started, in total and per hosted replica ({@code 3 × N}). The
 *       total also holds the observer and each node's fixed cost, so the per-replica figure
 *       overstates the cost of one replica, most at small N; the growth per replica added between
 *       two counts is the sharper estimate, and is reported too.
 * </ul>
 *
 * <p>Thread-safety: a command-line program; one thread runs the cases in turn.
 *
 * <p>Usage: {@code ./neptune bench idle [--quick] [--partitions 5,100,500] [--mode majority,fail-stop]
 * [--idle-seconds S]}; the report goes to {@code docs/benchmarks/idle.*}. A case that fails is
 * reported on stderr and in the report, the others still run, and the exit status is then 1.
 */
public final class IdleExperiment {
    /** The report's file stem under {@code docs/benchmarks/}. */
    static final String REPORT = "idle";
    /** Nodes that host the service. */
    static final int NODES = 3;
    /** Replicas per partition: every hosting node has one. */
    static final int REPLICAS = NODES;
    /** The usage text printed on a bad argument and on {@code --help}. */
    static final String USAGE = """
            usage: ./neptune bench idle [--quick] [--partitions 5,100,500] [--mode majority,fail-stop] [--idle-seconds S]
              Three nodes in this JVM, each hosting partitions 0..N-1 of a level-2 service with 3 replicas, and an
              observer: start time, idle CPU, elections while idle, threads and heap, for each N.
              Writes docs/benchmarks/idle.{md,csv} (run from the repository root).
              --quick         N = 5,100 and a 10 s idle window (default: N = 5,100,500 and 20 s)
              --partitions    the partition counts, 1..512 each
              --mode          the fail-over modes, a case each (default: majority)
              --idle-seconds  the idle window in seconds""";

    private static final List<Integer> FULL_PARTITIONS = List.of(5, 100, 500);
    private static final List<Integer> QUICK_PARTITIONS = List.of(5, 100);
    private static final Duration FULL_IDLE = Duration.ofSeconds(20);
    private static final Duration QUICK_IDLE = Duration.ofSeconds(10);
    /** How long the JVM's own background CPU is measured before a case's nodes start. */
    static final Duration BASELINE_WINDOW = Duration.ofSeconds(5);
    /** The pause between the writes and the idle window: the last commits, acknowledgements and JIT settle. */
    static final Duration SETTLE = Duration.ofSeconds(5);
    /** The longest start accepted: generous, since the aim is 10 s and a slow start should still be measured. */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(5);
    /** How much longer than serving the handovers to the preferred primaries may take before the case goes on. */
    static final Duration PREFERRED_TIMEOUT = Duration.ofSeconds(60);
    /** The longest a write or a status call of one partition may take. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    /** Writes or status calls outstanding at once, so 500 partitions do not flood the observer's client. */
    private static final int CONCURRENT_CALLS = 64;
    /** {@link System#gc()} calls before reading the used heap: the second collects what the first's finalization freed. */
    static final int GC_ROUNDS = 2;
    /** NodeConfig's default event loop threads: a node as deployed. */
    private static final int IO_THREADS = Math.max(2, Runtime.getRuntime().availableProcessors());
    static final String OBSERVER = "idle-observer";
    static final double BYTES_PER_KIB = 1024;
    static final double BYTES_PER_MIB = 1024 * 1024;
    /** CPU milliseconds per second of one fully busy core. */
    private static final double CORE_MILLIS_PER_SECOND = 1000;

    private IdleExperiment() {}

    /**
     * What one run measures.
     *
     * @param quick whether this is the quick mode
     * @param partitions the partition counts, one case each, in order
     * @param modes the fail-over modes, one case per mode and count, in order
     * @param idle the idle window
     */
    record Plan(boolean quick, List<Integer> partitions, List<FailoverMode> modes, Duration idle) {
        Plan {
            partitions = List.copyOf(partitions);
            modes = List.copyOf(modes);
        }

        /**
         * The plan {@code args} choose: {@code [--quick] [--partitions LIST] [--mode M] [--idle-seconds S]};
         * explicit options override the quick mode's defaults.
         *
         * @throws IllegalArgumentException on any other argument or a value out of range
         */
        static Plan parse(List<String> args) {
            boolean quick = args.contains("--quick");
            List<Integer> partitions = quick ? QUICK_PARTITIONS : FULL_PARTITIONS;
            List<FailoverMode> modes = List.of(FailoverMode.MAJORITY);
            Duration idle = quick ? QUICK_IDLE : FULL_IDLE;
            for (int i = 0; i < args.size(); i++) {
                String arg = args.get(i);
                if (arg.equals("--quick")) {
                    continue;
                }
                if (i + 1 >= args.size()) {
                    throw new IllegalArgumentException("argument: '" + arg + "' (expected: --quick, or --partitions,"
                            + " --mode or --idle-seconds followed by a value)");
                }
                String value = args.get(++i);
                switch (arg) {
                    case "--partitions" -> partitions = partitionCounts(value);
                    case "--mode" -> modes = Arrays.stream(value.split(",")).map(String::trim)
                            .map(FailoverMode::fromConfigName).toList();
                    case "--idle-seconds" -> idle = Duration.ofSeconds(positive("--idle-seconds", value));
                    default -> throw new IllegalArgumentException("argument: '" + arg
                            + "' (expected: --quick, --partitions, --mode or --idle-seconds)");
                }
            }
            return new Plan(quick, partitions, modes, idle);
        }

        private static List<Integer> partitionCounts(String list) {
            List<Integer> counts = new ArrayList<>();
            for (String item : list.split(",")) {
                int count = positive("--partitions", item.trim());
                if (count > IdleService.PARTITIONS) {
                    throw new IllegalArgumentException("--partitions: " + count + " (expected: 1.."
                            + IdleService.PARTITIONS + ", the partitions the service declares)");
                }
                counts.add(count);
            }
            return counts;
        }

        private static int positive(String option, String value) {
            int parsed;
            try {
                parsed = Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(option + ": '" + value + "' (expected: a positive integer)", e);
            }
            if (parsed < 1) {
                throw new IllegalArgumentException(option + ": " + parsed + " (expected: a positive integer)");
            }
            return parsed;
        }
    }

    /**
     * What one case measured.
     *
     * @param partitions partitions each node hosts
     * @param mode their fail-over mode
     * @param startSeconds from the first hosting node's start call until every partition served
     * @param nodeStartSeconds the three start calls alone, summed
     * @param preferredSeconds from the same start until every partition was led by its preferred
     *     replica, or NaN if that took over {@link #PREFERRED_TIMEOUT} longer than serving
     * @param baselineCpuMillisPerSecond this process's CPU time per second before the case's nodes started
     * @param idle CPU time per second over the idle window, the process's and the threads' by owner
     * @param epochChanges partitions whose highest replica epoch changed over the idle window
     * @param threadDelta live threads after the idle window minus before the nodes started, by owner
     * @param heapDeltaBytes heap used after GC after the idle window minus before the nodes started
     * @param load the host's one-minute load average when the case began
     */
    record Measurement(int partitions, FailoverMode mode, double startSeconds, double nodeStartSeconds,
            double preferredSeconds, double baselineCpuMillisPerSecond, NodeThreads.Usage idle, int epochChanges,
            Map<String, Integer> threadDelta, long heapDeltaBytes, String load) {
        Measurement {
            threadDelta = Collections.unmodifiableMap(new LinkedHashMap<>(threadDelta));
        }

        /** The idle process CPU divided over the hosting nodes, in % of one core. */
        double cpuPerNodePercent() {
            return percentOfCore(idle.processMillisPerSecond() / NODES);
        }

        /** The idle CPU of the threads named after a hosting node, averaged over the three, in % of one core. */
        double nodeThreadsPercent() {
            return percentOfCore(IntStream.range(0, NODES).mapToDouble(i -> idle.of(nodeName(i))).sum() / NODES);
        }

        /** The idle CPU of neither a hosting node's threads nor the observer's: the JIT, GC and other threads. */
        double restMillisPerSecond() {
            return idle.processMillisPerSecond() - IntStream.range(0, NODES).mapToDouble(i -> idle.of(nodeName(i)))
                    .sum() - idle.of(OBSERVER);
        }

        /** The live threads the case added. */
        int threadDeltaTotal() {
            return threadDelta.values().stream().mapToInt(Integer::intValue).sum();
        }

        /** The heap delta per hosted replica ({@code REPLICAS × partitions}), in KiB. */
        double kibPerHostedReplica() {
            return heapDeltaBytes / BYTES_PER_KIB / hostedReplicas();
        }

        /** Replicas the three nodes host together. */
        long hostedReplicas() {
            return (long) REPLICAS * partitions;
        }
    }

    /**
     * Live threads and used heap at one moment.
     *
     * @param threads live Java threads by owner ({@link NodeThreads#count()})
     * @param heapBytes heap used after {@link #GC_ROUNDS} collections
     */
    private record Footprint(Map<String, Integer> threads, long heapBytes) {
        /** Collects the garbage, then reads the used heap and counts the threads. */
        static Footprint take(NodeThreads attribution) {
            for (int i = 0; i < GC_ROUNDS; i++) {
                System.gc();
            }
            long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
            return new Footprint(attribution.count(), heap);
        }

        /** The threads by owner that {@code later} has more than this. */
        Map<String, Integer> threadsAddedBy(Footprint later) {
            Map<String, Integer> added = new LinkedHashMap<>();
            later.threads().forEach((owner, count) -> added.put(owner, count - threads.getOrDefault(owner, 0)));
            return added;
        }
    }

    /** Runs every case and writes the report; exits 2 on a bad argument and 1 if a case failed. */
    public static void main(String[] args) {
        List<String> arguments = List.of(args);
        if (arguments.contains("--help") || arguments.contains("-h")) {
            System.out.println(USAGE);
            return;
        }
        Plan plan;
        try {
            plan = Plan.parse(arguments);
        } catch (IllegalArgumentException e) {
            System.err.println("idle: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        ExperimentRun run = ExperimentRun.begin(String.format(Locale.ROOT, "idle cost (%s): partitions %s, %s,"
                + " idle windows of %d s", plan.quick() ? "quick" : "full", plan.partitions(), modeNames(plan.modes()),
                plan.idle().toSeconds()));
        String head = ExperimentRun.gitHead(run.root());
        List<Measurement> measurements = new ArrayList<>();
        List<String> failures = new ArrayList<>();
        for (FailoverMode mode : plan.modes()) {
            for (int partitions : plan.partitions()) {
                try {
                    measurements.add(measure(plan, mode, partitions));
                } catch (RuntimeException e) {
                    String failure = String.format(Locale.ROOT, "%d partitions (%s): %s", partitions,
                            mode.configName(), e.getMessage() == null ? e.toString() : e.getMessage());
                    System.err.println("idle: FAILED " + failure);
                    e.printStackTrace();
                    failures.add(failure);
                }
            }
        }
        String context = run.finish();
        if (measurements.isEmpty()) {
            System.err.println("idle: every case failed; no report written");
            System.exit(1);
            return;
        }
        IdleReport.report(plan, measurements, failures, head, context).write(run.root(), ExperimentRun.command(REPORT, args));
        Path markdown = run.root().resolve("docs").resolve("benchmarks").resolve(REPORT + ".md");
        try {
            System.out.println(Files.readString(markdown));
        } catch (IOException e) {
            System.err.println("idle: cannot read back " + markdown + ": " + e);
        }
        System.out.println("wrote docs/benchmarks/" + REPORT + ".{md,csv}");
        if (!failures.isEmpty()) {
            System.exit(1);
        }
    }

    static String modeNames(List<FailoverMode> modes) {
        return modes.stream().map(FailoverMode::configName).collect(Collectors.joining(", "));
    }

    /**
     * One case: a fresh cluster hosting {@code partitions} partitions per node in fail-over {@code mode},
     * closed (and its data deleted) on every path.
     */
    static Measurement measure(Plan plan, FailoverMode mode, int partitions) {
        String load = Report.loadAverage().split(",")[0];
        List<String> nodes = new ArrayList<>();
        IntStream.range(0, NODES).forEach(i -> nodes.add(nodeName(i)));
        nodes.add(OBSERVER);
        NodeThreads attribution = new NodeThreads(nodes);
        progress("%d partitions x %d replicas (%s): baseline over %d s (load %s)", partitions, REPLICAS,
                mode.configName(), BASELINE_WINDOW.toSeconds(), load);
        Footprint before = Footprint.take(attribution);
        double baseline = cpu(attribution, BASELINE_WINDOW).processMillisPerSecond();
        try (MiniCluster cluster = MiniCluster.builder().name("bench-idle").defaultMembershipTiming()
                .ioThreads(IO_THREADS).build()) {
            NeptuneNode observer = cluster.add(cluster.config(OBSERVER), b -> b);
            long started = System.nanoTime();
            double nodeStartSeconds = 0;
            for (int i = 0; i < NODES; i++) {
                HostingConfig hosting = DiscussionCluster.hosting(i, NODES, REPLICAS, HostingConfig.DEFAULT_WORKERS,
                        partitions, mode);
                long call = System.nanoTime();
                cluster.add(cluster.config(nodeName(i)), b -> b.host(new IdleService(), hosting));
                double seconds = secondsSince(call);
                nodeStartSeconds += seconds;
                progress("  %s: start call returned in %.2f s", nodeName(i), seconds);
            }
            awaitServing(observer, partitions);
            double startSeconds = secondsSince(started);
            progress("  started in %.2f s (every partition has a primary and %d serving replicas)", startSeconds,
                    REPLICAS);
            double preferredSeconds = awaitPreferredPrimaries(observer, partitions) ? secondsSince(started)
                    : Double.NaN;
            if (Double.isNaN(preferredSeconds)) {
                progress("  WARNING: not every partition led by its preferred replica %d s later: %s",
                        PREFERRED_TIMEOUT.toSeconds(), String.valueOf(firstNotPreferred(observer, partitions)));
            } else {
                progress("  every partition led by its preferred replica after %.2f s", preferredSeconds);
            }
            writeEveryPartition(observer, partitions);
            pause(SETTLE);
            long[] epochsBefore = epochs(observer, partitions);
            progress("  one write per partition done; idle measurement over %d s", plan.idle().toSeconds());
            NodeThreads.Usage idle = cpu(attribution, plan.idle());
            Footprint after = Footprint.take(attribution);
            int epochChanges = changed(epochsBefore, epochs(observer, partitions));
            Measurement m = new Measurement(partitions, mode, startSeconds, nodeStartSeconds, preferredSeconds,
                    baseline, idle, epochChanges, before.threadsAddedBy(after), after.heapBytes() - before.heapBytes(),
                    load);
            progress("  idle: process %.0f ms/s (baseline %.0f) = %.2f%% of a core per node; threads' ms/s %s, JVM"
                    + " (JIT, GC) %.0f; %d epoch changes; %+d threads (%s); heap %+.1f MiB = %.1f KiB per hosted"
                    + " replica", idle.processMillisPerSecond(), baseline, m.cpuPerNodePercent(),
                    IdleReport.perOwner(idle.threadsMillisPerSecond(), v -> String.format(Locale.ROOT, "%.1f", v)),
                    idle.jvmMillisPerSecond(), epochChanges, m.threadDeltaTotal(), IdleReport.threads(m),
                    m.heapDeltaBytes() / BYTES_PER_MIB, m.kibPerHostedReplica());
            return m;
        }
    }

    /** The name of hosting node {@code index} (0..2). */
    static String nodeName(int index) {
        return "idle-" + index;
    }

    /** The CPU time per second over {@code window}, from now. */
    private static NodeThreads.Usage cpu(NodeThreads attribution, Duration window) {
        NodeThreads.Sample from = attribution.sample();
        pause(window);
        return attribution.between(from, attribution.sample());
    }

    /**
     * Waits at most {@link #PREFERRED_TIMEOUT} until the observer sees every partition led by its
     * preferred replica, as the priorities intend after a start: the first primaries are whichever
     * replicas formed a majority first, and hand over to higher-priority ones as those catch up.
     */
    private static boolean awaitPreferredPrimaries(NeptuneNode observer, int partitions) {
        try {
            MiniCluster.await("preferred primaries", PREFERRED_TIMEOUT,
                    () -> firstNotPreferred(observer, partitions) == null);
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    /** The first partition not led by exactly one primary on its preferred node, or {@code null}. */
    private static @Nullable String firstNotPreferred(NeptuneNode observer, int partitions) {
        for (int p = 0; p < partitions; p++) {
            Map<NodeId, ReplicaRole> roles = observer.replicaRoles(IdleService.NAME, p);
            if (roles.get(NodeId.of(nodeName(p % NODES))) != ReplicaRole.PRIMARY
                    || roles.values().stream().filter(r -> r == ReplicaRole.PRIMARY).count() != 1) {
                return IdleService.NAME + "#" + p + " " + roles;
            }
        }
        return null;
    }

    /** Waits until the observer sees every partition with a primary and {@link #REPLICAS} serving replicas. */
    private static void awaitServing(NeptuneNode observer, int partitions) {
        try {
            MiniCluster.await(partitions + " partitions to serve", START_TIMEOUT, () -> DiscussionCluster.firstUnready(
                    observer, IdleService.NAME, partitions, ConsistencyLevel.LEVEL_2, REPLICAS) == null);
        } catch (IllegalStateException e) {
            throw new IllegalStateException("not every partition had a primary and " + REPLICAS + " serving replicas"
                    + " after " + START_TIMEOUT.toMinutes() + " min; the first not ready: " + DiscussionCluster
                    .firstUnready(observer, IdleService.NAME, partitions, ConsistencyLevel.LEVEL_2, REPLICAS), e);
        }
    }

    /** One write to each partition, so that every replica's log holds a record. */
    private static void writeEveryPartition(NeptuneNode observer, int partitions) {
        NeptuneHandle handle = NeptuneHandle.create();
        inBatches(partitions, "a write", p -> observer.client().callAsync(handle, IdleService.NAME, p,
                IdleService.TOUCH, AccessMode.WRITE, new Touch(), Count.class));
    }

    /** Each partition's highest epoch among the replicas that answered a status call, by partition. */
    private static long[] epochs(NeptuneNode observer, int partitions) {
        List<List<ReplicaStatus>> statuses = inBatches(partitions, "the status",
                p -> observer.admin().replicas(IdleService.NAME, p));
        long[] epochs = new long[partitions];
        for (int p = 0; p < partitions; p++) {
            List<ReplicaStatus> answered = statuses.get(p).stream().filter(s -> s.error().isEmpty()).toList();
            if (answered.isEmpty()) {
                throw new IllegalStateException("no replica of " + IdleService.NAME + "#" + p + " answered a status"
                        + " call: " + statuses.get(p));
            }
            epochs[p] = answered.stream().mapToLong(ReplicaStatus::epoch).max().orElseThrow();
        }
        return epochs;
    }

    private static int changed(long[] before, long[] after) {
        return (int) IntStream.range(0, before.length).filter(p -> before[p] != after[p]).count();
    }

    /**
     * Calls {@code call} for every partition, {@link #CONCURRENT_CALLS} at a time, and returns the
     * answers in partition order; {@code what} names the call in the error if one fails or times out.
     */
    private static <T> List<T> inBatches(int partitions, String what, IntFunction<CompletableFuture<T>> call) {
        List<T> answers = new ArrayList<>(partitions);
        for (int from = 0; from < partitions; from += CONCURRENT_CALLS) {
            List<CompletableFuture<T>> batch = IntStream.range(from, Math.min(partitions, from + CONCURRENT_CALLS))
                    .mapToObj(call).toList();
            for (int i = 0; i < batch.size(); i++) {
                String where = what + " to " + IdleService.NAME + "#" + (from + i);
                try {
                    answers.add(batch.get(i).get(CALL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS));
                } catch (ExecutionException e) {
                    throw new IllegalStateException(where + " failed: " + e.getCause(), e.getCause());
                } catch (TimeoutException e) {
                    throw new IllegalStateException(where + " timed out after " + CALL_TIMEOUT.toSeconds() + " s", e);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted waiting for " + where, e);
                }
            }
        }
        return answers;
    }

    /** CPU milliseconds per second as a percentage of one core. */
    private static double percentOfCore(double millisPerSecond) {
        return 100 * millisPerSecond / CORE_MILLIS_PER_SECOND;
    }

    private static double secondsSince(long nanos) {
        return (System.nanoTime() - nanos) / 1e9;
    }

    private static void pause(Duration duration) {
        try {
            TimeUnit.NANOSECONDS.sleep(duration.toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private static void progress(String format, Object... args) {
        System.err.println("idle: " + String.format(Locale.ROOT, format, args));
    }
}
