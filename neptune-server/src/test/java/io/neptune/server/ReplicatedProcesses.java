package io.neptune.server;

import io.neptune.client.ClientConfig;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.FailoverMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.ReplicationEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Node processes hosting one replicated test service, plus an in-process observer node that
 * hosts nothing: the harness of the SIGKILL tests. Close it to stop everything. Each process's
 * whole output goes to {@code logs/<node>-<n>.log} under the root directory, for post-mortems.
 */
final class ReplicatedProcesses implements AutoCloseable {
    private final Path root;
    private final String cluster = "repl-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 1_000_000;
    private final Map<String, NodeProcess> processes = new LinkedHashMap<>();
    private final Map<String, String> configs = new LinkedHashMap<>();
    private final Map<String, Map<String, String>> environments = new LinkedHashMap<>();
    private final NeptuneNode observer;
    private int launches;
    private List<String> jvmOptions = List.of("-Xmx160m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    /** Whether node processes run {@code neptune node --config}, as users run them, rather than {@link ConfigNodeMain}. */
    private boolean nodeCommand;
    /** Every process and the observer run with TLS required, each with a certificate of its own. */
    private final TestCertificates certificates;
    private final boolean tls;

    ReplicatedProcesses(Path root) throws IOException {
        this(root, true);
    }

    /**
     * Like {@link #ReplicatedProcesses(Path)}; {@code tls} false runs every process and the observer
     * in plaintext (for a test that needs what TLS does not have yet, saying why).
     */
    ReplicatedProcesses(Path root, boolean tls) throws IOException {
        this.tls = tls;
        this.root = root;
        Files.createDirectories(root.resolve("discovery"));
        Files.createDirectories(root.resolve("logs"));
        certificates = TestCertificates.create(root.resolve("certs"), cluster);
        // an operator: tests promote, move and drain through it besides calling the service
        observer = NeptuneNode.builder(NodeConfig.builder().node("observer").ioThreads(2).membership(membership())
                .security(tls ? certificates.required(new Principal(Principal.Role.OPERATOR, "observer"))
                        : SecurityConfig.disabled())
                .client(ClientConfig.builder().timeout(Duration.ofSeconds(15)).build())
                .dataDirectory(root.resolve("observer")).build()).start();
    }

    /** The authority that certifies this cluster's processes and observer (TLS is required). */
    TestCertificates certificates() {
        return certificates;
    }

    MembershipConfig membership() {
        return MembershipConfig.builder().cluster(cluster).discoveryDirectory(root.resolve("discovery"))
                .announceInterval(Duration.ofMillis(300)).expiry(Duration.ofSeconds(3)).build();
    }

    /**
     * Sets the JVM options of node processes started from now on; by default a small heap, the
     * serial collector and the C1 compiler only (a node that lives for one test never repays C2's
     * compiling); a test that measures how fast nodes are gives the JVM's defaults back.
     */
    void jvmOptions(String... options) {
        jvmOptions = List.of(options);
    }

    /**
     * Runs node processes started from now on as {@code neptune node --config FILE} ({@link
     * io.neptune.server.cli.NeptuneCli}), which a stop signal drains, instead of {@link ConfigNodeMain},
     * which stops when its standard input closes. Such a process is stopped by SIGTERM: {@link
     * NodeProcess#signalTerm()} to drain it; {@link #stop} and {@link #close} send two, which stop it at once.
     */
    void useNodeCommand() {
        nodeCommand = true;
    }

    /** Defines node {@code name} hosting {@code serviceClass} on all partitions with {@code priority}. */
    void define(String name, Class<?> serviceClass, int priority, int replicas) {
        define(name, serviceClass, priority, replicas, null, "", "");
    }

    /**
     * Defines node {@code name} like {@link #define(String, Class, int, int)}, with per-partition
     * {@code priorities} (the YAML flow map of the {@code priorities} key, e.g. {@code "{0: 4, 1: 3}"}).
     */
    void define(String name, Class<?> serviceClass, String priorities, int replicas) {
        define(name, serviceClass, 0, replicas, null, "", "    priorities: " + priorities + "\n");
    }

    /** Like {@link #define(String, Class, int, int)}, in fail-over {@code mode}. */
    void define(String name, Class<?> serviceClass, int priority, int replicas, FailoverMode mode) {
        define(name, serviceClass, priority, replicas, mode, "", "");
    }

    /**
     * Defines node {@code name} like {@link #define(String, Class, int, int)}, with {@code settings}
     * (top-level YAML lines such as {@code "log-sync: none
"}) added to its config.
     */
    void define(String name, Class<?> serviceClass, int priority, int replicas, String settings) {
        define(name, serviceClass, priority, replicas, null, settings, "");
    }

    /** Defines node {@code name} like {@link #define(String, Class, int, int, String)}, in fail-over {@code mode}. */
    void define(String name, Class<?> serviceClass, int priority, int replicas, @Nullable FailoverMode mode,
            String settings) {
        define(name, serviceClass, priority, replicas, mode, settings, "");
    }

    private void define(String name, Class<?> serviceClass, int priority, int replicas, @Nullable FailoverMode mode,
            String settings, String serviceSettings) {
        configs.put(name, settings + """
                node: %s
                io-threads: 1
                data-directory: %s
                ack-timeout: 2s
                membership:
                  cluster: %s
                  discovery-directory: %s
                  announce-interval: 300ms
                  expiry: 3s
                services:
                  - class: %s
                    priority: %d
                    replicas: %d
                    workers: 4
                """.formatted(name, root.resolve("data").resolve(name), cluster, root.resolve("discovery"),
                serviceClass.getName(), priority, replicas)
                + (mode == null ? "" : "    failover: " + mode.configName() + "\n") + serviceSettings + security(name));
    }

    /** The {@code security:} section of node {@code name}: TLS required with its own certificate. */
    private String security(String name) {
        if (!tls) {
            return "";
        }
        SecurityConfig security = certificates.node(name);
        return """
                security:
                  tls: required
                  certificate: %s
                  key: %s
                  trust: %s
                """.formatted(security.certificate(), security.key(), security.trust());
    }

    /** Sets environment variables for node {@code name}'s processes started from now on (e.g. {@code CrashFs}'s). */
    void environment(String name, Map<String, String> environment) {
        environments.put(name, Map.copyOf(environment));
    }

    /** The data directory of node {@code name}: its REDO logs and its services' stores. */
    Path dataDirectory(String name) {
        return root.resolve("data").resolve(name);
    }

    /** Everything node {@code name}'s processes wrote to stdout and stderr so far, oldest first. */
    String output(String name) {
        try (var files = Files.list(root.resolve("logs"))) {
            StringBuilder output = new StringBuilder();
            for (Path file : files.filter(f -> f.getFileName().toString().startsWith(name + "-"))
                    .sorted(java.util.Comparator.comparingInt(f -> launchOf(f.getFileName().toString()))).toList()) {
                output.append(Files.readString(file));
            }
            return output.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int launchOf(String logFile) {
        return Integer.parseInt(logFile.substring(logFile.lastIndexOf('-') + 1, logFile.length() - ".log".length()));
    }

    /** Starts (or restarts, on its data) node {@code name} and waits until it serves. */
    NodeProcess start(String name) {
        return startAll(name).get(0);
    }

    /** Starts (or restarts) every node named at once, then waits until each serves: faster than one by one. */
    List<NodeProcess> startAll(String... names) {
        List<NodeProcess> started = new ArrayList<>();
        for (String name : names) {
            started.add(launch(name));
        }
        for (NodeProcess process : started) {
            process.awaitLine(line -> line.startsWith("READY "), Duration.ofSeconds(180), process.name() + " to start");
        }
        return started;
    }

    private NodeProcess launch(String name) {
        try {
            Path config = root.resolve(name + ".yaml");
            Files.writeString(config, configs.get(name));
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmOptions);
            NodeClassDataSharing.Jvm jvm = NodeClassDataSharing.jvm();
            command.addAll(jvm.options());
            command.addAll(List.of("-cp", jvm.classPath()));
            if (nodeCommand) {
                command.addAll(List.of(io.neptune.server.cli.NeptuneCli.class.getName(), "node", "--config",
                        config.toString(), "--parent-pid", Long.toString(ProcessHandle.current().pid())));
            } else {
                command.addAll(List.of(ConfigNodeMain.class.getName(), config.toString()));
            }
            NodeProcess process = NodeProcess.start(name, command,
                    root.resolve("logs").resolve(name + "-" + (++launches) + ".log"),
                    environments.getOrDefault(name, Map.of()));
            processes.put(name, process);
            return process;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether node {@code name} was started and has not been killed or stopped since. */
    boolean running(String name) {
        return processes.containsKey(name);
    }

    /** Kills node {@code name} with SIGKILL. */
    void kill(String name) {
        NodeProcess process = processes.remove(name);
        if (process != null) {
            process.kill();
            process.close();
        }
    }

    /** Stops node {@code name} cleanly (its services and logs close) and waits for it to exit. */
    void stop(String name) {
        NodeProcess process = processes.remove(name);
        if (process != null) {
            close(process);
        }
    }

    private void close(NodeProcess process) {
        requestStop(process);
        process.close();
    }

    /** Asks {@code process} to stop at once (no drain) without waiting for it. */
    private void requestStop(NodeProcess process) {
        if (nodeCommand) {
            process.signalTerm();
            process.signalTerm(); // a second signal: stop now, without draining
        } else {
            process.requestStop();
        }
    }

    /** The running process of node {@code name}. */
    NodeProcess process(String name) {
        NodeProcess process = processes.get(name);
        if (process == null) {
            throw new IllegalStateException(name + " is not running (expected: one of " + processes.keySet() + ")");
        }
        return process;
    }

    /** Kills every node named with SIGKILL at (nearly) the same instant. */
    void killAll(String... names) {
        List<NodeProcess> victims = new ArrayList<>();
        for (String name : names) {
            NodeProcess process = processes.remove(name);
            if (process != null) {
                process.signalKill();
                victims.add(process);
            }
        }
        for (NodeProcess process : victims) {
            process.kill();
            process.close();
        }
    }

    NeptuneNode observer() {
        return observer;
    }

    /** The primary of {@code service#partition} in the observer's yellow page, if any. */
    Optional<String> primary(String service, int partition) {
        return observer.replicaRoles(service, partition).entrySet().stream()
                .filter(e -> e.getValue() == ReplicaRole.PRIMARY).map(e -> e.getKey().value()).findFirst();
    }

    /** Asks node {@code node} directly for its replication status of {@code service#partition}. */
    Map<String, Object> status(String node, String service, int partition) {
        return status(observer, node, service, partition);
    }

    /** Asks node {@code node} directly, through {@code observer}, for its replication status of {@code service#partition}. */
    static Map<String, Object> status(NeptuneNode observer, String node, String service, int partition) {
        try {
            byte[] payload = Json.mapper().writeValueAsBytes(Map.of("service", service, "partition", partition));
            RequestMessage request = new RequestMessage(0, ReplicationEngine.SERVICE, partition, "status",
                    AccessMode.WRITE, 5000, 0, RequestId.NONE, payload);
            ResponseMessage response = ((DefaultNeptuneClient) observer.client()).sendTo(NodeId.of(node), request,
                    partition).get(10, TimeUnit.SECONDS);
            if (response.status() != Status.OK) {
                throw new AssertionError(node + " status: " + response.status() + " " + response.errorMessage());
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> status = Json.mapper().readValue(response.payload(), Map.class);
            return status;
        } catch (Exception e) {
            throw new AssertionError("status of " + service + "#" + partition + " from " + node + " failed", e);
        }
    }

    /**
     * Runs read {@code method} of {@code service#partition} on node {@code node} itself, not load
     * balanced: for checking one replica's data.
     */
    <T> T readFrom(String node, String service, int partition, String method, Object request, Class<T> type) {
        return readFrom(observer, node, service, partition, method, request, type);
    }

    /** Like {@link #readFrom(String, String, int, String, Object, Class)}, through {@code observer}. */
    static <T> T readFrom(NeptuneNode observer, String node, String service, int partition, String method,
            Object request, Class<T> type) {
        try {
            RequestMessage message = new RequestMessage(0, service, partition, method, AccessMode.READ, 10_000, 0,
                    RequestId.NONE, Json.mapper().writeValueAsBytes(request));
            ResponseMessage response = ((DefaultNeptuneClient) observer.client()).sendTo(NodeId.of(node), message,
                    partition).get(15, TimeUnit.SECONDS);
            if (response.status() != Status.OK) {
                throw new AssertionError(node + " " + method + ": " + response.status() + " "
                        + response.errorMessage());
            }
            return Json.mapper().readValue(response.payload(), type);
        } catch (Exception e) {
            throw new AssertionError(method + " of " + service + "#" + partition + " on " + node + " failed", e);
        }
    }

    /**
     * Runs write {@code method} of {@code service#partition} on node {@code node} itself, not load
     * balanced, with a fresh request id; returns the response (any status).
     */
    ResponseMessage writeTo(String node, String service, int partition, String method, Object request) {
        try {
            RequestMessage message = new RequestMessage(0, service, partition, method, AccessMode.WRITE, 10_000, 0,
                    RequestId.random(), Json.mapper().writeValueAsBytes(request));
            return ((DefaultNeptuneClient) observer.client()).sendTo(NodeId.of(node), message, partition)
                    .get(15, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError(method + " of " + service + "#" + partition + " on " + node + " failed", e);
        }
    }

    static void await(BooleanSupplier condition, Duration limit, String what) {
        org.awaitility.Awaitility.await(what).atMost(limit).pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20)).until(condition::getAsBoolean);
    }

    @Override
    public void close() {
        // every node asked first, then waited for: their stops (the JGroups leave, the logs and databases
        // closing) overlap instead of adding up, 1 to 2 s a node on a loaded machine
        for (NodeProcess process : processes.values()) {
            requestStop(process);
        }
        for (NodeProcess process : processes.values()) {
            process.close();
        }
        processes.clear();
        observer.close();
    }
}
