package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.client.NeptuneClient;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.client.internal.EventLoops;
import io.neptune.client.internal.LoadTracker;
import io.neptune.client.internal.LocalEndpoint;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.MembershipChannel;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.ClusterAdmin;
import io.neptune.server.NodeConfig;
import io.neptune.server.internal.replication.ReplicationEngine;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The wiring of one started node: event loops, request and load-index servers, service runtimes,
 * membership, publisher and the embedded client. Constructing it starts everything; {@link #close()}
 * releases in reverse order.
 *
 * <p>Thread-safety: thread-safe after construction; {@link #close()} is called once by the node.
 */
public final class NodeRuntime implements AutoCloseable {
    private final NodeId node;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final YellowPage yellowPage;
    private final RequestServer requestServer;
    private final LoadIndexServer loadIndexServer;
    private final DefaultNeptuneClient client;
    private final Map<String, ServiceRuntime> services;

    /** Starts the node's components; on failure releases what was started and rethrows. */
    public NodeRuntime(NodeConfig config, Map<String, ServiceRuntime> services) {
        this.node = config.node();
        this.services = Map.copyOf(services);
        try {
            EventLoopGroup io = EventLoops.create(node.value(), config.ioThreads());
            resources.add(() -> io.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly());
            ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "neptune-" + node + "-publisher");
                thread.setDaemon(true);
                return thread;
            });
            resources.add(scheduler::shutdownNow);
            for (ServiceRuntime service : services.values()) {
                service.start(ReplicationEngine.serviceDirectory(config, service.descriptor().name()));
                resources.add(service);
            }

            yellowPage = new YellowPage(node, config.membership().expiry(), System::nanoTime);
            ReplicationEngine replication = new ReplicationEngine(config, services, yellowPage);
            resources.add(replication);
            for (ServiceRuntime service : services.values()) {
                String name = service.descriptor().name();
                service.versions(partition -> replication.readVersion(name, partition));
            }
            Router router = new Router(node, services, yellowPage, replication);
            requestServer = new RequestServer(node, io, config.bindAddress(), config.port(), config.maxFrameBytes(),
                    router);
            resources.add(requestServer);
            loadIndexServer = new LoadIndexServer(node, io, config.bindAddress(), config.pollPort(), services);
            resources.add(loadIndexServer);

            MembershipChannel membership = new MembershipChannel(node, config.membership(), yellowPage);
            resources.add(membership);
            membership.start();
            client = new DefaultNeptuneClient(node, config.client(), yellowPage, io, config.bindAddress(),
                    new Local(router), new LoadTracker(), List.of());
            resources.add(client);
            AvailabilityPublisher publisher = new AvailabilityPublisher(node, requestServer.address(),
                    loadIndexServer.address(), router, replication, membership, yellowPage,
                    config.membership().announceInterval(), scheduler);
            resources.add(publisher);
            replication.start(client, publisher::publishNow);
            if (!services.isEmpty()) {
                publisher.start();
            }
        } catch (RuntimeException | Error e) { // whatever failed, stop what was started
            try {
                close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /** The embedded client. */
    public NeptuneClient client() {
        return client;
    }

    /** The request server's address. */
    public InetSocketAddress requestAddress() {
        return requestServer.address();
    }

    /** The load-index server's address. */
    public InetSocketAddress pollAddress() {
        return loadIndexServer.address();
    }

    /** Open client connections to the request server. */
    public int inboundConnections() {
        return requestServer.connections();
    }

    /** Streams open on the request server. */
    public int openStreams() {
        return requestServer.streams();
    }

    /** The latest announcement of every node in the yellow page. */
    public Collection<Announcement> announcements() {
        return yellowPage.announcements();
    }

    /** The live replicas of {@code service#partition}, by node. */
    public List<NodeId> replicasOf(String service, int partition) {
        return yellowPage.replicas(service, partition).stream().map(r -> r.node()).toList();
    }

    /** The operator's view of the cluster through this node. */
    public ClusterAdmin admin() {
        return new DefaultClusterAdmin(yellowPage, client);
    }

    /** The role of each live replica of {@code service#partition}, by node. */
    public Map<NodeId, ReplicaRole> replicaRoles(String service, int partition) {
        Map<NodeId, ReplicaRole> roles = new java.util.TreeMap<>(java.util.Comparator.comparing(NodeId::value));
        yellowPage.replicas(service, partition).forEach(r -> roles.put(r.node(), r.role()));
        return roles;
    }

    /** The hosted services by name. */
    public Map<String, ServiceRuntime> services() {
        return services;
    }

    /** Releases every component in reverse order of start; the first failure is thrown after all ran. */
    @Override
    public void close() {
        List<AutoCloseable> reversed = new ArrayList<>(resources);
        resources.clear();
        Collections.reverse(reversed);
        RuntimeException failure = null;
        for (AutoCloseable resource : reversed) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure == null) {
                    failure = new NeptuneException(node + ": close failed: " + e.getMessage(), e);
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    /** In-process calls: the chosen replica is this node, so skip the network. */
    private final class Local implements LocalEndpoint {
        private final Router router;

        Local(Router router) {
            this.router = requireNonNull(router, "router");
        }

        @Override
        public NodeId node() {
            return node;
        }

        @Override
        public CompletableFuture<ResponseMessage> invoke(RequestMessage request) {
            CompletableFuture<ResponseMessage> response = new CompletableFuture<>();
            router.route(request, answer -> response.complete(answer.withLoad(router.load(request))));
            return response;
        }
    }
}
