package io.neptune.benchmarks;

import io.neptune.core.ConsistencyLevel;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.server.NodeConfig;
import io.neptune.server.NodeConfigFile;
import io.neptune.server.cli.LocalCluster;
import io.neptune.server.HostingConfig;
import io.neptune.server.NeptuneNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Experiment 5 of issue 5, the dissertation's Figure 5.4: the discussion group's throughput and
 * its errors and timeouts per second while three of eight service nodes fail together and then
 * recover one by one. Level-2 consistency, four replicas of each of the 64 partitions, 10% writes.
 *
 * <p>The service nodes are real processes ({@link LocalCluster}), each hosting {@link
 * EmulatedDiscussion.Level2} as one emulated two-worker machine; a failure is a SIGKILL of the
 * process and a recovery restarts it on its data directory, so it goes through Neptune's recovery
 * (REDO log replay, catch-up from the primary, and the handover back to the higher-priority
 * replica). An in-process driver node offers open-loop Poisson load ({@link OpenLoopProbe}) at a
 * fixed rate below the cluster's capacity and records every call per second ({@link
 * PerSecondTimeline}). At the end it checks that no acknowledged post was lost: every partition's
 * four replicas report the same version and digest, and every acknowledged post is read back.
 *
 * <p>Usage: {@code ./neptune bench timeline [--quick] [--rate R]}; the report goes to
 * {@code docs/benchmarks/failure-timeline.*} under the working directory.
 */
public final class FailureTimelineExperiment {
    static final int NODES = 8;
    static final int DEGREE = 4;
    static final ConsistencyLevel LEVEL = ConsistencyLevel.LEVEL_2;
    static final double WRITES = 0.1;
    /** The nodes that fail together, in the order they come back. */
    static final List<String> FAILING = List.of("node-1", "node-2", "node-3");
    /**
     * JVM options of a node process: eight of them share two cores, so small heaps, the serial
     * collector and the C1 compiler only (much less compile work at start and after each restart).
     */
    static final List<String> NODE_JVM_OPTIONS = List.of("-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Dorg.slf4j.simpleLogger.log.io.neptune=info", "-Dorg.slf4j.simpleLogger.showDateTime=true",
            "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
    /** Offered load as a share of the emulated capacity of the eight nodes. */
    static final double DEFAULT_LOAD = 0.6;
    /**
     * How much slower than the replication experiments' machine ({@link ReplicationExperiment#TIMES})
     * a node is emulated: eight node processes and the driver cost about 3 ms of real CPU per request
     * on this two-core host, so the dissertation's 1,000 req/s capacity would leave no CPU to spare.
     */
    static final int SLOWDOWN = 2;
    /** Emulated service times of a node process: the replication experiments' times times {@link #SLOWDOWN}. */
    static final EmulatedDiscussion.ServiceTimes TIMES = new EmulatedDiscussion.ServiceTimes(
            ReplicationExperiment.TIMES.read().multipliedBy(SLOWDOWN),
            ReplicationExperiment.TIMES.write().multipliedBy(SLOWDOWN));

    private FailureTimelineExperiment() {}

    /**
     * The timeline, in seconds from the start of the measured load.
     *
     * @param quick whether this is the quick mode
     * @param warmUp unmeasured load at half the rate before the timeline (JIT, connections, H2 caches)
     * @param length the measured timeline
     * @param failAt when the three nodes are killed
     * @param recoverAt when each of them is restarted, in {@link #FAILING} order
     * @param rate offered requests per second
     */
    record Plan(boolean quick, Duration warmUp, Duration length, Duration failAt, List<Duration> recoverAt,
            double rate) {}

    /**
     * Something that happened to the cluster.
     *
     * @param second seconds since the timeline's origin
     * @param what what happened, e.g. {@code "SIGKILL node-1+node-2+node-3"}
     * @param marker whether it is drawn as a vertical line on the plot
     */
    record Event(double second, String what, boolean marker) {}

    public static void main(String[] args) throws Exception {
        Plan plan = options(List.of(args));
        Path root = Report.repositoryRoot();
        String loadBefore = Report.loadAverage();
        long began = System.nanoTime();
        System.out.printf(Locale.ROOT, "failure timeline (%s): %d nodes, %d replicas, L2, %.0f req/s for %d s;"
                + " load average %s%n", plan.quick() ? "quick" : "full", NODES, DEGREE, plan.rate(),
                plan.length().toSeconds(), loadBefore);
        Path work = Files.createTempDirectory("neptune-timeline-");
        Outcome outcome = new TimelineRun(plan, work).call(); // on failure, work/logs is kept for a look
        if (outcome.check().passed()) {
            delete(work);
        } else {
            System.out.println("replica check failed; node logs kept in " + work.resolve("logs"));
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        String loadAfter = Report.loadAverage();
        System.out.printf(Locale.ROOT, "done in %.0f s; load average %s at start, %s at end%n", seconds, loadBefore,
                loadAfter);
        String command = "./neptune bench timeline" + (args.length == 0 ? "" : " " + String.join(" ", args));
        String context = String.format(Locale.ROOT, "Run time %.0f s (start-up, warm-up, timeline, drain and checks);"
                + " load average (1, 5, 15 min) %s at start and %s at the end (other work shares this host).",
                seconds, loadBefore, loadAfter);
        FailureTimelineReport.of(plan, outcome, context).write(root, command);
        System.out.println("wrote docs/benchmarks/failure-timeline.{csv,md,png}");
        if (outcome.check().missing() > 0) {
            throw new IllegalStateException("acknowledged posts were lost: " + outcome.check());
        }
        if (!outcome.check().passed()) {
            System.out.println("WARNING: no acknowledged post was lost, but replicas disagree: " + outcome.check());
        }
    }

    /**
     * Parses {@code [--quick] [--rate R]}. Quick: fail at 10 s, restarts at 25, 35 and 45 s, end at
     * 60 s. Full: the dissertation's 200 s with the failure at 50 s and restarts at 80, 110 and 140 s.
     */
    static Plan options(List<String> args) {
        boolean quick = args.contains("--quick");
        double rate = DEFAULT_LOAD * modelCapacity();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--quick")) {
                continue;
            }
            if (arg.equals("--rate") && i + 1 < args.size()) {
                rate = Double.parseDouble(args.get(++i));
            } else {
                throw new IllegalArgumentException("option: " + arg + " (expected: --quick or --rate R)");
            }
        }
        return quick
                ? new Plan(true, Duration.ofSeconds(5), Duration.ofSeconds(60), Duration.ofSeconds(10),
                        List.of(Duration.ofSeconds(25), Duration.ofSeconds(35), Duration.ofSeconds(45)), rate)
                : new Plan(false, Duration.ofSeconds(10), Duration.ofSeconds(200), Duration.ofSeconds(50),
                        List.of(Duration.ofSeconds(80), Duration.ofSeconds(110), Duration.ofSeconds(140)), rate);
    }

    /** The emulated capacity of the eight nodes with four replicas at 10% writes, balanced. */
    static double modelCapacity() {
        return ReplicationExperiment.modelCapacity(NODES, DEGREE, WRITES,
                ZipfPartitions.withImbalance(EmulatedDiscussion.PARTITIONS, ReplicationExperiment.BALANCED)) / SLOWDOWN;
    }

    /**
     * What one run produced.
     *
     * @param timeline the per-second outcomes
     * @param events what happened to the cluster, in order
     * @param startUpSeconds how long the eight processes took to start and serve every partition
     * @param check the replica check after the run
     */
    record Outcome(List<PerSecondTimeline.Second> timeline, List<Event> events, double startUpSeconds,
            ReplicaCheck.Result check) {}

    /** The YAML config of service node {@code index} (0-based), named {@code node-(index+1)}. */
    static NodeConfigFile config(String cluster, Path work, int index) {
        HostingConfig hosting = DiscussionCluster.hosting(index, NODES, DEGREE, ReplicationExperiment.WORKERS,
                EmulatedDiscussion.PARTITIONS);
        NodeConfig node = NodeConfig.builder().node(NodeId.of(nodeName(index))).ioThreads(1)
                .dataDirectory(work.resolve("data").resolve(nodeName(index)))
                .membership(MembershipConfig.builder().cluster(cluster).discoveryDirectory(work.resolve("discovery"))
                        .build())
                .build();
        return new NodeConfigFile(node, List.of(new NodeConfigFile.HostedService(
                EmulatedDiscussion.Level2.class.getName(), hosting)), List.of());
    }

    static String nodeName(int index) {
        return "node-" + (index + 1);
    }

    static int indexOf(String node) {
        return Integer.parseInt(node.substring("node-".length())) - 1;
    }

    /** Starts every node process at once (each start waits for its own READY) and waits for all. */
    static void startAll(LocalCluster processes, String cluster, Path work) throws Exception {
        ExecutorService starters = Executors.newFixedThreadPool(NODES);
        try {
            List<Future<?>> started = new ArrayList<>();
            for (int i = 0; i < NODES; i++) {
                int index = i;
                started.add(starters.submit(() -> processes.start(config(cluster, work, index))));
            }
            for (Future<?> f : started) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            starters.shutdownNow();
        }
    }

    /** Waits until {@code driver} sees every partition with {@link #DEGREE} serving replicas and a primary. */
    static void awaitReady(NeptuneNode driver, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String missing;
        while ((missing = DiscussionCluster.firstUnready(driver, EmulatedDiscussion.nameOf(LEVEL),
                EmulatedDiscussion.PARTITIONS, LEVEL, DEGREE)) != null) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("not ready after " + timeout + ": " + missing);
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
    }

    private static void delete(Path work) {
        try (var files = Files.walk(work)) {
            files.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            System.err.println("cannot delete " + work + ": " + e);
        }
    }
}
