package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.core.ClassStats;
import io.neptune.core.MembershipConfig;
import io.neptune.core.ServiceClass;
import io.neptune.server.HostingConfig;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.SchedulingPolicy;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emulated servers of {@link QosExperiment}, in this JVM on the loopback stack, in one of two
 * shapes, plus one node hosting nothing that makes every call:
 * <ul>
 *   <li>{@link #start}: the single-server setting of the dissertation's section 4.5.2, once per
 *       policy, side by side: one server node per {@link SchedulingPolicy}, each declaring the same
 *       service classes and hosting its own slot of {@link WorkService} with {@link #WORKERS} workers
 *       (the dissertation's dual-processor node). Policy {@code i} of {@link #policies()} serves slot
 *       {@code i}: an independent emulated server fed by its own generator, so one round measures
 *       every policy under the same host noise.
 *   <li>{@link #replicated}: the cluster setting of sections 4.5.3 and 4.5.4: {@code n} server nodes
 *       with one policy, each hosting slots {@code 0..slots-1} of {@link WorkService} (every slot one
 *       partition replicated on all of them), so that several request distribution schemes run side
 *       by side, each on a slot: an independent emulated {@code n}-server cluster. A server can
 *       {@link #fail} (its node closes: its JGroups member leaves) and {@link #recover}.
 * </ul>
 *
 * <p>Thread-safety: start, fail, recover and close from one thread; the accessors are thread-safe.
 */
final class QosCluster implements AutoCloseable {
    /**
     * β of equation 4.4.3 on the experiments' clock: times are the dissertation's divided by 10, so a
     * second here is ten of its seconds, over which its 0.95 per second decays to 0.95^10.
     */
    static final double SCALED_DECAY = Math.pow(SchedulingConfig.DEFAULT_DECAY, 10);

    /** Workers per server: the dissertation's nodes had two processors. */
    static final int WORKERS = 2;

    private static final Logger logger = LoggerFactory.getLogger(QosCluster.class);
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final String BIND = "127.0.0.1";

    private final String cluster = "qos-" + UUID.randomUUID().toString().substring(0, 8);
    private final Path work;
    private final Path discovery;
    private final List<SchedulingPolicy> policies;
    private final List<NeptuneNode> servers = new ArrayList<>();
    /** The replicated shape's servers, to start a failed one again (a builder is single-use); empty otherwise. */
    private final List<Supplier<NeptuneNode.Builder>> recipes = new ArrayList<>();
    private final List<@Nullable NeptuneNode> down = new ArrayList<>();
    private Duration announceInterval = MembershipConfig.DEFAULT_ANNOUNCE_INTERVAL;
    private @Nullable NeptuneNode caller;

    private QosCluster(List<SchedulingPolicy> policies) {
        this.policies = List.copyOf(policies);
        try {
            work = Files.createTempDirectory("neptune-qos-");
            discovery = Files.createDirectory(work.resolve("discovery"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts one server per policy with {@code classes} (no guaranteed shares, as in section 4.5.2)
     * and the Adaptive window {@code adaptiveWindow}, and waits until the caller sees every slot.
     */
    static QosCluster start(List<SchedulingPolicy> policies, List<ServiceClass> classes, Duration adaptiveWindow) {
        if (policies.size() > WorkService.SLOTS) {
            throw new IllegalArgumentException("policies: " + policies.size() + " (expected: <= " + WorkService.SLOTS
                    + ")");
        }
        QosCluster qos = new QosCluster(policies);
        try {
            for (int slot = 0; slot < policies.size(); slot++) {
                SchedulingConfig.Builder scheduling = SchedulingConfig.builder().policy(policies.get(slot))
                        .adaptiveWindow(adaptiveWindow).decay(SCALED_DECAY);
                classes.forEach(scheduling::serviceClass);
                NodeConfig config = qos.config("qos-" + policies.get(slot).configName()).toBuilder()
                        .scheduling(scheduling.build()).build();
                qos.servers.add(NeptuneNode.builder(config).host(WorkService.forSlot(slot),
                        HostingConfig.builder().workers(WORKERS).build()).start());
            }
            qos.caller = NeptuneNode.builder(qos.config("qos-caller")).start();
            qos.awaitYellowPage();
            return qos;
        } catch (RuntimeException e) {
            qos.close();
            throw e;
        }
    }

    /**
     * Starts {@code servers} server nodes with {@code policy} and {@code classes}, each hosting slots
     * {@code 0..slots-1} with {@code workers} workers per slot; nodes announce every
     * {@code announceInterval} and the caller's client re-partitions every
     * {@code partitioningInterval} (server partitioning). Waits until the caller sees every server.
     */
    static QosCluster replicated(int servers, int slots, int workers, SchedulingPolicy policy,
            List<ServiceClass> classes, Duration adaptiveWindow, Duration announceInterval,
            Duration partitioningInterval) {
        if (slots < 1 || slots > WorkService.SLOTS) {
            throw new IllegalArgumentException("slots: " + slots + " (expected: 1.." + WorkService.SLOTS + ")");
        }
        List<SchedulingPolicy> perSlot = new ArrayList<>();
        for (int slot = 0; slot < slots; slot++) {
            perSlot.add(policy);
        }
        QosCluster qos = new QosCluster(perSlot);
        qos.announceInterval = announceInterval;
        try {
            SchedulingConfig.Builder scheduling = SchedulingConfig.builder().policy(policy)
                    .adaptiveWindow(adaptiveWindow).decay(SCALED_DECAY);
            classes.forEach(scheduling::serviceClass);
            for (int i = 0; i < servers; i++) {
                NodeConfig config = qos.config(String.format(java.util.Locale.ROOT, "qos-server-%02d", i))
                        .toBuilder().scheduling(scheduling.build()).build();
                Supplier<NeptuneNode.Builder> recipe = () -> {
                    NeptuneNode.Builder builder = NeptuneNode.builder(config);
                    for (int slot = 0; slot < slots; slot++) {
                        builder.host(WorkService.forSlot(slot), HostingConfig.builder().workers(workers).build());
                    }
                    return builder;
                };
                qos.recipes.add(recipe);
                qos.servers.add(recipe.get().start());
                qos.down.add(null);
            }
            qos.caller = NeptuneNode.builder(qos.config("qos-caller").toBuilder().client(ClientConfig.builder()
                    .partitioningInterval(partitioningInterval).build()).build()).start();
            qos.awaitReplicas(servers);
            return qos;
        } catch (RuntimeException e) {
            qos.close();
            throw e;
        }
    }

    private NodeConfig config(String node) {
        MembershipConfig membership = MembershipConfig.builder().cluster(cluster).discoveryDirectory(discovery)
                .bindAddress(BIND).port(0).announceInterval(announceInterval).build();
        return NodeConfig.builder().node(node).bindAddress(BIND).port(0).pollPort(0).ioThreads(1)
                .dataDirectory(work.resolve(node)).membership(membership).client(ClientConfig.defaults()).build();
    }

    private void awaitYellowPage() {
        awaitReplicas(1);
    }

    /** Waits until the caller sees {@code count} replicas of every slot. */
    void awaitReplicas(int count) {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        for (int slot = 0; slot < policies.size(); slot++) {
            while (caller().replicasOf(service(slot), 0).size() != count) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("timed out after " + STARTUP_TIMEOUT + " waiting for "
                            + service(slot) + " in the caller's yellow page");
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while starting the cluster", e);
                }
            }
        }
        logger.info("{}: {} servers ready ({})", cluster, servers.size(), policies);
    }

    /** The policies, slot by slot. */
    List<SchedulingPolicy> policies() {
        return policies;
    }

    /** The calling node's client. */
    NeptuneClient client() {
        return caller().client();
    }

    private NeptuneNode caller() {
        return requireNonNull(caller, "caller: started with the cluster, until close()");
    }

    /** The service of {@code slot}. */
    String service(int slot) {
        return WorkService.name(slot);
    }

    /** The class counters of {@code slot}'s server since it started. */
    List<ClassStats> stats(int slot) {
        return servers.get(slot).classStats(service(slot));
    }

    /** The replicated shape's server count, failed ones included. */
    int servers() {
        return recipes.size();
    }

    /**
     * The class counters of {@code slot} on server {@code server} since it (last) started; empty
     * while it is down. Any thread.
     */
    List<ClassStats> stats(int server, int slot) {
        NeptuneNode node;
        synchronized (down) {
            node = down.get(server) != null ? null : servers.get(server);
        }
        return node == null ? List.of() : node.classStats(service(slot));
    }

    /** Fails server {@code server} of the replicated shape: closes its node (its JGroups member leaves). */
    void fail(int server) {
        NeptuneNode node;
        synchronized (down) {
            node = servers.get(server);
            down.set(server, node);
        }
        node.close();
    }

    /** Starts failed server {@code server} again with its config (fresh counters, new ports). */
    void recover(int server) {
        synchronized (down) {
            if (down.get(server) == null) {
                throw new IllegalStateException("server " + server + " is not down");
            }
        }
        NeptuneNode node = recipes.get(server).get().start();
        synchronized (down) {
            servers.set(server, node);
            down.set(server, null);
        }
    }

    /** Stops every node and deletes the temporary directory; idempotent. */
    @Override
    public void close() {
        List<NeptuneNode> nodes = new ArrayList<>();
        synchronized (down) {
            for (int i = 0; i < servers.size(); i++) {
                if (i >= down.size() || down.get(i) == null) {
                    nodes.add(servers.get(i));
                }
            }
        }
        if (caller != null) {
            nodes.add(0, caller);
        }
        servers.clear();
        caller = null;
        for (NeptuneNode node : nodes) {
            try {
                node.close();
            } catch (RuntimeException e) {
                logger.warn("{}: close failed: {}", node.node(), e.toString());
            }
        }
        try (var files = Files.walk(work)) {
            files.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            logger.warn("cannot delete {}: {}", work, e.toString());
        }
    }
}
