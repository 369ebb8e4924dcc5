package io.neptune.benchmarks;

import static io.neptune.benchmarks.FailureTimelineExperiment.DEGREE;
import static io.neptune.benchmarks.FailureTimelineExperiment.FAILING;
import static io.neptune.benchmarks.FailureTimelineExperiment.LEVEL;
import static io.neptune.benchmarks.FailureTimelineExperiment.NODES;

import io.neptune.benchmarks.FailureTimelineExperiment.Event;
import io.neptune.benchmarks.FailureTimelineExperiment.Outcome;
import io.neptune.benchmarks.FailureTimelineExperiment.Plan;
import io.neptune.benchmarks.ReplicaCheck.Ack;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.server.cli.LocalCluster;
import io.neptune.server.NeptuneNode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * One run of the {@link FailureTimelineExperiment}: starts the node processes and the driver, offers
 * the load while a script kills and restarts the nodes on schedule, then checks the replicas.
 *
 * <p>Thread-safety: {@link #call} once, from one thread; the script and the recovery watchers run
 * on their own threads and only append to a concurrent event list.
 */
final class TimelineRun implements Callable<Outcome> {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(120);
    /**
     * How long the replicas may take to agree after the run: a secondary that missed writes notices
     * within twice the ack timeout (4 s) and rejoins, so longer means it is stuck.
     */
    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(20);

    private final Plan plan;
    private final Path work;
    private final String cluster = "timeline-" + ProcessHandle.current().pid();
    private final String service = EmulatedDiscussion.nameOf(LEVEL);
    private final List<Event> events = new CopyOnWriteArrayList<>();

    TimelineRun(Plan plan, Path work) {
        this.plan = plan;
        this.work = work;
    }

    @Override
    public Outcome call() throws Exception {
        ExecutorService script = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "timeline-script");
            t.setDaemon(true);
            return t;
        });
        try (LocalCluster processes = new LocalCluster(work.resolve("config"), work.resolve("logs"),
                FailureTimelineExperiment.NODE_JVM_OPTIONS);
                NeptuneNode driver = NeptuneNode.builder(DiscussionCluster.config(cluster, work, "driver", 2)).start()) {
            long started = System.nanoTime();
            FailureTimelineExperiment.startAll(processes, cluster, work);
            FailureTimelineExperiment.awaitReady(driver, READY_TIMEOUT);
            double startUp = (System.nanoTime() - started) / 1e9;
            System.out.printf(Locale.ROOT, "%d node processes serving every partition after %.1f s%n", NODES, startUp);

            ConcurrentLinkedQueue<Ack> acks = new ConcurrentLinkedQueue<>();
            DiscussionMix mix = new DiscussionMix(service, FailureTimelineExperiment.WRITES, EmulatedDiscussion.PARTITIONS,
                    NODES, (partition, post) -> acks.add(new Ack(partition, post.topic(), post.id())));
            OpenLoopProbe probe = new OpenLoopProbe(driver.client(), mix,
                    ZipfPartitions.withImbalance(EmulatedDiscussion.PARTITIONS, ReplicationExperiment.BALANCED),
                    p -> FailureTimelineExperiment.nodeName(p % NODES), 5);
            PerSecondTimeline warmUp = new PerSecondTimeline(Long.MAX_VALUE, 1); // bins nothing
            probe.runThrough(plan.rate() / 2, plan.warmUp(), warmUp);
            // The probe's first arrival comes about 20 ms after run() starts.
            long origin = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
            PerSecondTimeline timeline = new PerSecondTimeline(origin, (int) plan.length().toSeconds());
            Future<?> failures = script.submit(() -> {
                runScript(processes, driver, timeline, origin, script);
                return null;
            });
            OpenLoopProbe.Result total = probe.runThrough(plan.rate(), plan.length(), timeline);
            System.out.printf(Locale.ROOT, "load done: %d sent, %d on time, failures %s%n", total.scheduled(),
                    total.onTime(), total.failures());
            try {
                failures.get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                FailureTimelineExperiment.awaitReady(driver, READY_TIMEOUT);
            } catch (ExecutionException | TimeoutException | IllegalStateException e) {
                // the check below reports the partitions that are not whole again
                event(timeline, System.nanoTime(), "cluster not whole after the run: " + e, false);
            }
            ReplicaCheck.Result check = ReplicaCheck.run(driver, service, DEGREE,
                    List.copyOf(acks), CHECK_TIMEOUT);
            System.out.println("replica check: " + check);
            List<Event> ordered = new ArrayList<>(events);
            ordered.sort(Comparator.comparingDouble(Event::second));
            return new Outcome(timeline.seconds(), ordered, startUp, check);
        } finally {
            script.shutdownNow();
        }
    }

    /** Kills the failing nodes together at {@code failAt}, then restarts them one by one on schedule. */
    private void runScript(LocalCluster processes, NeptuneNode driver, PerSecondTimeline timeline, long origin,
            ExecutorService watchers) {
        sleepUntil(origin + plan.failAt().toNanos());
        long killed = System.nanoTime();
        FAILING.forEach(processes::kill);
        event(timeline, killed, "SIGKILL " + String.join("+", FAILING), true);
        List<Future<?>> recoveries = new ArrayList<>();
        for (int i = 0; i < FAILING.size(); i++) {
            String node = FAILING.get(i);
            sleepUntil(origin + plan.recoverAt().get(i).toNanos());
            event(timeline, System.nanoTime(), "restart " + node, true);
            processes.start(FailureTimelineExperiment.config(cluster, work, FailureTimelineExperiment.indexOf(node)));
            event(timeline, System.nanoTime(), node + " process READY", false);
            recoveries.add(watchers.submit(() -> watchRecovery(driver, timeline, node)));
        }
        for (Future<?> recovery : recoveries) {
            try {
                recovery.get(READY_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            } catch (Exception e) {
                event(timeline, System.nanoTime(), "watching recovery failed: " + e, false);
            }
        }
    }

    /**
     * Records when the driver first sees every replica of {@code node} serving (recovered), and when
     * {@code node} is again the primary of the partitions it has the highest priority for (handover).
     */
    private void watchRecovery(NeptuneNode driver, PerSecondTimeline timeline, String node) {
        NodeId id = NodeId.of(node);
        int index = FailureTimelineExperiment.indexOf(node);
        boolean serving = false;
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() - deadline < 0) {
            boolean allServing = true;
            boolean primaryAgain = true;
            for (int p = 0; p < EmulatedDiscussion.PARTITIONS; p++) {
                int rank = Math.floorMod(index - p, NODES);
                if (rank >= DEGREE) {
                    continue;
                }
                Map<NodeId, ReplicaRole> roles = driver.replicaRoles(service, p);
                ReplicaRole role = roles.get(id);
                allServing &= role != null && role != ReplicaRole.RECOVERING;
                primaryAgain &= rank != 0 || role == ReplicaRole.PRIMARY;
            }
            if (allServing && !serving) {
                serving = true;
                event(timeline, System.nanoTime(), node + " all replicas serving", false);
            }
            if (serving && primaryAgain) {
                event(timeline, System.nanoTime(), node + " primary again", false);
                return;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        event(timeline, System.nanoTime(), node + " not recovered after " + READY_TIMEOUT.toSeconds() + " s", false);
    }

    private void event(PerSecondTimeline timeline, long nanos, String what, boolean marker) {
        Event event = new Event(timeline.secondsOf(nanos), what, marker);
        events.add(event);
        System.out.printf(Locale.ROOT, "t=%6.2f s  %s%n", event.second(), what);
    }

    private static void sleepUntil(long nanos) {
        for (long now = System.nanoTime(); nanos - now > 0; now = System.nanoTime()) {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("interrupted: the run is ending");
            }
            LockSupport.parkNanos(nanos - now);
        }
    }
}
