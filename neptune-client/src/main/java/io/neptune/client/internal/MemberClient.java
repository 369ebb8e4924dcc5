package io.neptune.client.internal;

import io.neptune.client.ClientConfig;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.membership.MembershipChannel;
import io.neptune.core.internal.membership.YellowPage;
import io.netty.channel.EventLoopGroup;
import java.util.List;

/**
 * A standalone client inside the cluster: it joins the JGroups channel as a node hosting nothing
 * and hears the announcements as every member does. It needs JGroups ({@code org.jgroups:jgroups})
 * on the class path, which {@code neptune-client} alone does not bring; a client outside the
 * cluster's network needs neither ({@link ThinClient}).
 *
 * <p>Thread-safety: stateless.
 */
public final class MemberClient {
    private static final String JGROUPS = "org.jgroups.JChannel";

    private MemberClient() {}

    /**
     * Joins the cluster as {@code node} and returns a client that connects to the nodes as
     * {@code security} says.
     *
     * @throws NeptuneException if JGroups is not on the class path
     */
    public static DefaultNeptuneClient connect(NodeId node, MembershipConfig membership, ClientConfig config,
            SecurityConfig security) {
        requireJGroups();
        YellowPage yellowPage = new YellowPage(node, membership.expiry(), System::nanoTime);
        MembershipChannel channel = new MembershipChannel(node, membership, security, yellowPage);
        channel.start();
        EventLoopGroup group = EventLoops.create(node.value(), EventLoops.defaultThreads());
        AutoCloseable shutdownGroup = EventLoops.shutdownOnClose(group);
        DefaultNeptuneClient client = new DefaultNeptuneClient(node, config, yellowPage, group,
                membership.bindAddress(), null, new LoadTracker(), List.of(channel, shutdownGroup), ClientMetrics.none(),
                security);
        client.traceWith(Tracing.global());
        return client;
    }

    private static void requireJGroups() {
        try {
            Class.forName(JGROUPS, false, MemberClient.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new NeptuneException("a client that joins the cluster needs JGroups on the class path"
                    + " (add org.jgroups:jgroups, or depend on neptune-server); a client outside the cluster needs"
                    + " only neptune-client: NeptuneClient.connect(ClientConfig) with seeds");
        }
    }
}
