package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.core.ClassStats;
import io.neptune.core.MembershipConfig;
import io.neptune.core.ServiceClass;
import io.neptune.server.HostingConfig;
import io.neptune.server.MiniCluster;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.SchedulingPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
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

    private final MiniCluster cluster;
    private final List<SchedulingPolicy> policies;
    /** The servers, in slot (or server) order; guarded by {@code down}, swapped by {@link #recover}. */
    private final List<NeptuneNode> servers = new ArrayList<>();
    /** The replicated shape's server configs, to start a failed one again; empty otherwise. */
    private final List<NodeConfig> configs = new ArrayList<>();
    /** The replicated shape's hosting (slots {@code 0..slots-1} on every server). */
    private Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting = b -> b;
    private final List<@Nullable NeptuneNode> down = new ArrayList<>();
    private @Nullable NeptuneNode caller;

    private QosCluster(List<SchedulingPolicy> policies, Duration announceInterval) {
        this.policies = List.copyOf(policies);
        this.cluster = MiniCluster.builder().name("qos").defaultMembershipTiming().announceInterval(announceInterval)
                .ioThreads(1).build();
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
        QosCluster qos = new QosCluster(policies, MembershipConfig.DEFAULT_ANNOUNCE_INTERVAL);
        try {
            for (int slot = 0; slot < policies.size(); slot++) {
                NodeConfig config = qos.cluster.config("qos-" + policies.get(slot).configName()).toBuilder()
                        .scheduling(scheduling(policies.get(slot), classes, adaptiveWindow)).build();
                int served = slot;
                qos.servers.add(qos.cluster.add(config, b -> b.host(WorkService.forSlot(served),
                        HostingConfig.builder().workers(WORKERS).build())));
            }
            qos.caller = qos.cluster.add(qos.cluster.config("qos-caller"), b -> b);
            qos.awaitYellowPage();
            return qos;
        } catch (RuntimeException e) {
            MiniCluster.closeAfter(qos.cluster, e);
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
        QosCluster qos = new QosCluster(perSlot, announceInterval);
        qos.hosting = builder -> {
            for (int slot = 0; slot < slots; slot++) {
                builder.host(WorkService.forSlot(slot), HostingConfig.builder().workers(workers).build());
            }
            return builder;
        };
        try {
            SchedulingConfig scheduling = scheduling(policy, classes, adaptiveWindow);
            for (int i = 0; i < servers; i++) {
                NodeConfig config = qos.cluster.config(String.format(Locale.ROOT, "qos-server-%02d", i)).toBuilder()
                        .scheduling(scheduling).build();
                qos.configs.add(config);
                qos.servers.add(qos.cluster.add(config, qos.hosting));
                qos.down.add(null);
            }
            qos.caller = qos.cluster.add(qos.cluster.config("qos-caller", ClientConfig.builder()
                    .partitioningInterval(partitioningInterval).build()), b -> b);
            qos.awaitReplicas(servers);
            return qos;
        } catch (RuntimeException e) {
            MiniCluster.closeAfter(qos.cluster, e);
            throw e;
        }
    }

    private static SchedulingConfig scheduling(SchedulingPolicy policy, List<ServiceClass> classes,
            Duration adaptiveWindow) {
        SchedulingConfig.Builder scheduling = SchedulingConfig.builder().policy(policy).adaptiveWindow(adaptiveWindow)
                .decay(SCALED_DECAY);
        classes.forEach(scheduling::serviceClass);
        return scheduling.build();
    }

    private void awaitYellowPage() {
        awaitReplicas(1);
    }

    /** Waits until the caller sees {@code count} replicas of every slot. */
    void awaitReplicas(int count) {
        for (int slot = 0; slot < policies.size(); slot++) {
            String service = service(slot);
            MiniCluster.await(service + " in the caller's yellow page", STARTUP_TIMEOUT,
                    () -> caller().replicasOf(service, 0).size() == count);
        }
        logger.info("{}: {} servers ready ({})", cluster.name(), servers.size(), policies);
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
        return configs.size();
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
        NeptuneNode node = cluster.restart(server, configs.get(server), hosting);
        synchronized (down) {
            servers.set(server, node);
            down.set(server, null);
        }
    }

    /** Stops every node and deletes the temporary directory; idempotent. */
    @Override
    public void close() {
        synchronized (down) {
            servers.clear();
        }
        caller = null;
        cluster.close();
    }
}
