package io.neptune.benchmarks.nemesis;

import io.neptune.client.ClientConfig;
import io.neptune.core.FailoverMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.server.HostingConfig;
import io.neptune.server.LogRetentionConfig;
import io.neptune.server.NamespaceNetwork;
import io.neptune.server.NodeConfig;
import io.neptune.server.NodeConfigFile;
import io.neptune.server.TestCertificates;
import io.neptune.server.cli.NeptuneCli;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * The bench's Neptune nodes: {@code nodes} separate JVMs ({@code neptune node --config FILE}), node
 * {@code i} in network namespace {@code i}, on the JGroups TCP stack bound to its namespace address
 * with TCPPING to every node's address (never multicast). Each hosts the list-append service with
 * {@code degree} replicas per partition: partition {@code p} on nodes {@code p, p+1, …} (mod the node
 * count), the first with the highest priority, in the given fail-over mode. That is the initial
 * placement: placement changes ({@code move-replica}) write each node's {@code placement.json},
 * which {@link #hosting} reads.
 *
 * <p>A node keeps its data directory across {@link #kill} and {@link #start}, so a restart goes
 * through Neptune's recovery. {@link #crash} is a machine crash: SIGKILL, then the {@link CrashHook}
 * (what the OS would lose with the machine), then a restart. Each node has one log file; restarts
 * append to it after a marker line.
 *
 * <p>Thread-safety: thread-safe; each node's process is swapped under the node's slot lock.
 */
final class NemesisCluster implements AutoCloseable {
    /** JGroups port of every node (each in its own namespace, so they can share it). */
    static final int JGROUPS_PORT = 7800;
    /** Node JVM options: small heaps, the serial collector and C1 only, as many JVMs share two cores. */
    static final List<String> NODE_JVM_OPTIONS = List.of("-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Djava.net.preferIPv4Stack=true", "-Dorg.slf4j.simpleLogger.log.io.neptune=info",
            "-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(150);
    private static final Duration STOP_GRACE = Duration.ofSeconds(20);

    /**
     * What the cluster runs.
     *
     * @param nodes node processes
     * @param degree replicas per partition
     * @param level consistency level of the service, 2 or 3
     * @param mode the service's fail-over mode on every node
     * @param cluster the JGroups cluster name
     * @param retention the nodes' {@code log-retention} and {@code log-checkpoint-interval}, or null for the defaults
     */
    record Spec(int nodes, int degree, int level, FailoverMode mode, String cluster,
            @Nullable LogRetentionConfig retention) {
        Spec {
            if (nodes < 3) {
                throw new IllegalArgumentException("nodes: " + nodes + " (expected: >= 3)");
            }
            if (degree < 1 || degree > nodes) {
                throw new IllegalArgumentException("degree: " + degree + " (expected: 1.." + nodes + ")");
            }
        }

        String service() {
            return ListAppendService.nameOf(level);
        }
    }

    private final Spec spec;
    private final NamespaceNetwork network;
    private final Path work;
    private final Path logs;
    private final CrashHook crashHook;
    private final String classpath;
    private final @Nullable ChildProcess[] processes;
    private final long[] starts;
    /**
     * Certifies the nodes and the workload agent: the cluster runs with TLS required, as production
     * would. Each principal's certificate is issued once, so a restarted node keeps its own.
     */
    private final TestCertificates certificates;

    NemesisCluster(Spec spec, NamespaceNetwork network, Path work, Path logs, CrashHook crashHook) {
        this.spec = spec;
        this.network = network;
        this.work = work;
        this.logs = logs;
        this.crashHook = crashHook;
        this.classpath = System.getProperty("java.class.path");
        this.processes = new ChildProcess[spec.nodes()];
        this.starts = new long[spec.nodes()];
        try {
            Files.createDirectories(work.resolve("config"));
            Files.createDirectories(logs);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.certificates = TestCertificates.loadOrCreate(work.resolve("certs"), "nemesis");
    }

    /** TLS required, with a certificate naming {@code principal}. */
    private SecurityConfig security(Principal principal) {
        return certificates.required(principal);
    }

    /** The cluster's spec. */
    Spec spec() {
        return spec;
    }

    /** Node {@code i}'s id, {@code node-(i+1)}. */
    static String nodeName(int i) {
        return "node-" + (i + 1);
    }

    /** The index of node id {@code node}, or -1 if it is not one of ours. */
    int indexOf(String node) {
        for (int i = 0; i < spec.nodes(); i++) {
            if (nodeName(i).equals(node)) {
                return i;
            }
        }
        return -1;
    }

    /** The partitions node {@code i} hosts, with their priorities. */
    Map<Integer, Integer> hosted(int i) {
        Map<Integer, Integer> priorities = new TreeMap<>();
        for (int p = 0; p < ListAppendService.PARTITIONS; p++) {
            int rank = Math.floorMod(i - p, spec.nodes());
            if (rank < spec.degree()) {
                priorities.put(p, spec.degree() - rank);
            }
        }
        return priorities;
    }

    /**
     * The partitions node {@code i} hosts now: its placement file's ({@code placement.json}, written by
     * every add-replica and remove-replica it took part in) if that names the service, else its config's
     * ({@link #hosted}). The node reads the same file when it starts, so this is also what it hosts
     * after a restart. Readable while the node runs: the node replaces the file atomically.
     */
    java.util.SortedSet<Integer> hosting(int i) {
        return new io.neptune.server.internal.PlacementStore(dataDirectory(i)).partitions(spec.service())
                .orElseGet(() -> new java.util.TreeSet<>(hosted(i).keySet()));
    }

    /** Per partition, the nodes {@link #hosting} it now. */
    Map<Integer, List<String>> placement() {
        Map<Integer, List<String>> placement = new TreeMap<>();
        for (int p = 0; p < ListAppendService.PARTITIONS; p++) {
            placement.put(p, new ArrayList<>());
        }
        for (int i = 0; i < spec.nodes(); i++) {
            for (int p : hosting(i)) {
                placement.computeIfAbsent(p, k -> new ArrayList<>()).add(nodeName(i));
            }
        }
        return placement;
    }

    /** Node {@code i}'s data directory (REDO logs and the service's H2 file under it). */
    Path dataDirectory(int i) {
        return work.resolve("data").resolve(nodeName(i));
    }

    /** The directory of node {@code i}'s list-append database file. */
    Path serviceDataDirectory(int i) {
        return dataDirectory(i).resolve(spec.service()).resolve("data");
    }

    /** Starts every node at once and waits until each printed READY. */
    void startAll() throws Exception {
        ExecutorService starters = Executors.newFixedThreadPool(spec.nodes());
        try {
            List<Future<?>> started = new ArrayList<>();
            for (int i = 0; i < spec.nodes(); i++) {
                int index = i;
                started.add(starters.submit(() -> start(index)));
            }
            for (Future<?> f : started) {
                f.get(START_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS);
            }
        } finally {
            starters.shutdownNow();
        }
    }

    /** Starts node {@code i} on its data directory and waits for READY; a running node is left alone. */
    void start(int i) {
        ChildProcess running;
        synchronized (processes) {
            running = processes[i];
            if (running != null && running.isAlive()) {
                return;
            }
        }
        Path config = work.resolve("config").resolve(nodeName(i) + ".yaml");
        Path log = logs.resolve(nodeName(i) + ".log");
        try {
            config(i).write(config);
            Files.writeString(log, "=== nemesis: starting " + nodeName(i) + " (start " + (starts[i] + 1) + ") ===\n",
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", network.namespace(i),
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(NODE_JVM_OPTIONS);
        command.addAll(List.of("-cp", classpath, NeptuneCli.class.getName(), "node", "--config",
                config.toString(), "--parent-pid", Long.toString(ProcessHandle.current().pid())));
        ChildProcess child = ChildProcess.start(nodeName(i), command, crashHook.environment(dataDirectory(i)), log,
                true, l -> l.startsWith("READY "), l -> { });
        synchronized (processes) {
            processes[i] = child;
            starts[i]++;
        }
        try {
            String ready = child.awaitLine(l -> l.startsWith("READY "), START_TIMEOUT, "READY line (see " + log + ")");
            // Signals go to the pid we started: `ip netns exec` must have exec'd the JVM in place, not forked it.
            if (!ready.contains("pid=" + child.pid())) {
                throw new IllegalStateException(nodeName(i) + ": READY from another pid than the started " + child.pid()
                        + " ('" + ready + "'), so SIGSTOP and SIGKILL would miss the JVM");
            }
        } catch (RuntimeException e) {
            child.kill();
            throw e;
        }
    }

    /** SIGKILLs node {@code i} and waits for it to end; returns whether it was running. */
    boolean kill(int i) {
        ChildProcess process = process(i);
        if (process == null || !process.isAlive()) {
            return false;
        }
        process.kill();
        return true;
    }

    /**
     * A machine crash of node {@code i}: SIGKILL, then the crash hook on its data directory (what the
     * machine's page cache would have lost), {@code downtime} later a restart (waiting for READY).
     * Returns what the hook did.
     */
    String crash(int i, Duration downtime) throws IOException {
        kill(i);
        String cut = crashHook.afterKill(nodeName(i), dataDirectory(i));
        long until = System.nanoTime() + downtime.toNanos();
        for (long left = downtime.toNanos(); left > 0; left = until - System.nanoTime()) {
            LockSupport.parkNanos(left);
        }
        start(i);
        return cut;
    }

    /** SIGSTOPs node {@code i}. */
    void pause(int i) {
        ChildProcess process = process(i);
        if (process != null) {
            process.pause();
        }
    }

    /** SIGCONTs node {@code i}. */
    void resume(int i) {
        ChildProcess process = process(i);
        if (process != null) {
            process.resume();
        }
    }

    /** Resumes every paused node and restarts every node that is down; returns the nodes restarted. */
    List<String> restoreAll() {
        List<String> restarted = new ArrayList<>();
        for (int i = 0; i < spec.nodes(); i++) {
            ChildProcess process = process(i);
            if (process != null && process.paused()) {
                process.resume();
            }
            if (process == null || !process.isAlive()) {
                start(i);
                restarted.add(nodeName(i));
            }
        }
        return restarted;
    }

    /** The pid of node {@code i}'s current process, or -1 when it is not running. */
    long pid(int i) {
        ChildProcess process = process(i);
        return process != null && process.isAlive() ? process.pid() : -1;
    }

    /** How many times node {@code i} was started. */
    long starts(int i) {
        synchronized (processes) {
            return starts[i];
        }
    }

    private @Nullable ChildProcess process(int i) {
        synchronized (processes) {
            return processes[i];
        }
    }

    /** Stops every node cleanly (SIGCONT, SIGTERM, SIGKILL after a grace period), all at once. */
    void stopAll() {
        List<ChildProcess> running = new ArrayList<>();
        synchronized (processes) {
            for (ChildProcess p : processes) {
                if (p != null && p.isAlive()) {
                    running.add(p);
                }
            }
        }
        running.parallelStream().forEach(p -> p.terminate(STOP_GRACE));
    }

    /** Kills every node process still running; idempotent. */
    @Override
    public void close() {
        synchronized (processes) {
            for (ChildProcess p : processes) {
                if (p != null) {
                    p.close();
                }
            }
        }
    }

    /** Node {@code i}'s YAML config. */
    NodeConfigFile config(int i) {
        Map<Integer, Integer> hosted = hosted(i);
        NodeConfig.Builder builder = NodeConfig.builder().node(NodeId.of(nodeName(i))).bindAddress(network.address(i))
                .ioThreads(2).dataDirectory(dataDirectory(i)).membership(membership(network.address(i)))
                .security(security(Principal.node(NodeId.of(nodeName(i)))));
        if (spec.retention() != null) {
            builder.logRetention(spec.retention());
        }
        NodeConfig node = builder.build();
        HostingConfig hosting = HostingConfig.builder().partitions(hosted.keySet()).replicas(spec.degree()).workers(4)
                .failover(spec.mode()).priorities(hosted).build();
        return new NodeConfigFile(node, List.of(new NodeConfigFile.HostedService(
                ListAppendService.classOf(spec.level()).getName(), hosting)), List.of());
    }

    /** The workload agent's config: a node hosting nothing, in the client namespace. */
    NodeConfigFile agentConfig(Duration callTimeout) {
        NodeConfig node = NodeConfig.builder().node(NodeId.of("client")).bindAddress(network.clientAddress())
                .ioThreads(2).dataDirectory(work.resolve("data").resolve("client"))
                .membership(membership(network.clientAddress()))
                // an operator: the agent moves primaries and replicas besides calling the service
                .security(security(new Principal(Principal.Role.OPERATOR, "nemesis")))
                .client(ClientConfig.builder().timeout(callTimeout).build()).build();
        return new NodeConfigFile(node, List.of(), List.of());
    }

    /** JGroups over TCP between the namespaces, every node's address listed (TCPPING). */
    private MembershipConfig membership(String bindAddress) {
        List<InetSocketAddress> hosts = IntStream.range(0, spec.nodes())
                .mapToObj(n -> new InetSocketAddress(network.address(n), JGROUPS_PORT)).toList();
        return MembershipConfig.builder().stack(MembershipConfig.Stack.TCP).cluster(spec.cluster())
                .bindAddress(bindAddress).port(JGROUPS_PORT).initialHosts(hosts).build();
    }
}
