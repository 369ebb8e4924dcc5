package io.neptune.server;

import static java.util.Objects.requireNonNull;

import io.neptune.client.NeptuneClient;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.client.internal.EventLoops;
import io.neptune.client.internal.LoadTracker;
import io.neptune.client.internal.LocalEndpoint;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.ServiceDefinitionException;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.Lifecycle;
import io.neptune.core.internal.membership.MembershipChannel;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.internal.AvailabilityPublisher;
import io.neptune.server.internal.LoadIndexServer;
import io.neptune.server.internal.RequestServer;
import io.neptune.server.internal.Router;
import io.neptune.server.internal.ServiceRuntime;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Neptune node: one process's server module (request server, service queues and workers,
 * load-index server, availability publisher) and client module, sharing one yellow page.
 *
 * <pre>{@code
 * try (NeptuneNode node = NeptuneNode.builder(NodeConfig.builder().node("n1").build())
 *         .host(new EchoService(), HostingConfig.all())
 *         .start()) {
 *     EchoReply reply = node.client().call(NeptuneHandle.create(), "echo", 3, "echo", AccessMode.READ,
 *             new EchoRequest("hi"), EchoReply.class);
 * }
 * }</pre>
 *
 * <p>Thread-safety: thread-safe. Lifecycle: NEW → STARTING → RUNNING → STOPPING → STOPPED.
 */
public final class NeptuneNode implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(NeptuneNode.class);

    private final NodeConfig config;
    private final NodeId node;
    private final Lifecycle lifecycle;
    private final Map<String, ServiceRuntime> services;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private @Nullable EventLoopGroup group;
    private @Nullable RequestServer requestServer;
    private @Nullable LoadIndexServer loadIndexServer;
    private @Nullable YellowPage yellowPage;
    private @Nullable DefaultNeptuneClient client;

    private NeptuneNode(NodeConfig config, Map<String, ServiceRuntime> services) {
        this.config = config;
        this.node = config.node();
        this.lifecycle = new Lifecycle("node " + node);
        this.services = Map.copyOf(services);
    }

    /** Returns a builder for a node with {@code config}. */
    public static Builder builder(NodeConfig config) {
        return new Builder(config);
    }

    private NeptuneNode start() {
        lifecycle.transition(Lifecycle.State.STARTING);
        try {
            logger.info("{}: starting with {}", node, config);
            EventLoopGroup io = EventLoops.create(node.value(), config.ioThreads());
            group = io;
            resources.add(() -> io.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly());
            ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "neptune-" + node + "-publisher");
                thread.setDaemon(true);
                return thread;
            });
            resources.add(scheduler::shutdownNow);
            services.values().forEach(ServiceRuntime::start);
            resources.addAll(services.values());

            YellowPage page = new YellowPage(node, config.membership().expiry(), System::nanoTime);
            yellowPage = page;
            Router router = new Router(node, services, page);
            RequestServer server = new RequestServer(node, io, config.bindAddress(), config.port(),
                    config.maxFrameBytes(), router);
            requestServer = server;
            resources.add(server);
            LoadIndexServer loads = new LoadIndexServer(node, io, config.bindAddress(), config.pollPort(), services);
            loadIndexServer = loads;
            resources.add(loads);

            MembershipChannel membership = new MembershipChannel(node, config.membership(), page);
            resources.add(membership);
            membership.start();
            client = new DefaultNeptuneClient(node, config.client(), page, io, config.bindAddress(),
                    new Local(router), new LoadTracker(), List.of());
            resources.add(client);
            AvailabilityPublisher publisher = new AvailabilityPublisher(node, server.address(), loads.address(), router,
                    membership, page, config.membership().announceInterval(), scheduler);
            resources.add(publisher);
            if (!services.isEmpty()) {
                publisher.start();
            }
            lifecycle.transition(Lifecycle.State.RUNNING);
            logger.info("{}: running; requests on {}, polls on {}, hosting {}", node, server.address(),
                    loads.address(), services.keySet());
            return this;
        } catch (RuntimeException e) {
            lifecycle.transition(Lifecycle.State.FAILED);
            close();
            throw e;
        }
    }

    /** This node's id. */
    public NodeId node() {
        return node;
    }

    /** The client module of this node; calls to partitions hosted here stay in-process. */
    public NeptuneClient client() {
        return requireNonNull(client, "client (node not started)");
    }

    /** The TCP request server's address. */
    public InetSocketAddress requestAddress() {
        return requireNonNull(requestServer, "requestServer (node not started)").address();
    }

    /** The UDP load-index server's address. */
    public InetSocketAddress pollAddress() {
        return requireNonNull(loadIndexServer, "loadIndexServer (node not started)").address();
    }

    /** Open TCP connections from clients to this node's request server. */
    public int inboundConnections() {
        return requireNonNull(requestServer, "requestServer (node not started)").connections();
    }

    /** The nodes currently in this node's yellow page, itself included once it announced. */
    public Set<NodeId> knownNodes() {
        Set<NodeId> nodes = new TreeSet<>((a, b) -> a.value().compareTo(b.value()));
        requireNonNull(yellowPage, "yellowPage (node not started)").announcements()
                .forEach(a -> nodes.add(NodeId.of(a.node())));
        return Collections.unmodifiableSet(nodes);
    }

    /** The live replicas the yellow page knows for {@code service#partition}, by node. */
    public List<NodeId> replicasOf(String service, int partition) {
        return requireNonNull(yellowPage, "yellowPage (node not started)").replicas(service, partition).stream()
                .map(r -> r.node()).toList();
    }

    /** Requests served by each hosted service since start. */
    public Map<String, Long> served() {
        Map<String, Long> served = new LinkedHashMap<>();
        services.forEach((name, runtime) -> served.put(name, runtime.served()));
        return served;
    }

    /** The current lifecycle state. */
    public Lifecycle.State state() {
        return lifecycle.state();
    }

    /** Leaves the cluster, refuses queued requests and stops every thread; idempotent. */
    @Override
    public void close() {
        if (!lifecycle.tryTransition(Lifecycle.State.STOPPING)) {
            return;
        }
        logger.info("{}: stopping", node);
        List<AutoCloseable> reversed = new ArrayList<>(resources);
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
        lifecycle.transition(Lifecycle.State.STOPPED);
        logger.info("{}: stopped", node);
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        return "NeptuneNode[" + node + ", " + lifecycle.state() + "]";
    }

    /** In-process calls: the chosen replica is this node, so skip the network. */
    private final class Local implements LocalEndpoint {
        private final Router router;

        Local(Router router) {
            this.router = router;
        }

        @Override
        public NodeId node() {
            return node;
        }

        @Override
        public CompletableFuture<ResponseMessage> invoke(RequestMessage request) {
            CompletableFuture<ResponseMessage> response = new CompletableFuture<>();
            router.route(request, response::complete);
            return response;
        }
    }

    /** Collects the services to host; single-use, not thread-safe. */
    public static final class Builder {
        private final NodeConfig config;
        private final Map<String, ServiceRuntime> services = new LinkedHashMap<>();

        private Builder(NodeConfig config) {
            this.config = requireNonNull(config, "config");
        }

        /**
         * Hosts {@code service}, an instance of a {@link io.neptune.core.NeptuneService} class.
         *
         * @throws ServiceDefinitionException if the class is not a valid service or is hosted twice
         */
        public Builder host(Object service, HostingConfig hosting) {
            requireNonNull(service, "service");
            requireNonNull(hosting, "hosting");
            ServiceDescriptor descriptor = ServiceDescriptor.of(service.getClass());
            if (services.containsKey(descriptor.name())) {
                throw new ServiceDefinitionException(service.getClass(), "service '" + descriptor.name()
                        + "' is already hosted on this node (expected: once)");
            }
            services.put(descriptor.name(), new ServiceRuntime(config.node(), descriptor, service, hosting));
            return this;
        }

        /** Starts the node: binds its servers, joins the cluster and announces its replicas. */
        public NeptuneNode start() {
            return new NeptuneNode(config, services).start();
        }
    }
}
