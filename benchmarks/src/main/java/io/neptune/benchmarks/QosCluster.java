package io.neptune.benchmarks;

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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The single-server setting of the dissertation's section 4.5.2, once per policy, side by side in
 * this JVM on the loopback stack: one server node per {@link SchedulingPolicy}, each declaring the
 * same service classes and hosting its own slot of {@link WorkService} with {@link #WORKERS} workers
 * (the dissertation's dual-processor node), and one node hosting nothing that makes every call.
 * Policy {@code i} of {@link #policies()} serves slot {@code i}: an independent emulated server fed
 * by its own generator, so one round measures every policy under the same host noise.
 *
 * <p>Thread-safety: start and close from one thread; the accessors are thread-safe.
 */
final class QosCluster implements AutoCloseable {
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
    private NeptuneNode caller;

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
                        .adaptiveWindow(adaptiveWindow);
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

    private NodeConfig config(String node) {
        MembershipConfig membership = MembershipConfig.builder().cluster(cluster).discoveryDirectory(discovery)
                .bindAddress(BIND).port(0).build();
        return NodeConfig.builder().node(node).bindAddress(BIND).port(0).pollPort(0).ioThreads(1)
                .dataDirectory(work.resolve(node)).membership(membership).client(ClientConfig.defaults()).build();
    }

    private void awaitYellowPage() {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        for (int slot = 0; slot < policies.size(); slot++) {
            while (caller.replicasOf(service(slot), 0).size() != 1) {
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
        return caller.client();
    }

    /** The service of {@code slot}. */
    String service(int slot) {
        return WorkService.name(slot);
    }

    /** The class counters of {@code slot}'s server since it started. */
    List<ClassStats> stats(int slot) {
        return servers.get(slot).classStats(service(slot));
    }

    /** Stops every node and deletes the temporary directory; idempotent. */
    @Override
    public void close() {
        List<NeptuneNode> nodes = new ArrayList<>(servers);
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
