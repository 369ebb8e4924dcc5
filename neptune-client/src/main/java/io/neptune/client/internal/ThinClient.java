package io.neptune.client.internal;

import io.neptune.client.ClientConfig;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.membership.YellowPage;
import io.netty.channel.EventLoopGroup;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A client outside the cluster: it reaches the nodes' request ports (and their load-poll ports) and
 * nothing else, and learns the yellow page from any node ({@link YellowPageFollower}), so it needs no
 * JGroups and adds nothing to the membership view.
 *
 * <p>Thread-safety: stateless.
 */
public final class ThinClient {
    /** Where the load poller listens: any local address, since the nodes may be anywhere the seeds lead. */
    private static final String ANY_ADDRESS = "0.0.0.0";

    private ThinClient() {}

    /**
     * Returns a client that has its first yellow page from one of {@code config}'s seeds.
     *
     * @throws IllegalArgumentException if {@code config} names no seed
     * @throws NeptuneException if no seed answered within {@code config}'s call timeout, saying what each did
     */
    public static DefaultNeptuneClient connect(ClientConfig config, SecurityConfig security, ClientMetrics metrics) {
        if (config.seeds().isEmpty()) {
            throw new IllegalArgumentException("seeds: empty (expected: host:port of at least one node's request port,"
                    + " or a DNS name listing the nodes, e.g. ClientConfig.builder().seeds(\"neptune:7000\"))");
        }
        NodeId node = NodeId.of("client-" + ProcessHandle.current().pid() + "-"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000, 0x100000)));
        YellowPage yellowPage = new YellowPage(node, MembershipConfig.DEFAULT_EXPIRY, System::nanoTime);
        EventLoopGroup group = EventLoops.create(node.value(), EventLoops.defaultThreads());
        AutoCloseable shutdownGroup = EventLoops.shutdownOnClose(group);
        Connector connector = new Connector(group, config.connectTimeout(), config.maxFrameBytes(),
                new ClientTls(security, yellowPage));
        YellowPageFollower follower = new YellowPageFollower(node, yellowPage, connector,
                config.seeds().stream().map(Seed::parse).toList(), config.directoryRefresh(), config.connectTimeout());
        DefaultNeptuneClient client = new DefaultNeptuneClient(node, config, yellowPage, group, ANY_ADDRESS, null,
                new LoadTracker(), List.of(follower, shutdownGroup), metrics, security);
        client.traceWith(Tracing.global());
        try {
            follower.start();
            follower.awaitFirstPage(config.timeout());
            return client;
        } catch (RuntimeException e) {
            client.close();
            throw e;
        }
    }
}
