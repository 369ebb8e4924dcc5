package io.neptune.benchmarks.nemesis;

import io.neptune.benchmarks.nemesis.FaultSchedule.Kind;
import io.neptune.benchmarks.nemesis.FaultSchedule.Planned;
import io.neptune.server.NamespaceNetwork;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * Applies a {@link FaultSchedule} to the cluster and logs every fault with the times it started
 * and was healed. Partitions are {@link NamespaceNetwork#cut}s between node namespaces; pauses are
 * SIGSTOP/SIGCONT of the node's JVM; kills are SIGKILL and a restart on the same data directory.
 * Placement changes ({@link #runPlacements}, on a second thread) are {@code ClusterAdmin} calls made
 * through an {@link Admin} while those faults are in force.
 *
 * <p>Thread-safety: {@link #run} on one thread, {@link #runPlacements} on another; {@link #faults} and
 * {@link #healAll} from any.
 */
final class Nemesis {
    /** Time from the end of a kill-recovering fault's first restart to its second kill. */
    private static final Duration RECOVERY_KILL_DELAY = Duration.ofMillis(500);

    /**
     * A fault as applied.
     *
     * @param kind the fault's kind label
     * @param target the nodes it hit (for a partition: the side or node named in {@code detail})
     * @param start nanoseconds since the run's origin when it started
     * @param end nanoseconds since the run's origin when it was healed
     * @param detail what exactly was done
     */
    record Applied(String kind, List<String> target, long start, long end, String detail) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%7.2f s - %7.2f s  %-17s %s  %s", start / 1e9, end / 1e9, kind, target,
                    detail);
        }
    }

    /**
     * The nemesis' way to change placement: through the workload agent's {@code ClusterAdmin}, in the
     * client namespace (the bench JVM cannot reach the nodes).
     */
    interface Admin {
        /** Per partition, each replica in the agent's yellow page and its role there (PRIMARY, SECONDARY...). */
        Map<Integer, Map<String, String>> replicas();

        /**
         * Runs {@code call}; the future fails with the admin's reason when the call fails.
         *
         * @param timeout how long an added replica may take to catch up
         */
        CompletableFuture<String> place(PlacementCall call, Duration timeout);
    }

    /**
     * One {@code ClusterAdmin} placement call, as the admin command line writes it.
     *
     * @param command add-replica, remove-replica or move-primary
     * @param partition the partition
     * @param node the node that gains the replica, loses it, or takes the primary role
     */
    record PlacementCall(String command, int partition, String node) {
        static final String ADD = "add-replica";
        static final String REMOVE = "remove-replica";
        static final String MOVE_PRIMARY = "move-primary";
        static final String REBALANCE = "rebalance";

        @Override
        public String toString() {
            return command + " " + partition + " " + node;
        }
    }

    /**
     * The calls of one placement change, or why there are none.
     *
     * @param calls in order; each runs only if the one before it succeeded
     * @param why what was chosen and why (or why nothing was)
     */
    record PlacementPlan(List<PlacementCall> calls, String why) {
        PlacementPlan {
            calls = List.copyOf(calls);
        }
    }

    /**
     * Placement calls attempted and their outcomes, over a list of applied faults (read back from
     * their details, so it works on a saved run's faults too).
     */
    record PlacementTally(int attempted, int succeeded, int failed, int timedOut) {
        static PlacementTally of(List<Applied> faults) {
            int ok = 0;
            int failed = 0;
            int timedOut = 0;
            for (Applied fault : faults) {
                ok += count(fault.detail(), OK);
                failed += count(fault.detail(), FAILED);
                timedOut += count(fault.detail(), TIMED_OUT);
            }
            return new PlacementTally(ok + failed + timedOut, ok, failed, timedOut);
        }

        private static int count(String text, String word) {
            int n = 0;
            for (int i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + word.length())) {
                n++;
            }
            return n;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "placement calls %d: %d ok, %d failed, %d timed out", attempted,
                    succeeded, failed, timedOut);
        }
    }

    /** How a placement call's outcome reads in an applied fault's detail. */
    static final String OK = " -> ok";
    static final String FAILED = " -> failed: ";
    static final String TIMED_OUT = " -> timed out";

    private final NemesisCluster cluster;
    private final NamespaceNetwork network;
    private final IntFunction<List<String>> primaries;
    private final @Nullable Admin admin;
    private final long origin;
    private final Consumer<String> progress;
    private final List<Applied> faults = new CopyOnWriteArrayList<>();

    /**
     * Creates the nemesis.
     *
     * @param primaries the primaries of a partition as the client sees them now
     * @param origin the run's origin on {@link System#nanoTime}
     * @param progress where progress lines go
     */
    Nemesis(NemesisCluster cluster, NamespaceNetwork network, IntFunction<List<String>> primaries, long origin,
            Consumer<String> progress) {
        this(cluster, network, primaries, null, origin, progress);
    }

    /**
     * Creates the nemesis with placement changes.
     *
     * @param admin the placement calls, or null when the run has none
     */
    Nemesis(NemesisCluster cluster, NamespaceNetwork network, IntFunction<List<String>> primaries,
            @Nullable Admin admin, long origin, Consumer<String> progress) {
        this.cluster = cluster;
        this.network = network;
        this.primaries = primaries;
        this.admin = admin;
        this.origin = origin;
        this.progress = progress;
    }

    /** The faults and placement changes applied so far, in order of their start. */
    List<Applied> faults() {
        List<Applied> sorted = new ArrayList<>(faults);
        sorted.sort(java.util.Comparator.comparingLong(Applied::start));
        return List.copyOf(sorted);
    }

    /**
     * Applies the schedule's faults in turn, each at its planned time (later if the previous one's
     * heal ran late), none starting after {@code until} (nanoseconds since the origin).
     */
    void run(FaultSchedule schedule, long until) {
        for (Planned fault : schedule.faults()) {
            long at = Math.max(fault.at().toNanos(), now() + TimeUnit.SECONDS.toNanos(1));
            if (at + fault.length().toNanos() > until) {
                progress.accept("nemesis: skipping " + fault + " (the previous faults ran late)");
                continue;
            }
            sleepUntil(at);
            try {
                apply(fault);
            } catch (RuntimeException e) {
                long now = now();
                faults.add(new Applied(fault.kind().label(), List.of(), now, now, "failed: " + e));
                progress.accept("nemesis: " + fault + " failed: " + e);
                healAll();
            }
        }
    }

    /**
     * Applies the schedule's placement changes in turn, on the calling thread, while {@link #run}
     * applies the faults on another: each at its planned time (later if the previous one ran late),
     * none starting after {@code until}. A refused or timed-out call is logged, not an error: the admin
     * may well refuse while the cluster is faulty. Only the harness failing (the agent gone) is.
     */
    void runPlacements(FaultSchedule schedule, long until) {
        if (schedule.placements().isEmpty()) {
            return;
        }
        if (admin == null) {
            throw new IllegalStateException("placement changes planned but no admin to make them");
        }
        for (Planned change : schedule.placements()) {
            long at = Math.max(change.at().toNanos(), now());
            if (at + change.length().toNanos() > until) {
                progress.accept("nemesis: skipping " + change + " (the previous changes ran late)");
                continue;
            }
            sleepUntil(at);
            long start = now();
            try {
                place(change, admin, start);
            } catch (RuntimeException e) {
                faults.add(new Applied(change.kind().label(), List.of(), start, now(), "failed: " + e));
                progress.accept("nemesis: " + change + " failed: " + e);
            }
        }
    }

    /**
     * After the faults were healed, a run that changed placement runs {@code admin rebalance} as an
     * operator would after such a campaign ({@code stepTimeout} per step, the whole within {@code limit}),
     * and records it as an applied change, with the partitions left on other than the degree's number of
     * replicas (a half-done move leaves 2 or 4 voters, a count the rebalance keeps; a learner left by a
     * failed add-replica is noted by the plan, not removed). A refusal or time-out is recorded, not an
     * error, like the other placement calls. Does nothing if no placement change was planned.
     */
    void rebalance(FaultSchedule schedule, Duration stepTimeout, Duration limit) {
        if (schedule.placements().isEmpty() || admin == null) {
            return;
        }
        long start = now();
        progress.accept(String.format(Locale.ROOT, "t=%6.1f s  rebalance after the placement changes", start / 1e9));
        CompletableFuture<String> answer = admin.place(new PlacementCall(PlacementCall.REBALANCE, 0, "-"), stepTimeout);
        String detail;
        try {
            detail = "rebalance" + OK + " (" + answer.get(limit.toNanos(), TimeUnit.NANOSECONDS) + ")";
        } catch (TimeoutException e) {
            detail = "rebalance" + TIMED_OUT + " after " + seconds(now() - start) + " s (still running)";
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            detail = "rebalance" + FAILED + (cause.getMessage() == null ? cause.toString() : cause.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            detail = "rebalance" + TIMED_OUT + ": interrupted";
        }
        Map<Integer, List<String>> off = new java.util.TreeMap<>(cluster.placement());
        off.values().removeIf(nodes -> nodes.size() == cluster.spec().degree());
        detail += off.isEmpty() ? "; every partition on " + cluster.spec().degree() + " replicas"
                : "; partitions not on " + cluster.spec().degree() + " replicas: " + off;
        faults.add(new Applied("rebalance", List.of(), start, now(), detail));
        progress.accept(String.format(Locale.ROOT, "t=%6.1f s  %s", now() / 1e9, detail));
    }

    private void place(Planned change, Admin calls, long start) {
        Random random = new Random(change.choice());
        int partition = random.nextInt(ListAppendService.PARTITIONS);
        Map<String, String> replicas = calls.replicas().getOrDefault(partition, Map.of());
        List<String> hosting = cluster.placement().getOrDefault(partition, List.of());
        List<String> nodes = IntStream.range(0, cluster.spec().nodes()).mapToObj(Nemesis::nodeName).toList();
        PlacementPlan plan = plan(change.kind(), partition, replicas, hosting, nodes, cluster.spec().degree(),
                random);
        announce(change, start, plan.why() + (plan.calls().isEmpty() ? "" : ": " + plan.calls()));
        StringBuilder detail = new StringBuilder(plan.why());
        long deadline = start + change.length().toNanos();
        List<String> target = new ArrayList<>();
        for (PlacementCall call : plan.calls()) {
            target.add(call.node());
            detail.append("; ").append(call);
            long left = deadline - now();
            CompletableFuture<String> answer = calls.place(call, Duration.ofNanos(Math.max(left, 1)));
            try {
                String text = answer.get(Math.max(left, 1), TimeUnit.NANOSECONDS);
                detail.append(OK).append(" (").append(text).append(')');
            } catch (TimeoutException e) {
                detail.append(TIMED_OUT).append(" after ").append(seconds(now() - start)).append(" s (still running)");
                break;
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                detail.append(FAILED).append(cause.getMessage() == null ? cause.toString() : cause.getMessage());
                break;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                detail.append(TIMED_OUT).append(": interrupted, the run is ending");
                break;
            }
        }
        record(change, target, start, detail.toString());
    }

    /**
     * The calls of a placement change of {@code partition}, whose replicas (node to role) the yellow
     * page shows as {@code replicas} and which the nodes' placement files say {@code hosting} hosts (a
     * paused or killed node is missing from the first, not from the second). A move-replica adds a
     * replica on a node that hosts none and removes a secondary the yellow page shows, in a random order,
     * so the count stays; if the count is off {@code degree} (an earlier change half done) it only adds
     * or only removes, towards {@code degree}. The second call runs only if the first succeeded. A
     * move-primary moves the role to a random serving secondary (not one still recovering).
     */
    static PlacementPlan plan(Kind kind, int partition, Map<String, String> replicas,
            java.util.Collection<String> hosting, List<String> nodes, int degree, Random random) {
        List<String> primary = replicas.entrySet().stream().filter(e -> e.getValue().equals("PRIMARY"))
                .map(Map.Entry::getKey).sorted().toList();
        List<String> others = replicas.keySet().stream().filter(n -> !primary.contains(n)).sorted()
                .collect(Collectors.toCollection(ArrayList::new));
        String seen = "partition " + partition + " on " + new java.util.TreeMap<>(replicas);
        if (primary.size() != 1) {
            return new PlacementPlan(List.of(), "skipped: " + seen + ", not one primary (mid-election or a split)");
        }
        if (kind == Kind.MOVE_PRIMARY) {
            // a recovering replica would be refused (not caught up): only a serving secondary can take the role
            List<String> serving = others.stream().filter(n -> "SECONDARY".equals(replicas.get(n))).toList();
            if (serving.isEmpty()) {
                return new PlacementPlan(List.of(), "skipped: " + seen + ", no serving secondary");
            }
            String to = serving.get(random.nextInt(serving.size()));
            return new PlacementPlan(List.of(new PlacementCall(PlacementCall.MOVE_PRIMARY, partition, to)),
                    "move the primary of " + seen);
        }
        java.util.Set<String> hosts = new java.util.TreeSet<>(hosting);
        hosts.addAll(replicas.keySet());
        if (!hosts.equals(replicas.keySet())) {
            seen += ", hosted on " + hosts;
        }
        List<String> spare = nodes.stream().filter(n -> !hosts.contains(n)).toList();
        Optional<PlacementCall> add = spare.isEmpty() ? Optional.empty() : Optional.of(new PlacementCall(
                PlacementCall.ADD, partition, spare.get(random.nextInt(spare.size()))));
        Optional<PlacementCall> remove = others.isEmpty() ? Optional.empty() : Optional.of(new PlacementCall(
                PlacementCall.REMOVE, partition, others.get(random.nextInt(others.size()))));
        boolean addFirst = random.nextBoolean();
        if (hosts.size() < degree && add.isPresent()) {
            return new PlacementPlan(List.of(add.get()), "add a replica to " + seen + " (below " + degree + ")");
        }
        if (hosts.size() > degree && remove.isPresent()) {
            return new PlacementPlan(List.of(remove.get()), "remove a replica of " + seen + " (above " + degree + ")");
        }
        if (add.isEmpty() || remove.isEmpty()) {
            return new PlacementPlan(List.of(), "skipped: " + seen + ", " + (add.isEmpty()
                    ? "every node hosts it" : "no secondary to remove"));
        }
        return new PlacementPlan(addFirst ? List.of(add.get(), remove.get()) : List.of(remove.get(), add.get()),
                "move a replica of " + seen + (addFirst ? ", add first" : ", remove first"));
    }

    private void apply(Planned fault) {
        Random random = new Random(fault.choice());
        int nodes = cluster.spec().nodes();
        List<Integer> order = IntStream.range(0, nodes).boxed().collect(Collectors.toCollection(ArrayList::new));
        Collections.shuffle(order, random);
        Kind kind = fault.kind();
        switch (kind) {
            case PARTITION_HALVES -> partition(fault, Partitions.halves(order));
            case ISOLATE_PRIMARY -> {
                int partition = random.nextInt(ListAppendService.PARTITIONS);
                OptionalInt primary = primaryOf(partition);
                partition(fault, Partitions.isolate(primary.orElse(order.get(0)), order, primary.isPresent()
                        ? "primary of partition " + partition + " as the client saw it"
                        : "a node (no primary of partition " + partition + " known: level 1, or mid-election)"));
            }
            case PARTITION_BRIDGE -> partition(fault, Partitions.bridge(order));
            case PARTITION_RING -> partition(fault, Partitions.ring(order));
            case PARTITION_RANDOM -> partition(fault, Partitions.random(order, random));
            case PAUSE -> pause(fault, order.get(0), "SIGSTOP " + nodeName(order.get(0)));
            case PAUSE_PRIMARY -> {
                int partition = random.nextInt(ListAppendService.PARTITIONS);
                OptionalInt primary = primaryOf(partition);
                int victim = primary.orElse(order.get(0));
                pause(fault, victim, "SIGSTOP " + nodeName(victim) + (primary.isPresent() ? " (primary of partition "
                        + partition + ")" : " (no primary of partition " + partition + " known: level 1, or"
                        + " mid-election)"));
            }
            case KILL -> kill(fault, List.of(order.get(0)), false);
            case KILL_SEVERAL -> kill(fault, order.subList(0, Math.min(nodes - 1, 2 + random.nextInt(Math.max(1,
                    nodes / 2)))), false);
            case KILL_RECOVERING -> kill(fault, List.of(order.get(0)), true);
            case CRASH -> crash(fault, order.get(0));
            case SLOW_NETWORK -> slow(fault, order.get(0));
            case MOVE_REPLICA, MOVE_PRIMARY -> throw new IllegalStateException(kind.label()
                    + " is a placement change: runPlacements applies it");
        }
    }

    private void partition(Planned fault, Partitions.Shape shape) {
        long start = now();
        for (Partitions.Pair pair : shape.pairs()) {
            network.cut(pair.a(), pair.b());
        }
        announce(fault, start, shape.detail());
        sleepUntil(start + fault.length().toNanos());
        for (Partitions.Pair pair : shape.pairs()) {
            network.heal(pair.a(), pair.b());
        }
        record(fault, shape.target(), start, shape.detail() + "; " + shape.pairs().size() + " pairs cut");
    }

    private void pause(Planned fault, int node, String detail) {
        long start = now();
        cluster.pause(node);
        announce(fault, start, detail);
        sleepUntil(start + fault.length().toNanos());
        cluster.resume(node);
        record(fault, names(List.of(node)), start, detail + ", SIGCONT after "
                + seconds(now() - start) + " s");
    }

    private void kill(Planned fault, List<Integer> victims, boolean againWhileRecovering) {
        long start = now();
        victims.parallelStream().forEach(cluster::kill);
        String detail = "SIGKILL " + names(victims) + ", down " + seconds(fault.length().toNanos()) + " s";
        announce(fault, start, detail);
        sleepUntil(start + fault.length().toNanos());
        victims.parallelStream().forEach(cluster::start);
        if (againWhileRecovering) {
            sleepUntil(now() + RECOVERY_KILL_DELAY.toNanos());
            victims.forEach(cluster::kill);
            long down = fault.length().toNanos() / 2;
            sleepUntil(now() + down);
            victims.forEach(cluster::start);
            detail += "; restarted, SIGKILL again " + RECOVERY_KILL_DELAY.toMillis() + " ms after READY (recovering),"
                    + " down " + seconds(down) + " s";
        }
        record(fault, names(victims), start, detail + "; restarted (READY at " + seconds(now()) + " s)");
    }

    private void crash(Planned fault, int node) {
        long start = now();
        announce(fault, start, "machine crash of " + nodeName(node));
        String cut;
        try {
            cut = cluster.crash(node, fault.length());
        } catch (java.io.IOException e) {
            cluster.start(node);
            cut = "crash hook failed: " + e;
        }
        record(fault, names(List.of(node)), start, "SIGKILL " + nodeName(node) + "; " + cut + "; down "
                + seconds(fault.length().toNanos()) + " s, restarted");
    }

    private void slow(Planned fault, int node) {
        long start = now();
        Optional<String> installed = network.slow(node, Duration.ofMillis(200));
        if (installed.isEmpty()) {
            record(fault, List.of(), start, "skipped: the kernel has neither netem nor tbf");
            return;
        }
        announce(fault, start, nodeName(node) + ": " + installed.get());
        sleepUntil(start + fault.length().toNanos());
        network.unslow(node);
        record(fault, names(List.of(node)), start, installed.get() + " on " + nodeName(node) + "'s eth0");
    }

    /**
     * Heals every cut and slow link, resumes paused nodes and restarts dead ones. Returns what that
     * found: after a completed fault nothing is left to heal, so anything here (a node that exited
     * on its own, a route that would not go) is a problem of the run.
     */
    List<String> healAll() {
        List<String> found = new ArrayList<>();
        network.healAll().forEach(f -> found.add("could not undo: " + f));
        cluster.restoreAll().forEach(node -> found.add(node + " was down at heal-all (exited on its own?); restarted"));
        if (!found.isEmpty()) {
            progress.accept("nemesis: heal-all: " + found);
        }
        return found;
    }

    /** The index of a node the client saw as {@code partition}'s primary, if it saw one. */
    private OptionalInt primaryOf(int partition) {
        for (String node : primaries.apply(partition)) {
            int index = cluster.indexOf(node);
            if (index >= 0) {
                return OptionalInt.of(index);
            }
        }
        return OptionalInt.empty();
    }

    private void announce(Planned fault, long start, String detail) {
        progress.accept(String.format(Locale.ROOT, "t=%6.1f s  nemesis: %s start: %s", start / 1e9, fault, detail));
    }

    private void record(Planned fault, List<String> target, long start, String detail) {
        Applied applied = new Applied(fault.kind().label(), target, start, now(), detail);
        faults.add(applied);
        progress.accept(String.format(Locale.ROOT, "t=%6.1f s  nemesis: %s %s after %.1f s", applied.end() / 1e9,
                fault.kind().label(), fault.kind().isPlacement() ? "done" : "healed",
                (applied.end() - applied.start()) / 1e9));
    }

    private static List<String> names(List<Integer> nodes) {
        return Partitions.names(nodes);
    }

    private static String nodeName(int i) {
        return NemesisCluster.nodeName(i);
    }

    private static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.1f", nanos / 1e9);
    }

    private long now() {
        return System.nanoTime() - origin;
    }

    private void sleepUntil(long sinceOrigin) {
        for (long left = sinceOrigin - now(); left > 0; left = sinceOrigin - now()) {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("interrupted: the run is ending");
            }
            LockSupport.parkNanos(left);
        }
    }
}
