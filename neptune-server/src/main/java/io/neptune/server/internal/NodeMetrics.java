package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.neptune.client.internal.CallTimers;
import io.neptune.client.internal.ClientMetrics;
import io.neptune.core.ClassStats;
import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.MembershipChannel;
import io.neptune.core.internal.membership.Refusal;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.server.internal.security.ConnectionLimits;
import io.neptune.server.internal.security.ConnectionSecurity;
import java.util.Collection;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * A node's meter registry, rendered as Prometheus text on its admin port's {@code /metrics}: the
 * JVM's basics, the services' queues and class counters, the yellow page, and the registry the
 * client ({@link ClientMetrics}), the router ({@link CallTimers}) and the replication engine
 * record into. Every meter carries the tag {@code node}. The list is in docs/OPERATIONS.md.
 *
 * <p>Gauges and function counters read counters the node keeps anyway, at scrape time; only the
 * call timers record on the request path.
 *
 * <p>Thread-safety: thread-safe (Micrometer's registry is).
 */
public final class NodeMetrics implements AutoCloseable {
    private final MeterRegistry registry;
    /** What {@code /metrics} renders: the node's own registry, or the application's if it is Prometheus's; else null. */
    private final @Nullable PrometheusMeterRegistry prometheus;
    /** The application's registry the node records into, or null if the node keeps its own. */
    private final @Nullable MeterRegistry application;
    private final @Nullable JvmGcMetrics gc;

    private NodeMetrics(MeterRegistry registry, @Nullable PrometheusMeterRegistry prometheus,
            @Nullable MeterRegistry application, @Nullable JvmGcMetrics gc) {
        this.registry = registry;
        this.prometheus = prometheus;
        this.application = application;
        this.gc = gc;
    }

    /** A Prometheus registry of the node's own, which also holds the JVM's meters; {@code /metrics} renders it. */
    public static NodeMetrics own(NodeId node) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        registry.config().commonTags("node", node.value());
        JvmGcMetrics gc = new JvmGcMetrics();
        new JvmMemoryMetrics().bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        gc.bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        return new NodeMetrics(registry, registry, null, gc);
    }

    /**
     * Records into the application's {@code registry}: only the node's own meters, each tagged with
     * {@code node} (the registry's other meters and its settings stay as they are), and not the JVM's,
     * which an application binds itself. {@code /metrics} renders the application's registry if it is a
     * {@link PrometheusMeterRegistry}. Closing removes the node's meters from it; the registry stays open.
     */
    public static NodeMetrics into(NodeId node, MeterRegistry registry) {
        CompositeMeterRegistry tagged = new CompositeMeterRegistry();
        tagged.config().commonTags("node", node.value());
        tagged.add(registry);
        return new NodeMetrics(tagged, registry instanceof PrometheusMeterRegistry p ? p : null, registry, null);
    }

    /** The registry to record into. */
    public MeterRegistry registry() {
        return registry;
    }

    /** The server side's call timers, {@code neptune.server.calls}. */
    public CallTimers serverCalls() {
        return new CallTimers(registry, "neptune.server.calls",
                "Calls this node served, from arrival to answer (replicated writes until they commit), by outcome");
    }

    /** The client side's meters. */
    public ClientMetrics client() {
        return ClientMetrics.of(registry);
    }

    /**
     * The current metrics as Prometheus text (format 0.0.4); with an application's registry of another
     * kind, a comment saying where the meters are (still a valid, empty exposition for a scraper).
     */
    public String scrape() {
        if (prometheus != null) {
            return prometheus.scrape();
        }
        return "# this node records its meters into the application's registry ("
                + requireNonNull(application).getClass().getSimpleName() + "); read them there\n";
    }

    /** Registers the queue, load and class meters of every hosted service. */
    public void bindServices(Collection<ServiceRuntime> services) {
        for (ServiceRuntime service : services) {
            Tags tags = Tags.of("service", service.descriptor().name());
            Gauge.builder("neptune.service.queue.depth", service, ServiceRuntime::queued).tags(tags)
                    .description("Requests waiting for a worker").register(registry);
            Gauge.builder("neptune.service.active", service, ServiceRuntime::active).tags(tags)
                    .description("Requests a worker runs now").register(registry);
            Gauge.builder("neptune.service.replicated.writes", service, ServiceRuntime::replicatedWritesInProgress)
                    .tags(tags).description("Replicated writes accepted and not yet answered").register(registry);
            Gauge.builder("neptune.service.load", service, ServiceRuntime::load).tags(tags)
                    .description("The load index polls and announcements report").register(registry);
            Gauge.builder("neptune.service.workers", service, s -> s.hosting().workers()).tags(tags)
                    .description("Worker threads of the service").register(registry);
            FunctionCounter.builder("neptune.service.served", service, ServiceRuntime::served).tags(tags)
                    .description("Requests answered (reads, writes run as primary and applied as secondary)")
                    .register(registry);
            for (ClassStats stats : service.classStats()) {
                bindClass(service, stats.serviceClass());
            }
        }
    }

    /** The meters of one service class of a class-aware service, read from its scheduler's counters. */
    private void bindClass(ServiceRuntime service, String serviceClass) {
        Tags tags = Tags.of("service", service.descriptor().name(), "class", serviceClass);
        classCounter(service, serviceClass, "neptune.class.arrivals", tags, ClassStats::arrivals,
                "Requests of the class that reached the queue (refused ones included)");
        classCounter(service, serviceClass, "neptune.class.completed", tags, ClassStats::completed,
                "Requests of the class that ran to an answer");
        classCounter(service, serviceClass, "neptune.class.dropped", tags.and("reason", "low_yield"),
                ClassStats::droppedLowYield, "Requests of the class not served, by reason");
        classCounter(service, serviceClass, "neptune.class.dropped", tags.and("reason", "queue_full"),
                ClassStats::droppedQueueFull, "Requests of the class not served, by reason");
        classCounter(service, serviceClass, "neptune.class.dropped", tags.and("reason", "deadline"),
                ClassStats::droppedDeadline, "Requests of the class not served, by reason");
        classCounter(service, serviceClass, "neptune.class.yield.offered", tags, ClassStats::offeredYield,
                "The full yield of every arrival");
        classCounter(service, serviceClass, "neptune.class.yield.realized", tags, ClassStats::realizedYield,
                "The yield of completed requests at their response times");
        Gauge.builder("neptune.class.queue.depth", service, classStat(serviceClass, ClassStats::queued)).tags(tags)
                .description("Requests of the class waiting").register(registry);
        Gauge.builder("neptune.class.share", service, classStat(serviceClass, ClassStats::share)).tags(tags)
                .description("The class's recent share of the workers' time (0..1)").register(registry);
        Gauge.builder("neptune.class.share.guaranteed", service, classStat(serviceClass, ClassStats::guaranteedShare))
                .tags(tags).description("The class's guaranteed share of the workers' time").register(registry);
    }

    private void classCounter(ServiceRuntime service, String serviceClass, String name, Tags tags,
            ToDoubleFunction<ClassStats> value, String description) {
        FunctionCounter.builder(name, service, classStat(serviceClass, value)).tags(tags).description(description)
                .register(registry);
    }

    private static ToDoubleFunction<ServiceRuntime> classStat(String serviceClass, ToDoubleFunction<ClassStats> value) {
        return service -> service.classStats().stream().filter(s -> s.serviceClass().equals(serviceClass))
                .mapToDouble(value).findFirst().orElse(Double.NaN);
    }

    /** Registers the request server's open connections, streams and answers not taken yet. */
    public void bindRequestServer(RequestServer server) {
        Gauge.builder("neptune.server.outbound", server, RequestServer::outboundBytes).baseUnit("bytes")
                .description("Bytes of answers written to clients and not taken by them yet").register(registry);
        Gauge.builder("neptune.server.connections", server, RequestServer::connections)
                .description("Open client connections to the request server").register(registry);
        Gauge.builder("neptune.server.streams", server, RequestServer::streams)
                .description("Streams open on the request server").register(registry);
        FunctionCounter.builder("neptune.server.refused.connections", server.security(),
                        ConnectionSecurity::refusedPlaintext).tag("reason", "plaintext")
                .description(REFUSED_CONNECTIONS).register(registry);
        FunctionCounter.builder("neptune.server.refused.connections", server.security(),
                        ConnectionSecurity::refusedHandshakes).tag("reason", "handshake")
                .description(REFUSED_CONNECTIONS).register(registry);
        FunctionCounter.builder("neptune.server.refused.connections", server.limits(), ConnectionLimits::refused)
                .tag("reason", "limit").description(REFUSED_CONNECTIONS).register(registry);
        FunctionCounter.builder("neptune.server.refused.streams", server.limits(), ConnectionLimits::refusedStreams)
                .description("Streams refused for being over max-streams-per-connection").register(registry);
    }

    private static final String REFUSED_CONNECTIONS = "Connections closed before any request was read: plaintext"
            + " where TLS is required, a failed TLS handshake, or over max-connections(-per-address)";

    /** Registers the admin port's refusals: connections over its cap, and requests without the token or a place. */
    public void bindAdminServer(AdminServer server) {
        FunctionCounter.builder("neptune.admin.refused.connections", server, AdminServer::refusedConnections)
                .tag("reason", "limit").description(ADMIN_REFUSED_CONNECTIONS).register(registry);
        FunctionCounter.builder("neptune.admin.refused.connections", server, AdminServer::evictedConnections)
                .tag("reason", "idle").description(ADMIN_REFUSED_CONNECTIONS).register(registry);
        FunctionCounter.builder("neptune.admin.refused.requests", server, AdminServer::unauthenticated)
                .tag("reason", "unauthenticated").description(ADMIN_REFUSED_REQUESTS).register(registry);
        FunctionCounter.builder("neptune.admin.refused.requests", server, AdminServer::forbidden)
                .tag("reason", "forbidden").description(ADMIN_REFUSED_REQUESTS).register(registry);
        FunctionCounter.builder("neptune.admin.refused.requests", server, AdminServer::busyRefusals)
                .tag("reason", "busy").description(ADMIN_REFUSED_REQUESTS).register(registry);
    }

    private static final String ADMIN_REFUSED_CONNECTIONS = "Admin connections closed: at accept with every place"
            + " answering (limit), or idle to make room for a new one (idle)";
    private static final String ADMIN_REFUSED_REQUESTS = "Admin requests refused: 401 without the token"
            + " (unauthenticated), 403 with a wrong one (forbidden), 503 with every /metrics place taken (busy)";

    /** Registers the yellow page's size and its removals. */
    public void bindYellowPage(YellowPage yellowPage) {
        Gauge.builder("neptune.yellow.page.nodes", yellowPage, p -> p.announcements().size())
                .description("Nodes in this node's yellow page").register(registry);
        FunctionCounter.builder("neptune.yellow.page.expiries", yellowPage, YellowPage::expiries)
                .description("Entries that left the yellow page unheard for the expiry time").register(registry);
        FunctionCounter.builder("neptune.yellow.page.departures", yellowPage, YellowPage::departures)
                .description("Entries that left the yellow page when the membership view dropped them")
                .register(registry);
    }

    /**
     * Registers the size of the JGroups view (a split membership shows as a view smaller than the
     * cluster) and what membership security refused, by reason (NEP-SEC-030..035), when the node runs
     * with {@code security.tls} permissive or required.
     */
    public void bindMembership(MembershipChannel membership) {
        Gauge.builder("neptune.membership.view.members", membership, MembershipChannel::viewSize)
                .description("Members in this node's JGroups view, clients included").register(registry);
        membership.security().ifPresent(security -> {
            for (Refusal refusal : Refusal.values()) {
                FunctionCounter.builder("neptune.membership.refused", security.refusals(), r -> r.count(refusal))
                        .tag("reason", refusal.tag())
                        .description("JGroups peers refused for their certificate, and announcements dropped: unsigned,"
                                + " untrusted, of another node, with a bad signature, or replayed")
                        .register(registry);
            }
        });
    }

    @Override
    public void close() {
        if (application == null) {
            requireNonNull(gc).close();
            registry.close();
            return;
        }
        for (Meter meter : registry.getMeters()) {
            application.remove(meter.getId()); // the application's registry lives on: take the node's meters out
        }
    }
}
