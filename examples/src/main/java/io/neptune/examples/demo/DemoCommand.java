package io.neptune.examples.demo;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.ClientConfig;
import io.neptune.core.ConfigException;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NeptuneException;
import io.neptune.core.internal.config.ConfigNode;
import io.neptune.examples.echo.EchoService;
import io.neptune.examples.echo.WorkService;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code neptune demo}: starts a local cluster of node processes hosting the echo and work
 * services (16 partitions each, 3 replicas per partition spread over the nodes), drives a
 * closed-loop workload from a client node, and prints progress and a RESULT line.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Start a local multi-process cluster and drive a workload against it.")
public final class DemoCommand implements Callable<Integer> {
    private static final int PARTITIONS = 16;

    @Option(names = "--duration", defaultValue = "20s", paramLabel = "TIME",
            description = "How long the workload runs, e.g. 10s or 2m (default: ${DEFAULT-VALUE}); 0s runs none.")
    private String duration;

    @Option(names = "--clients", defaultValue = "16", description = "Concurrent callers (default: ${DEFAULT-VALUE}).")
    private int clients;

    @Option(names = "--nodes", defaultValue = "4", description = "Node processes (default: ${DEFAULT-VALUE}).")
    private int nodes;

    @Option(names = "--replicas", defaultValue = "3", description = "Replicas per partition (default: ${DEFAULT-VALUE}).")
    private int replicas;

    @Option(names = "--work-millis", defaultValue = "2",
            description = "Service time of a work call in ms (default: ${DEFAULT-VALUE}).")
    private long workMillis;

    @Option(names = "--policy", defaultValue = "random-polling",
            description = "Load-balancing policy of the client: random, round-robin, random-polling, broadcast, ideal"
                    + " (default: ${DEFAULT-VALUE}).")
    private String policy;

    @Option(names = "--exit", description = "Stop the cluster after the workload instead of waiting for Ctrl-C.")
    private boolean exit;

    @Option(names = "--data", defaultValue = "neptune-data", paramLabel = "DIR",
            description = "Directory for node configs and logs (default: ${DEFAULT-VALUE}).")
    private Path data;

    @Override
    public Integer call() throws Exception {
        Duration workloadTime = ConfigNode.parseDuration("--duration", duration);
        BalancingPolicy balancing;
        try {
            balancing = BalancingPolicy.fromConfigName(policy);
        } catch (IllegalArgumentException e) {
            throw new ConfigException("--policy", e.getMessage());
        }
        validate();
        String cluster = "demo-" + ProcessHandle.current().pid();
        Path discovery = Files.createTempDirectory("neptune-demo-discovery-");
        MembershipConfig membership = MembershipConfig.builder().cluster(cluster).discoveryDirectory(discovery).build();
        System.out.printf("Starting %d Neptune nodes (cluster %s; logs in %s)%n", nodes, cluster,
                data.resolve("logs").toAbsolutePath());
        LocalCluster processes = new LocalCluster(data.resolve("config"), data.resolve("logs"));
        CountDownLatch done = new CountDownLatch(1);
        List<AutoCloseable> resources = new ArrayList<>();
        Thread cleanup = new Thread(() -> closeAll(resources, processes, discovery, done), "neptune-demo-shutdown");
        Runtime.getRuntime().addShutdownHook(cleanup);
        try {
            for (int i = 0; i < nodes; i++) {
                String name = "node-" + (i + 1);
                Process process = processes.start(name, nodeConfig(name, i, cluster, discovery));
                System.out.printf("  %s started (pid %d)%n", name, process.pid());
            }
            NeptuneNode client = NeptuneNode.builder(NodeConfig.builder().node("demo-client").membership(membership)
                    .client(ClientConfig.builder().policy(balancing).build()).build()).start();
            resources.add(client);
            awaitReplicas(client);
            System.out.printf("Cluster ready: %d nodes, echo and work with %d partitions x %d replicas%n", nodes,
                    PARTITIONS, replicas);
            if (!workloadTime.isZero()) {
                System.out.printf("Running a closed-loop workload: %d clients for %s%n", clients, duration);
                String result = new Workload(client.client(), clients, workloadTime, workMillis, PARTITIONS, System.out)
                        .run();
                System.out.println(result);
            }
            if (!exit) {
                System.out.println("Cluster is up; press Ctrl-C to stop it.");
                done.await();
            }
            return 0;
        } finally {
            if (exit) {
                Runtime.getRuntime().removeShutdownHook(cleanup);
                closeAll(resources, processes, discovery, done);
            }
        }
    }

    private void validate() {
        if (nodes < 1) {
            throw new ConfigException("--nodes", nodes + " (expected: >= 1)");
        }
        if (replicas < 1 || replicas > nodes) {
            throw new ConfigException("--replicas", replicas + " (expected: 1.." + nodes + ")");
        }
        if (clients < 1) {
            throw new ConfigException("--clients", clients + " (expected: >= 1)");
        }
        if (workMillis < 0 || workMillis > WorkService.MAX_MILLIS) {
            throw new ConfigException("--work-millis", workMillis + " (expected: 0.." + WorkService.MAX_MILLIS + ")");
        }
    }

    /** Partition p lives on nodes p, p+1, ..., p+replicas-1 (mod nodes). */
    private String nodeConfig(String name, int index, String cluster, Path discovery) {
        List<Integer> hosted = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            int offset = Math.floorMod(index - p, nodes);
            if (offset < replicas) {
                hosted.add(p);
            }
        }
        String partitions = hosted.stream().map(String::valueOf).collect(Collectors.joining(", ", "[", "]"));
        return """
                node: %s
                io-threads: 2
                membership:
                  cluster: %s
                  discovery-directory: %s
                services:
                  - class: %s
                    partitions: %s
                    workers: 4
                  - class: %s
                    partitions: %s
                    workers: 16
                """.formatted(name, cluster, discovery, EchoService.class.getName(), partitions,
                WorkService.class.getName(), partitions);
    }

    private void awaitReplicas(NeptuneNode client) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            boolean complete = true;
            for (String service : List.of("echo", "work")) {
                for (int p = 0; p < PARTITIONS && complete; p++) {
                    complete = client.replicasOf(service, p).size() >= replicas;
                }
            }
            if (complete) {
                return;
            }
            TimeUnit.MILLISECONDS.sleep(50);
        }
        throw new NeptuneException("the yellow page did not list " + replicas + " replicas of every partition within 60 s;"
                + " known nodes: " + client.knownNodes());
    }

    private static void closeAll(List<AutoCloseable> resources, LocalCluster processes, Path discovery,
            CountDownLatch done) {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                System.err.println("neptune: " + e.getMessage());
            }
        }
        resources.clear();
        processes.close();
        try (Stream<Path> files = Files.walk(discovery)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temporary directory; nothing else to do
        }
        done.countDown();
    }
}
