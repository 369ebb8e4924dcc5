package io.neptune.benchmarks;

import io.neptune.client.NeptuneClient;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.client.internal.EventLoops;
import io.neptune.client.internal.LoadTracker;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.membership.MembershipChannel;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.server.HostingConfig;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The emulated cluster of {@link LoadBalancingExperiment}, in this JVM on the loopback stack: 16
 * server nodes, each hosting every slot's {@link WorkService} (one partition, replicated on all 16,
 * one worker), and 4 client nodes hosting nothing. A client node is a JGroups member with its own
 * yellow page and event loops; on it, one {@link DefaultNeptuneClient} per {@link PolicySetup}
 * (poll size and slow-poll handling are per-client settings).
 *
 * <p>Every client of every client node shares one {@link LoadTracker}, the dissertation's central
 * load index manager for the ideal policy. No hook is needed for that: the benchmark builds the
 * clients itself with {@code DefaultNeptuneClient}'s public constructor (it is internal API, which
 * the benchmarks module may use), the way {@code DefaultNeptuneClient.standalone} does.
 *
 * <p>Thread-safety: start and close from one thread; {@link #clients} is thread-safe.
 */
final class BalancingCluster implements AutoCloseable {
    /** Server nodes. */
    static final int SERVERS = 16;
    /** Workers per server and slot: the dissertation's single processing unit. */
    static final int WORKERS = 1;
    /** Client nodes. */
    static final int CLIENT_NODES = 4;

    private static final Logger logger = LoggerFactory.getLogger(BalancingCluster.class);
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final String BIND = "127.0.0.1";

    private final String cluster = "lb-" + UUID.randomUUID().toString().substring(0, 8);
    private final Path work;
    private final int slots;
    private final MembershipConfig membership;
    private final LoadTracker tracker = new LoadTracker();
    private final List<NeptuneNode> servers = new ArrayList<>();
    private final List<ClientNode> clientNodes = new ArrayList<>();

    private BalancingCluster(int slots, Duration announceInterval) {
        this.slots = slots;
        try {
            work = Files.createTempDirectory("neptune-lb-");
            membership = MembershipConfig.builder().cluster(cluster).discoveryDirectory(Files.createDirectory(
                    work.resolve("discovery"))).bindAddress(BIND).port(0).announceInterval(announceInterval)
                    .expiry(max(MembershipConfig.DEFAULT_EXPIRY, announceInterval.multipliedBy(4))).build();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts the nodes, hosting slots {@code 0..slots-1} on every server, and waits until every
     * client node's yellow page lists all 16 replicas of every slot.
     */
    static BalancingCluster start(int slots, Duration announceInterval) {
        BalancingCluster lb = new BalancingCluster(slots, announceInterval);
        try {
            for (int i = 1; i <= SERVERS; i++) {
                NeptuneNode.Builder builder = NeptuneNode.builder(lb.serverConfig(String.format("server-%02d", i)));
                for (int slot = 0; slot < slots; slot++) {
                    builder.host(WorkService.forSlot(slot), HostingConfig.builder().workers(WORKERS).build());
                }
                lb.servers.add(builder.start());
            }
            for (int i = 1; i <= CLIENT_NODES; i++) {
                lb.clientNodes.add(new ClientNode(NodeId.of("client-" + i), lb.membership, lb.tracker));
            }
            lb.awaitYellowPages();
            return lb;
        } catch (RuntimeException e) {
            lb.close();
            throw e;
        }
    }

    private NodeConfig serverConfig(String node) {
        return NodeConfig.builder().node(node).bindAddress(BIND).port(0).pollPort(0).ioThreads(1)
                .dataDirectory(work.resolve(node)).membership(membership).build();
    }

    private void awaitYellowPages() {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        for (ClientNode node : clientNodes) {
            for (int slot = 0; slot < slots; slot++) {
                while (node.yellowPage.replicas(WorkService.name(slot), 0).size() < SERVERS) {
                    if (System.nanoTime() - deadline > 0) {
                        throw new IllegalStateException(node.node + ": timed out after " + STARTUP_TIMEOUT
                                + " waiting for " + SERVERS + " replicas of " + WorkService.name(slot) + " (has "
                                + node.yellowPage.replicas(WorkService.name(slot), 0).size() + ")");
                    }
                    pause();
                }
            }
        }
        logger.info("{}: {} servers x {} slots and {} client nodes ready", cluster, SERVERS, slots, CLIENT_NODES);
    }

    /** The clients of {@code setup}, one per client node; created on first use. */
    List<NeptuneClient> clients(PolicySetup setup) {
        return clientNodes.stream().map(n -> n.client(setup)).toList();
    }

    /** Load polls the clients of {@code setup} sent so far, all client nodes together. */
    long pollsSent(PolicySetup setup) {
        return clientNodes.stream().mapToLong(n -> n.pollsSent(setup)).sum();
    }

    /** The load-index (poll) addresses of the servers of {@code slot}, as a client node sees them. */
    List<InetSocketAddress> pollAddresses(int slot) {
        return clientNodes.get(0).yellowPage.replicas(service(slot), 0).stream().map(Replica::pollAddress).toList();
    }

    /** The service name of {@code slot}. */
    String service(int slot) {
        if (slot < 0 || slot >= slots) {
            throw new IllegalArgumentException("slot: " + slot + " (expected: 0.." + (slots - 1) + ")");
        }
        return WorkService.name(slot);
    }

    /**
     * Stops every node and deletes the temporary directory; idempotent. Nodes stop in parallel, client
     * nodes first: one by one, 20 JGroups members leaving take about 20 s on this host.
     */
    @Override
    public void close() {
        closeAll(new ArrayList<>(clientNodes));
        clientNodes.clear();
        closeAll(new ArrayList<>(servers));
        servers.clear();
        try (var files = Files.walk(work)) {
            files.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            logger.warn("cannot delete {}: {}", work, e.toString());
        }
    }

    private static void closeAll(List<? extends AutoCloseable> nodes) {
        List<Thread> closing = new ArrayList<>();
        for (AutoCloseable node : nodes) {
            Thread thread = new Thread(() -> {
                try {
                    node.close();
                } catch (Exception e) {
                    logger.warn("{}: close failed: {}", node, e.toString());
                }
            }, "lb-close-" + closing.size());
            thread.setDaemon(true);
            thread.start();
            closing.add(thread);
        }
        for (Thread thread : closing) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    private static void pause() {
        try {
            TimeUnit.MILLISECONDS.sleep(20);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting the cluster", e);
        }
    }

    /** A node hosting nothing: membership, yellow page, event loops, and one client per policy setup. */
    private static final class ClientNode implements AutoCloseable {
        private final NodeId node;
        private final LoadTracker tracker;
        private final YellowPage yellowPage;
        private final MembershipChannel channel;
        private final EventLoopGroup group;
        private final Map<PolicySetup, DefaultNeptuneClient> clients = new HashMap<>();

        ClientNode(NodeId node, MembershipConfig membership, LoadTracker tracker) {
            this.node = node;
            this.tracker = tracker;
            this.yellowPage = new YellowPage(node, membership.expiry(), System::nanoTime);
            this.channel = new MembershipChannel(node, membership, SecurityConfig.disabled(), yellowPage);
            this.group = EventLoops.create(node.value(), 2);
            try {
                channel.start();
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        synchronized NeptuneClient client(PolicySetup setup) {
            return clients.computeIfAbsent(setup, s -> new DefaultNeptuneClient(node, s.clientConfig(), yellowPage,
                    group, BIND, null, tracker, List.of()));
        }

        synchronized long pollsSent(PolicySetup setup) {
            DefaultNeptuneClient client = clients.get(setup);
            return client == null ? 0 : client.pollsSent();
        }

        @Override
        public String toString() {
            return node.value();
        }

        @Override
        public synchronized void close() {
            for (DefaultNeptuneClient client : clients.values()) {
                try {
                    client.close();
                } catch (RuntimeException e) {
                    logger.warn("{}: client close failed: {}", node, e.toString());
                }
            }
            clients.clear();
            channel.close();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
