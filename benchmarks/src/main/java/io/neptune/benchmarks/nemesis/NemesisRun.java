package io.neptune.benchmarks.nemesis;

import io.neptune.core.FailoverMode;
import io.neptune.server.LogRetentionConfig;
import io.neptune.server.NamespaceNetwork;
import io.neptune.server.NetworkUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One nemesis run: builds the namespace network, starts the nodes and the workload agent, runs the
 * workload while the {@link Nemesis} applies the seeded schedule, heals everything, lets the
 * workload run a little longer, stops it, waits for the replicas to agree, stops the nodes and
 * reads every replica's lists from its file, then writes the run directory:
 *
 * <pre>
 *   history.jsonl      the workload's history (see {@link HistoryRecorder})
 *   final-state.json   replicas' versions and digests, every replica's lists, the faults ({@link FinalState})
 *   faults.txt         the planned schedule and the applied faults, with times
 *   logs/              node-N.log per node (restarts appended), client.log(.err)
 *   report.md, timeline.png
 * </pre>
 *
 * <p>Every path cleans up: child processes are killed and namespaces deleted when the run ends, fails,
 * or the JVM is interrupted (a shutdown hook does it if the JVM exits first).
 *
 * <p>Thread-safety: {@link #call} once, from one thread; the nemesis runs on its own thread.
 */
final class NemesisRun {
    /** How long each step of the rebalance after healing may take (a new replica catching up included). */
    private static final Duration REBALANCE_STEP_TIMEOUT = Duration.ofSeconds(30);
    /** How long the whole rebalance after healing may take. */
    private static final Duration REBALANCE_LIMIT = Duration.ofMinutes(4);
    /**
     * What to run.
     *
     * @param seed the seed of the fault schedule and of the workload's choices
     * @param quick the short CI form
     * @param mode the service's fail-over mode
     * @param level the service's consistency level, 1, 2 or 3
     * @param nodes node processes
     * @param degree replicas per partition
     * @param duration how long faults may be applied, from the workload's start
     * @param recovery how long the workload runs after everything was healed
     * @param processes logical client processes
     * @param keys active keys
     * @param think mean think time between a process's operations
     * @param callTimeout the client's call deadline
     * @param settleTimeout how long to wait for the replicas to agree after the workload stopped
     */
    record Settings(long seed, boolean quick, FailoverMode mode, int level, int nodes, int degree, Duration duration,
            Duration recovery, int processes, int keys, Duration think, Duration callTimeout, Duration settleTimeout,
            Set<FaultSchedule.Kind> faults, @Nullable LogRetentionConfig retention) {
        /** Settings with the nodes' default log retention. */
        Settings(long seed, boolean quick, FailoverMode mode, int level, int nodes, int degree, Duration duration,
                Duration recovery, int processes, int keys, Duration think, Duration callTimeout,
                Duration settleTimeout, Set<FaultSchedule.Kind> faults) {
            this(seed, quick, mode, level, nodes, degree, duration, recovery, processes, keys, think, callTimeout,
                    settleTimeout, faults, null);
        }

        /** Settings with the default kinds of fault ({@link FaultSchedule.Kind#defaults}: no placement change). */
        Settings(long seed, boolean quick, FailoverMode mode, int level, int nodes, int degree, Duration duration,
                Duration recovery, int processes, int keys, Duration think, Duration callTimeout,
                Duration settleTimeout) {
            this(seed, quick, mode, level, nodes, degree, duration, recovery, processes, keys, think, callTimeout,
                    settleTimeout, FaultSchedule.Kind.defaults());
        }
    }

    /**
     * What a run produced.
     *
     * @param directory the run directory
     * @param settings what was run
     * @param schedule the planned faults
     * @param faults the applied faults
     * @param history the history's counts
     * @param state the final state
     * @param unsettled why the replicas did not agree within the settle timeout, or null if they did
     * @param problems anything else that went wrong on the way (a fault that failed, an unreadable file)
     * @param startUpSeconds from launch until the client saw every partition served
     * @param wallSeconds the whole run
     */
    record Outcome(Path directory, Settings settings, FaultSchedule schedule, List<Nemesis.Applied> faults,
            HistorySummary history, FinalState state, @Nullable String unsettled, List<String> problems,
            double startUpSeconds, double wallSeconds) {}

    private final Settings settings;
    private final Path directory;
    private final CrashHook crashHook;
    private final Consumer<String> progress;

    NemesisRun(Settings settings, Path directory, CrashHook crashHook, Consumer<String> progress) {
        this.settings = settings;
        this.directory = directory;
        this.crashHook = crashHook;
        this.progress = progress;
    }

    /** Runs it; throws {@link NetworkUnavailableException} if this machine cannot build the network. */
    Outcome call() throws Exception {
        FaultSchedule.checkPlacement(settings.faults(), settings.mode(), settings.level());
        long began = System.nanoTime();
        Files.createDirectories(directory.resolve("logs"));
        Path work = Files.createTempDirectory("neptune-nemesis-");
        FaultSchedule schedule = FaultSchedule.generate(settings.seed(), settings.nodes(), settings.quick(),
                settings.duration(), settings.faults());
        List<String> problems = Collections.synchronizedList(new ArrayList<>());
        NemesisCluster.Spec spec = new NemesisCluster.Spec(settings.nodes(), settings.degree(), settings.level(),
                settings.mode(), "nemesis-" + ProcessHandle.current().pid() + "-" + settings.seed(), settings.retention());
        Resources resources = new Resources();
        Thread hook = new Thread(resources::close, "nemesis-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            resources.network = NamespaceNetwork.builder(settings.nodes()).client().create();
            progress.accept("network: " + resources.network);
            NemesisCluster cluster = new NemesisCluster(spec, resources.network, work, directory.resolve("logs"),
                    crashHook);
            resources.cluster = cluster;
            cluster.startAll();
            resources.client = WorkloadClient.start(resources.network, cluster, settings, work,
                    directory.resolve("logs"), directory.resolve("history.jsonl"), this::printProgress);
            double startUp = (System.nanoTime() - began) / 1e9;
            progress.accept(String.format(Locale.ROOT, "%d nodes serving %d partitions after %.1f s; schedule: %s",
                    settings.nodes(), ListAppendService.PARTITIONS, startUp, schedule.faults()));
            List<Nemesis.Applied> faults = workload(resources.network, cluster, resources.client, schedule, problems);
            List<Map<String, Object>> replicas = settle(resources.client, cluster, problems);
            String unsettled = unsettled(replicas, cluster.placement());
            resources.client.quit();
            cluster.stopAll();
            HistorySummary history = HistorySummary.read(directory.resolve("history.jsonl"));
            FinalState state = new FinalState(FinalState.replicaEntries(replicas),
                    FinalState.readReplicaFiles(cluster, history.keys(), problems), faults, cluster.placement());
            state.write(directory.resolve("final-state.json"));
            writeFaults(schedule, faults);
            if (unsettled != null) {
                problems.add("replicas did not agree within " + settings.settleTimeout().toSeconds() + " s: " + unsettled
                        + "; node data kept in " + work);
            }
            return new Outcome(directory, settings, schedule, faults, history, state, unsettled, List.copyOf(problems),
                    startUp, (System.nanoTime() - began) / 1e9);
        } finally {
            resources.close();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down; the hook runs and finds nothing left
            }
            if (problems.stream().noneMatch(p -> p.contains(work.toString()))) {
                delete(work);
            }
        }
    }

    /** Runs the workload with the nemesis, heals, runs the recovery window, stops the workload. */
    private List<Nemesis.Applied> workload(NamespaceNetwork network, NemesisCluster cluster, WorkloadClient client,
            FaultSchedule schedule, List<String> problems) throws InterruptedException {
        long origin = System.nanoTime();
        client.startWorkload(origin);
        Nemesis.Admin admin = new Nemesis.Admin() {
            @Override
            public Map<Integer, Map<String, String>> replicas() {
                return client.hosts();
            }

            @Override
            public java.util.concurrent.CompletableFuture<String> place(Nemesis.PlacementCall call,
                    java.time.Duration timeout) {
                return client.place(call, timeout);
            }
        };
        Nemesis nemesis = new Nemesis(cluster, network, p -> client.primaries().getOrDefault(p, List.of()), admin,
                origin, progress);
        long until = settings.duration().toNanos();
        Thread thread = new Thread(() -> nemesis.run(schedule, until), "nemesis");
        Thread placements = new Thread(() -> nemesis.runPlacements(schedule, until), "nemesis-placement");
        for (Thread t : List.of(thread, placements)) {
            t.setDaemon(true);
            t.start();
        }
        long joinBy = System.currentTimeMillis() + settings.duration().plusMinutes(5).toMillis();
        for (Thread t : List.of(thread, placements)) {
            t.join(Math.max(1, joinBy - System.currentTimeMillis()));
            if (t.isAlive()) {
                t.interrupt();
                t.join(TimeUnit.MINUTES.toMillis(1));
                problems.add("the " + t.getName() + " thread did not finish its schedule in time");
            }
        }
        sleepUntil(origin + until);
        problems.addAll(nemesis.healAll());
        long healed = System.nanoTime();
        progress.accept(String.format(Locale.ROOT, "t=%6.1f s  everything healed; workload runs %d s more",
                (healed - origin) / 1e9, settings.recovery().toSeconds()));
        // after a campaign of placement changes an operator runs a rebalance: under the workload, before the final
        // checks (it spreads replicas and primaries and replaces voters of gone nodes; a partition a half-done move
        // left on 2 or 4 voters keeps that count, which the rebalance's detail reports)
        nemesis.rebalance(schedule, REBALANCE_STEP_TIMEOUT, REBALANCE_LIMIT);
        sleepUntil(healed + settings.recovery().toNanos());
        long lines = client.stopWorkload(settings.callTimeout().plusSeconds(2));
        progress.accept(String.format(Locale.ROOT, "t=%6.1f s  workload stopped: %d history lines",
                (System.nanoTime() - origin) / 1e9, lines));
        for (Nemesis.Applied fault : nemesis.faults()) {
            if (fault.detail().startsWith("failed")) {
                problems.add("fault " + fault.kind() + " " + fault.detail());
            }
        }
        return nemesis.faults();
    }

    /**
     * Polls the replicas until they agree or the settle timeout passes; returns the last answer. Each
     * partition is expected on the nodes that host it now ({@link NemesisCluster#placement}).
     */
    private List<Map<String, Object>> settle(WorkloadClient client, NemesisCluster cluster, List<String> problems) {
        long deadline = System.nanoTime() + settings.settleTimeout().toNanos();
        long started = System.nanoTime();
        while (true) {
            List<Map<String, Object>> replicas = client.replicas();
            String unsettled = unsettled(replicas, cluster.placement());
            if (unsettled == null) {
                progress.accept(String.format(Locale.ROOT, "replicas agree after %.1f s",
                        (System.nanoTime() - started) / 1e9));
                return replicas;
            }
            if (System.nanoTime() - deadline > 0) {
                progress.accept("replicas still disagree after " + settings.settleTimeout().toSeconds() + " s: "
                        + unsettled);
                return replicas;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(500));
        }
    }

    private @Nullable String unsettled(List<Map<String, Object>> replicas, Map<Integer, List<String>> placement) {
        return FinalState.unsettled(replicas, p -> placement.getOrDefault(p, List.of()).size(), settings.level() > 1);
    }

    private void writeFaults(FaultSchedule schedule, List<Nemesis.Applied> faults) throws IOException {
        StringBuilder text = new StringBuilder("# seed ").append(settings.seed()).append(": planned\n");
        schedule.faults().forEach(f -> text.append(f).append('\n'));
        if (!schedule.placements().isEmpty()) {
            text.append("# planned placement changes (concurrent with the faults)\n");
            schedule.placements().forEach(f -> text.append(f).append('\n'));
        }
        text.append("# applied (seconds since the workload's start)\n");
        faults.forEach(f -> text.append(f).append('\n'));
        Files.writeString(directory.resolve("faults.txt"), text);
    }

    /** Echoes every fifth PROGRESS line of the agent ({@code PROGRESS seconds ok fail info}). */
    private void printProgress(String line) {
        String[] words = line.split(" ");
        if (Long.parseLong(words[1]) % 5 != 0) {
            return;
        }
        progress.accept(String.format(Locale.ROOT, "t=%6s s  ops ok %s, fail %s, info %s", words[1], words[2],
                words[3], words[4]));
    }

    /**
     * Gzips the history and the logs of a run (each a few megabytes), once its report and verdicts
     * are written; {@code zcat history.jsonl.gz} reads it back.
     */
    static void compress(Path directory) throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(directory.resolve("history.jsonl"));
        try (var logs = Files.list(directory.resolve("logs"))) {
            logs.forEach(files::add);
        }
        for (Path file : files) {
            if (!Files.exists(file) || file.toString().endsWith(".gz")) {
                continue;
            }
            try (var out = new java.util.zip.GZIPOutputStream(Files.newOutputStream(
                    file.resolveSibling(file.getFileName() + ".gz")))) {
                Files.copy(file, out);
            }
            Files.delete(file);
        }
    }

    private static void sleepUntil(long nanos) {
        for (long left = nanos - System.nanoTime(); left > 0; left = nanos - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
    }

    private static void delete(Path directory) {
        try (var files = Files.walk(directory)) {
            files.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory; best effort
        }
    }

    /** What a run must release on every path, in order: client, nodes, network. */
    private static final class Resources {
        volatile @Nullable NamespaceNetwork network;
        volatile @Nullable NemesisCluster cluster;
        volatile @Nullable WorkloadClient client;

        synchronized void close() {
            WorkloadClient c = client;
            NemesisCluster n = cluster;
            NamespaceNetwork net = network;
            client = null;
            cluster = null;
            network = null;
            if (c != null) {
                c.close();
            }
            if (n != null) {
                n.close();
            }
            if (net != null) {
                net.close();
            }
        }
    }
}
