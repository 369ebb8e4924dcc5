package io.neptune.server;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.MeterRegistry;
import io.neptune.client.NeptuneClient;
import io.neptune.core.ClassStats;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.ServiceDefinitionException;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.Lifecycle;
import io.neptune.server.internal.NodeRuntime;
import io.neptune.server.internal.ServiceRuntime;
import io.neptune.server.internal.SignalledStop;
import io.neptune.server.internal.Telemetry;
import io.neptune.server.process.ProcessConfig;
import io.neptune.server.process.ProcessRequest;
import io.neptune.server.process.ProcessResponse;
import io.neptune.server.process.internal.ProcessRunner;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.OpenTelemetry;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
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
    private static final long READY_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final NodeConfig config;
    private final NodeId node;
    private final Lifecycle lifecycle;
    private final Map<String, ServiceRuntime> services;
    private volatile @Nullable NodeRuntime runtime;
    private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
    /** The drain under way, if any: a second one waits for it. */
    private final AtomicReference<@Nullable CompletableFuture<Boolean>> drainUnderWay = new AtomicReference<>();

    private final Telemetry telemetry;

    private NeptuneNode(NodeConfig config, Map<String, ServiceRuntime> services, Telemetry telemetry) {
        this.config = config;
        this.telemetry = telemetry;
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
        logger.info("{}: starting with {}", node, config);
        try {
            NodeRuntime started = new NodeRuntime(config, services, this::isRunning, this::drainInBackground,
                    telemetry);
            runtime = started;
            lifecycle.transition(Lifecycle.State.RUNNING);
            logger.info("{}: running; requests on {}, polls on {}, admin on {}, hosting {}", node,
                    started.requestAddress(), started.pollAddress(), started.adminUrl().orElse("none"),
                    services.keySet());
            return this;
        } catch (RuntimeException e) {
            lifecycle.transition(Lifecycle.State.FAILED);
            lifecycle.transition(Lifecycle.State.STOPPING);
            lifecycle.transition(Lifecycle.State.STOPPED);
            throw e;
        }
    }

    private NodeRuntime runtime() {
        return requireNonNull(runtime, "runtime (node not started)");
    }

    /** This node's id. */
    public NodeId node() {
        return node;
    }

    /** The client module of this node; calls to partitions hosted here stay in-process. */
    public NeptuneClient client() {
        return runtime().client();
    }

    /** The TCP request server's address. */
    public InetSocketAddress requestAddress() {
        return runtime().requestAddress();
    }

    /** The UDP load-index server's address. */
    public InetSocketAddress pollAddress() {
        return runtime().pollAddress();
    }

    /**
     * The base URL of this node's admin port ({@code http://host:port}), which serves {@code /metrics}
     * (Prometheus text) and {@code /health/live}, {@code /health/ready}; empty when the node was
     * configured without one ({@link NodeConfig#NO_ADMIN_PORT}).
     */
    public Optional<String> adminUrl() {
        return runtime().adminUrl();
    }

    /** The node's current metrics in the Prometheus text format, as its {@code /metrics} answers. */
    public String metricsText() {
        return runtime().scrapeMetrics();
    }

    /**
     * Whether the node is ready: it runs and every replica it hosts serves (none is recovering),
     * as {@code /health/ready} answers 200.
     */
    public boolean isReady() {
        NodeRuntime started = runtime;
        return started != null && started.health().isReady();
    }

    /**
     * Waits until the node {@linkplain #isReady() is ready}: {@link Builder#start()} returns once the
     * node serves, while its replicas may still recover (catch up from their peers, or wait for a
     * majority of their partition's replicas to be up), and a recovering replica serves no call.
     *
     * <pre>{@code
     * NeptuneNode node = NeptuneNode.builder(config).host(new CacheService(), hosting).start();
     * if (!node.awaitReady(Duration.ofMinutes(1))) {
     *     // GET /health/ready on the admin port names the replicas still recovering
     * }
     * }</pre>
     *
     * @param timeout how long to wait at most
     * @return whether the node became ready within {@code timeout}; false also once the node is closed
     * @throws InterruptedException if the waiting thread is interrupted
     */
    public boolean awaitReady(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!isReady()) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || closed.getCount() == 0) {
                return false;
            }
            // Readiness is each replica's role, read on demand; 10 ms polls cost nothing against recovery times.
            closed.await(Math.min(left, READY_POLL_NANOS), TimeUnit.NANOSECONDS);
        }
        return true;
    }

    /** Open TCP connections from clients to this node's request server. */
    public int inboundConnections() {
        return runtime().inboundConnections();
    }

    /**
     * Bytes of answers this node wrote to its clients that they have not read yet (also the metric
     * {@code neptune_server_outbound_bytes}). The node stops reading a client that does not take its
     * answers until they drain, so such a client holds only the answers of what the node took before.
     */
    public long outboundBytes() {
        return runtime().outboundBytes();
    }

    /** Streams clients have open on this node (opened and not yet ended). */
    public int openStreams() {
        return runtime().openStreams();
    }

    /** The nodes currently in this node's yellow page, itself included once it announced. */
    public Set<NodeId> knownNodes() {
        Set<NodeId> nodes = new TreeSet<>((a, b) -> a.value().compareTo(b.value()));
        runtime().announcements().forEach(a -> nodes.add(NodeId.of(a.node())));
        return Collections.unmodifiableSet(nodes);
    }

    /** The live replicas the yellow page knows for {@code service#partition}, by node. */
    public List<NodeId> replicasOf(String service, int partition) {
        return runtime().replicasOf(service, partition);
    }

    /** Operator queries and commands: nodes, replica states and digests, promotion. */
    public ClusterAdmin admin() {
        return runtime().admin();
    }

    /** The role of each live replica of {@code service#partition} as the yellow page knows it, by node. */
    public Map<NodeId, ReplicaRole> replicaRoles(String service, int partition) {
        return runtime().replicaRoles(service, partition);
    }

    /** Requests served by each hosted service since start. */
    public Map<String, Long> served() {
        Map<String, Long> served = new LinkedHashMap<>();
        services.forEach((name, service) -> served.put(name, service.served()));
        return served;
    }

    /**
     * The load index of each hosted service: requests running or queued, plus replicated writes
     * in progress; what polls and announcements report.
     */
    public Map<String, Integer> load() {
        Map<String, Integer> load = new LinkedHashMap<>();
        services.forEach((name, service) -> load.put(name, service.load()));
        return load;
    }

    /**
     * What each service class got from {@code service}'s scheduler on this node since it started,
     * sorted by class; empty when the node schedules that service FIFO without classes.
     *
     * @throws IllegalArgumentException if this node does not host {@code service}
     */
    public List<ClassStats> classStats(String service) {
        ServiceRuntime runtime = services.get(service);
        if (runtime == null) {
            throw new IllegalArgumentException("service: '" + service + "' (expected: one of " + services.keySet()
                    + ", the services " + config.node() + " hosts)");
        }
        return runtime.classStats();
    }

    /** Whether the node is started and not yet closed. */
    public boolean isRunning() {
        return lifecycle.state() == Lifecycle.State.RUNNING;
    }

    /**
     * Takes the node out of service without failing a call, then {@linkplain #close() closes} it: the
     * node announces that it is draining (clients choose it for no new call while another replica can
     * serve), hands every primary role it holds to another caught-up replica (no acknowledged write is
     * lost; writes that arrive meanwhile wait briefly and go to the new primary), then refuses new
     * calls, which clients retry on another replica, and waits for the calls in progress. Replicas of
     * level-1 services just stop being chosen. What {@code neptune admin drain <node>} asks a node to do.
     *
     * <pre>{@code
     * if (!node.drain(Duration.ofSeconds(30))) {
     *     // closed anyway; its log names the primaries it could not hand over or the calls cut short
     * }
     * }</pre>
     *
     * @param timeout how long to try at most before closing anyway
     * @return whether every primary was handed over and every call finished within {@code timeout};
     *     false also if the node was not running
     * @throws InterruptedException if the calling thread is interrupted (the node is closed then too)
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("timeout: " + timeout + " (expected: > 0)");
        }
        NodeRuntime started = runtime;
        if (started == null || !isRunning()) {
            return false;
        }
        CompletableFuture<Boolean> mine = new CompletableFuture<>();
        CompletableFuture<Boolean> earlier = drainUnderWay.compareAndExchange(null, mine);
        if (earlier != null) {
            return awaitDrain(earlier, timeout);
        }
        boolean finished = false;
        try {
            finished = started.drain(timeout, line -> logger.info("{}", line));
            return finished;
        } finally {
            close();
            mine.complete(finished);
        }
    }

    /**
     * A drain already under way (an operator's, then a stop signal, say) is waited for, not started a
     * second time: returns its outcome, or closes the node and returns false if it takes longer than
     * {@code timeout}.
     */
    private boolean awaitDrain(CompletableFuture<Boolean> underWay, Duration timeout) throws InterruptedException {
        try {
            return underWay.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            close();
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException("a drain completes only normally", e);
        }
    }

    /** A drain an operator asked for over the network: runs on a thread of its own, then closes the node. */
    private void drainInBackground(Duration timeout) {
        Thread thread = new Thread(() -> {
            try {
                drain(timeout);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "neptune-" + node + "-drain");
        thread.setDaemon(true);
        thread.start();
    }

    /** Leaves the cluster, refuses queued requests and stops every thread; idempotent. */
    @Override
    public void close() {
        if (!lifecycle.tryTransition(Lifecycle.State.STOPPING)) {
            return;
        }
        logger.info("{}: stopping", node);
        try {
            NodeRuntime started = runtime;
            if (started != null) {
                started.close();
            }
        } finally {
            lifecycle.transition(Lifecycle.State.STOPPED);
            logger.info("{}: stopped", node);
            closed.countDown();
        }
    }

    /** Blocks until {@link #close()} has finished (called on another thread, or by {@link #runUntilStopped()}). */
    public void awaitClose() throws InterruptedException {
        closed.await();
    }

    /**
     * Serves until the process is asked to stop, then stops the node gracefully and returns how: the
     * last line of a node's {@code main}. The first SIGTERM or Ctrl-C {@linkplain #drain drains} the
     * node within {@link NodeConfig#drainTimeout()} and closes it (its primaries move to other replicas
     * without an election, no call fails); a second signal closes it at once. Closing the node from
     * another thread, or an operator's drain, returns too. A JVM that is exiting otherwise
     * ({@code System.exit}) closes the node on its way out.
     *
     * <pre>{@code
     * public static void main(String[] args) throws InterruptedException {
     *     NeptuneNode node = NeptuneNode.builder(config).host(new MyService(), HostingConfig.all()).start();
     *     System.exit(node.runUntilStopped().exitCode());
     * }
     * }</pre>
     *
     * @return how the node stopped, with the exit status the {@code neptune node} command gives it
     */
    public StopOutcome runUntilStopped() throws InterruptedException {
        return runUntilStopped(() -> { });
    }

    /**
     * Like {@link #runUntilStopped()}, calling {@code serving} once stop signals drain the node: the
     * moment to tell a supervisor that the node serves (the {@code neptune node} command prints its
     * {@code READY} line there), so that a stop it sends after that is never a hard one.
     */
    public StopOutcome runUntilStopped(Runnable serving) throws InterruptedException {
        requireNonNull(serving, "serving");
        return new SignalledStop(node.value(), config.drainTimeout(), this::drain, this::close, this::awaitClose)
                .run(serving);
    }

    @Override
    public String toString() {
        return "NeptuneNode[" + node + ", " + lifecycle.state() + "]";
    }

    /** Collects the services to host; single-use, not thread-safe. */
    public static final class Builder {
        private final NodeConfig config;
        private final Map<String, ServiceRuntime> services = new LinkedHashMap<>();
        private @Nullable MeterRegistry meterRegistry;
        private @Nullable OpenTelemetry openTelemetry;

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
            return add(ServiceDescriptor.of(service.getClass()), service, hosting);
        }

        /**
         * Hosts a process-backed service: its one read method, {@code run}, runs {@code process}'s
         * program for each request ({@link ProcessRequest} in, {@link ProcessResponse} out). Give it
         * as many {@linkplain HostingConfig#workers() workers} as {@link ProcessConfig#maxProcesses()},
         * so that requests beyond that wait in the service's (class-aware) queue rather than on a worker.
         *
         * @throws ServiceDefinitionException if a service of that name is already hosted
         */
        public Builder hostProcess(ProcessConfig process, HostingConfig hosting) {
            requireNonNull(process, "process");
            requireNonNull(hosting, "hosting");
            return add(ServiceDescriptor.of(ProcessRunner.class).named(process.name(), process.partitions()),
                    new ProcessRunner(config.node(), process), hosting);
        }

        private Builder add(ServiceDescriptor descriptor, Object service, HostingConfig hosting) {
            if (services.containsKey(descriptor.name())) {
                throw new ServiceDefinitionException(service.getClass(), "service '" + descriptor.name()
                        + "' is already hosted on this node (expected: once)");
            }
            services.put(descriptor.name(), new ServiceRuntime(config.node(), descriptor, service, hosting,
                    config.scheduling()));
            return this;
        }

        /**
         * Records the node's meters (calls, queues, classes, replication, the yellow page; docs/OPERATIONS.md
         * lists them) into the application's {@code registry} rather than a registry of the node's own,
         * each tagged {@code node}; the JVM's meters are left to the application. The admin port's
         * {@code /metrics} then renders {@code registry} if it is a Prometheus registry. The node leaves the
         * registry open when it closes, and takes its meters out of it.
         *
         * <pre>{@code
         * NeptuneNode.builder(config).meterRegistry(springBootsRegistry).host(new MyService(), HostingConfig.all()).start();
         * }</pre>
         */
        public Builder meterRegistry(MeterRegistry registry) {
            this.meterRegistry = requireNonNull(registry, "registry");
            return this;
        }

        /**
         * Records the node's spans with {@code openTelemetry} (docs/OPERATIONS.md, Tracing): a SERVER span
         * for each call it serves, continuing the trace the caller sent, with the time it waited in its
         * queue as a child; a CLIENT span for each call it makes (inner calls, a gateway's), whose context
         * goes with the request. Without this, the node uses {@link GlobalOpenTelemetry#get()}, which is
         * the no-op implementation unless an agent or the application installed an SDK: then no span is
         * made and requests carry no trace context.
         */
        public Builder openTelemetry(OpenTelemetry openTelemetry) {
            this.openTelemetry = requireNonNull(openTelemetry, "openTelemetry");
            return this;
        }

        /** Starts the node: binds its servers, joins the cluster and announces its replicas. */
        public NeptuneNode start() {
            OpenTelemetry tracing = openTelemetry != null ? openTelemetry : GlobalOpenTelemetry.get();
            return new NeptuneNode(config, services, new Telemetry(meterRegistry, tracing)).start();
        }
    }
}
