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
import io.neptune.server.MiniCluster;
import io.neptune.server.NodeConfig;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
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

    private final MiniCluster cluster;
    private final int slots;
    private final LoadTracker tracker = new LoadTracker();
    private final List<ClientNode> clientNodes = new ArrayList<>();

    private BalancingCluster(int slots, Duration announceInterval) {
        this.slots = slots;
        // Client nodes and servers close all at once: one by one, 20 JGroups members leaving take about 20 s.
        this.cluster = MiniCluster.builder().name("lb").announceInterval(announceInterval)
                .expiry(max(MembershipConfig.DEFAULT_EXPIRY, announceInterval.multipliedBy(4))).ioThreads(1)
                .closeInParallel().build();
    }

    /**
     * Starts the nodes, hosting slots {@code 0..slots-1} on every server, and waits until every
     * client node's yellow page lists all 16 replicas of every slot.
     */
    static BalancingCluster start(int slots, Duration announceInterval) {
        BalancingCluster lb = new BalancingCluster(slots, announceInterval);
        try {
            for (int i = 1; i <= SERVERS; i++) {
                lb.cluster.add(lb.cluster.config(String.format("server-%02d", i)), builder -> {
                    for (int slot = 0; slot < slots; slot++) {
                        builder.host(WorkService.forSlot(slot), HostingConfig.builder().workers(WORKERS).build());
                    }
                    return builder;
                });
            }
            for (int i = 1; i <= CLIENT_NODES; i++) {
                lb.clientNodes.add(lb.cluster.closeWith(new ClientNode(NodeId.of("client-" + i),
                        lb.cluster.membership(), lb.tracker)));
            }
            lb.awaitYellowPages();
            return lb;
        } catch (RuntimeException e) {
            MiniCluster.closeAfter(lb.cluster, e);
            throw e;
        }
    }

    private void awaitYellowPages() {
        MiniCluster.await("every client node's yellow page to list " + SERVERS + " replicas of each of " + slots
                + " slots", STARTUP_TIMEOUT, () -> clientNodes.stream().allMatch(node -> IntStream.range(0, slots)
                        .allMatch(slot -> node.yellowPage.replicas(WorkService.name(slot), 0).size() >= SERVERS)));
        logger.info("{}: {} servers x {} slots and {} client nodes ready", cluster.name(), SERVERS, slots,
                CLIENT_NODES);
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

    /** Stops every node, client nodes first, all at once, and deletes the temporary directory; idempotent. */
    @Override
    public void close() {
        clientNodes.clear();
        cluster.close();
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
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
                    group, NodeConfig.DEFAULT_BIND_ADDRESS, null, tracker, List.of()));
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
