package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.MeterRegistry;
import io.neptune.client.NeptuneClient;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.client.internal.Tracing;
import io.neptune.client.internal.EventLoops;
import io.neptune.client.internal.LoadTracker;
import io.neptune.client.internal.LocalEndpoint;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.MembershipChannel;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.tls.TlsContext;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.WireFormat;
import io.neptune.server.ClusterAdmin;
import io.neptune.server.NodeConfig;
import io.neptune.server.internal.replication.runtime.ReplicationEngine;
import io.neptune.server.internal.security.AdminToken;
import io.neptune.server.internal.security.Caller;
import io.neptune.server.internal.security.CallerClasses;
import io.neptune.server.internal.security.ConnectionLimits;
import io.neptune.server.internal.security.ConnectionSecurity;
import io.netty.channel.EventLoopGroup;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wiring of one started node: event loops, request and load-index servers, service runtimes,
 * membership, publisher and the embedded client. Constructing it starts everything; {@link #close()}
 * releases in reverse order.
 *
 * <p>Thread-safety: thread-safe after construction; {@link #close()} is called once by the node.
 */
public final class NodeRuntime implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(NodeRuntime.class);

    private final NodeId node;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final YellowPage yellowPage;
    private final RequestServer requestServer;
    private final LoadIndexServer loadIndexServer;
    private final DefaultNeptuneClient client;
    private final Map<String, ServiceRuntime> services;
    private final NodeMetrics metrics;
    private final ReplicationEngine replication;
    private final @Nullable AdminServer adminServer;
    private final BooleanSupplier running;
    private final Router router;
    private final AvailabilityPublisher publisher;

    /**
     * Starts the node's components; on failure releases what was started and rethrows.
     *
     * @param running whether the node counts as running (its lifecycle), for {@code /health/ready}
     * @param drainRequested starts draining and then stopping the node with the given timeout, when an
     *     operator asks for it over the network ({@link NodeControl}); must not block
     * @param telemetry where the node's meters and spans go
     */
    public NodeRuntime(NodeConfig config, Map<String, ServiceRuntime> services, BooleanSupplier running,
            Consumer<Duration> drainRequested, Telemetry telemetry) {
        this.node = config.node();
        this.services = Map.copyOf(services);
        this.running = running;
        try {
            MeterRegistry meterRegistry = telemetry.meterRegistry();
            metrics = meterRegistry == null ? NodeMetrics.own(node) : NodeMetrics.into(node, meterRegistry);
            // a node that speaks version 1 cannot pass a trace context on: it records no spans either
            Tracing tracing = config.wireVersion() >= WireFormat.VERSION_2 ? new Tracing(telemetry.openTelemetry())
                    : Tracing.OFF;
            resources.add(metrics);
            EventLoopGroup io = EventLoops.create(node.value(), config.ioThreads());
            resources.add(() -> io.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly());
            ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "neptune-" + node + "-publisher");
                thread.setDaemon(true);
                return thread;
            });
            resources.add(scheduler::shutdownNow);
            PlacementStore placement = new PlacementStore(config.dataDirectory());
            for (ServiceRuntime service : services.values()) {
                // an operator's add-replica or remove-replica overrides the config's partitions
                placement.partitions(service.descriptor().name()).ifPresent(service.partitions()::place);
                if (service.partitions().hosted().isEmpty() && !ReplicationEngine.acceptsPlacement(service)) {
                    logger.warn("{}: hosts no partition of '{}', and add-replica cannot place one here (only a"
                            + " level-2/3 service in majority mode takes placement changes): it serves nothing of it"
                            + " until its config's partitions: name some", node, service.descriptor().name());
                }
            }
            for (ServiceRuntime service : services.values()) {
                service.start(ReplicationEngine.serviceDirectory(config, service.descriptor().name()));
                resources.add(service);
            }

            yellowPage = new YellowPage(node, config.membership().expiry(), System::nanoTime);
            metrics.bindServices(services.values());
            metrics.bindYellowPage(yellowPage);
            replication = new ReplicationEngine(config, services, yellowPage, metrics.registry(), placement);
            resources.add(replication);
            for (ServiceRuntime service : services.values()) {
                String name = service.descriptor().name();
                service.versions(partition -> replication.readVersion(name, partition));
            }
            ExecutorService placementThread = placementThread();
            router = new Router(node, services, yellowPage, replication, metrics.serverCalls(),
                    new NodeControl(node, replication, drainRequested, placementThread),
                    new CallerClasses(config.scheduling().callerClasses()));
            router.traceWith(tracing);
            router.speak(config.wireVersion());
            replication.traceWith(tracing);
            requestServer = new RequestServer(node, io, config.bindAddress(), config.port(), config.maxFrameBytes(),
                    config.frameTimeout(), router, new ConnectionSecurity(node, config.security()),
                    new ConnectionLimits(config.maxConnections(), config.maxConnectionsPerAddress(),
                            config.maxStreamsPerConnection()));
            resources.add(requestServer);
            metrics.bindRequestServer(requestServer);
            adminServer = config.hasAdminPort() ? new AdminServer(node, io, config.bindAddress(), config.adminPort(),
                    adminSettings(config), metrics, this::health) : null;
            if (adminServer != null) {
                resources.add(adminServer);
                metrics.bindAdminServer(adminServer);
            }
            loadIndexServer = new LoadIndexServer(node, io, config.bindAddress(), config.pollPort(), services,
                    config.security().clusterSecret());
            resources.add(loadIndexServer);

            // a node without services (an admin tool's) announces nothing and must not coordinate the group
            MembershipChannel.Role role = services.isEmpty() ? MembershipChannel.Role.CLIENT
                    : MembershipChannel.Role.SERVER;
            MembershipChannel membership = new MembershipChannel(node, config.membership(), config.security(), yellowPage,
                    role);
            resources.add(membership);
            metrics.bindMembership(membership);
            membership.start();
            client = new DefaultNeptuneClient(node, config.client(), yellowPage, io, config.bindAddress(),
                    new Local(router), new LoadTracker(), List.of(), metrics.client(), config.security());
            resources.add(client);
            client.traceWith(tracing);
            for (ServiceRuntime service : services.values()) {
                service.callThrough(client);
            }
            publisher = new AvailabilityPublisher(node, requestServer.address(),
                    loadIndexServer.address(), adminServer == null ? 0 : adminServer.address().getPort(), router,
                    replication, membership, yellowPage,
                    config.membership().announceInterval(), scheduler, requestServer.security().acceptsTls());
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

    /** The thread that carries out placement changes, stopped (after the change under way) before the services. */
    private ExecutorService placementThread() {
        ExecutorService placementThread = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "neptune-" + node + "-placement");
            thread.setDaemon(true);
            return thread;
        });
        resources.add(() -> { // a placement change under way ends before the services stop
            placementThread.shutdown();
            if (!placementThread.awaitTermination(30, TimeUnit.SECONDS)) {
                placementThread.shutdownNow();
            }
        });
        return placementThread;
    }

    /**
     * The admin port's settings: the token of {@code admin-token-file}, if set; with {@code admin-tls},
     * HTTPS with the node's certificate, but never asking for a client certificate, which probes (a
     * Kubernetes {@code httpGet}) cannot present.
     */
    private static AdminServer.Settings adminSettings(NodeConfig config) {
        Path tokenFile = config.adminTokenFile();
        AdminServer.Settings settings = AdminServer.Settings.of(config.frameTimeout())
                .withToken(tokenFile == null ? null : AdminToken.read(config.node(), tokenFile));
        if (!config.adminTls()) {
            return settings;
        }
        SecurityConfig serverOnly = config.security().toBuilder().clientAuth(SecurityConfig.ClientAuth.NONE).build();
        return settings.withTls(TlsContext.server(serverOnly).orElseThrow());
    }

    /**
     * Drains the node ({@link NodeDrain}): announces it as draining, hands its primaries away, and
     * refuses new calls once clients stopped choosing it and the calls in progress finished. Blocks;
     * returns whether it all happened within {@code timeout}. The node still has to be closed.
     */
    public boolean drain(Duration timeout, Consumer<String> progress) throws InterruptedException {
        return new NodeDrain(node, replication, yellowPage, router, publisher::publishNow, services.values()).run(timeout, progress);
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

    /** The admin port's address ({@code /metrics}, {@code /health}), if the node serves one. */
    public Optional<InetSocketAddress> adminAddress() {
        return Optional.ofNullable(adminServer).map(AdminServer::address);
    }

    /**
     * The admin port's base URL, {@code http://host:port} ({@code https} with {@code admin-tls}; an
     * IPv6 host in brackets), if the node serves one.
     */
    public Optional<String> adminUrl() {
        String scheme = adminServer != null && adminServer.isTls() ? "https://" : "http://";
        return adminAddress().map(a -> scheme + (a.getHostString().indexOf(':') >= 0 ? "[" + a.getHostString()
                + "]" : a.getHostString()) + ":" + a.getPort());
    }

    /** The current metrics in Prometheus text, as {@code /metrics} answers. */
    public String scrapeMetrics() {
        return metrics.scrape();
    }

    /** Whether the node runs and which hosted replicas do not serve yet: what {@code /health/ready} answers. */
    public Health health() {
        List<Health.NotServing> notServing = new ArrayList<>();
        for (ServiceRuntime service : new java.util.TreeMap<>(services).values()) {
            String name = service.descriptor().name();
            if (!replication.replicates(name)) {
                continue; // nothing to recover: it serves as soon as the node runs
            }
            for (int p = 0; p < service.descriptor().partitions(); p++) {
                ReplicaRole role = service.partitions().hosts(p) ? replication.role(name, p) : ReplicaRole.SECONDARY;
                if (role == ReplicaRole.RECOVERING) {
                    notServing.add(new Health.NotServing(name, p, role));
                }
            }
        }
        return new Health(running.getAsBoolean(), notServing);
    }

    /** Open client connections to the request server. */
    public int inboundConnections() {
        return requestServer.connections();
    }

    /** Bytes of answers the request server's clients have not taken yet. */
    public long outboundBytes() {
        return requestServer.outboundBytes();
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
            router.route(request, Caller.TRUSTED, answer -> response.complete(answer.withLoad(router.load(request))));
            return response;
        }
    }
}
