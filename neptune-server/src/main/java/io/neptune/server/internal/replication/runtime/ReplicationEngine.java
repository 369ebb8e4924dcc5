package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.MeterRegistry;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.client.internal.Tracing;
import io.neptune.core.AccessMode;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.FailoverMode;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.NodeConfig;
import io.neptune.server.internal.PlacementStore;
import io.neptune.server.internal.ServiceRuntime;
import io.neptune.server.internal.log.FsyncPolicy;
import io.neptune.server.internal.log.LogWriterPool;
import io.neptune.server.internal.log.RedoLog;
import io.neptune.server.internal.security.Caller;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's replication: one {@link PartitionReplica} per hosted partition of every service with
 * write methods, their REDO logs, the shared executors, the periodic tick, and the peer protocol
 * endpoint. Read-only services are not replicated and have no logs.
 *
 * <p>Thread-safety: thread-safe; each replica confines its state to its own serial executor.
 */
public final class ReplicationEngine implements AutoCloseable {
    /** The reserved service name the peer protocol travels under. */
    public static final String SERVICE = PeerMessages.SERVICE;
    /** How long a level-3 read waits for a lagging replica to reach the session's version. */
    public static final long VERSION_WAIT_MILLIS = 200;

    private static final Logger logger = LoggerFactory.getLogger(ReplicationEngine.class);
    private static final long TICK_MILLIS = 100;
    /** Replicas ticked by one pool task. */
    private static final int TICK_BATCH = 32;
    /** How long {@link #unhost} waits for a leaving partition's replica and calls to end before it tells the service. */
    private static final long PARTITION_RELEASE_SECONDS = 10;

    private final NodeConfig config;
    private final NodeId self;
    private final YellowPage yellowPage;
    private final Map<String, ServiceRuntime> services;
    /** Per service, its replicas by partition; an array is replaced, never changed, once published. */
    private final Map<String, PartitionReplica[]> replicas = new ConcurrentHashMap<>();
    /** The REDO logs and cores by {@code service#partition}. */
    private final Map<String, ReplicaCore> cores = new ConcurrentHashMap<>();
    private final @Nullable PlacementStore placement;
    private final ClientPeers peers;
    private final PeerEndpoint endpoint;
    private final ReplicationTracing tracing;
    private volatile boolean started;
    private final LogWriterPool logWriters;
    private final ExecutorService pool;
    private final ScheduledExecutorService timer;
    private final MeterRegistry registry;
    private volatile boolean draining;

    /**
     * Opens the REDO logs of every replicated hosted partition and registers their meters in
     * {@code registry}; {@link #start()} begins recovery.
     */
    public ReplicationEngine(NodeConfig config, Map<String, ServiceRuntime> services, YellowPage yellowPage,
            MeterRegistry registry) {
        this(config, services, yellowPage, registry, null);
    }

    /**
     * Like the other constructor; {@code placement} records the partitions {@link #host} and
     * {@link #unhost} change, or is null where placement cannot change.
     */
    public ReplicationEngine(NodeConfig config, Map<String, ServiceRuntime> services, YellowPage yellowPage,
            MeterRegistry registry, @Nullable PlacementStore placement) {
        this.placement = placement;
        this.config = requireNonNull(config, "config");
        this.registry = requireNonNull(registry, "registry");
        this.self = config.node();
        this.yellowPage = requireNonNull(yellowPage, "yellowPage");
        this.services = Map.copyOf(services);
        AtomicInteger threads = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors() * 2), r -> {
            Thread thread = new Thread(r, "neptune-" + self + "-replication-" + threads.getAndIncrement());
            thread.setDaemon(true);
            return thread;
        });
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "neptune-" + self + "-replication-timer");
            thread.setDaemon(true);
            return thread;
        });
        this.logWriters = new LogWriterPool("neptune-" + self + "-log-writer", config.logWriterThreads());
        this.peers = new ClientPeers(self, yellowPage, config.ackTimeout(), timer, config.client().connectionsPerNode(),
                registry);
        this.tracing = new ReplicationTracing(self);
        this.endpoint = new PeerEndpoint(self, this::replica, tracing, timer,
                MajorityReplica.electionTimeout(config.ackTimeout()));
        try {
            for (ServiceRuntime runtime : services.values()) {
                if (!isReplicated(runtime)) {
                    continue;
                }
                if (runtime.descriptor().checkMethod().isEmpty()) {
                    logger.warn("{}: [NEP-SVC-001] service '{}' has @Write methods but no @Check: each time this node"
                            + " starts, every logged write runs again (nothing else tells what its store kept through a"
                            + " crash), so its writes must be idempotent; a @Check method makes recovery exact", self,
                            runtime.descriptor().name());
                }
                PartitionReplica[] byPartition = new PartitionReplica[runtime.descriptor().partitions()];
                for (int p = 0; p < byPartition.length; p++) {
                    if (runtime.partitions().hosts(p)) {
                        byPartition[p] = create(runtime, p, addedHalfWay(runtime, p));
                    }
                }
                replicas.put(runtime.descriptor().name(), byPartition);
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private static boolean isReplicated(ServiceRuntime runtime) {
        return runtime.descriptor().methods().values().stream().anyMatch(m -> m.mode() == AccessMode.WRITE);
    }

    /**
     * Whether this node hosts {@code partition} only by an operator's add-replica that it did not finish:
     * {@link #host} records the partition in {@code placement.json} before the new replica writes its
     * (learner's) membership, so a node killed between the two restarts with the partition placed here,
     * not by its config, and no membership next to the log. It is the learner it was being made; as an
     * implicit voter it could elect itself with an empty log.
     */
    private boolean addedHalfWay(ServiceRuntime runtime, int partition) {
        return !runtime.hosting().hosts(partition, runtime.descriptor().partitions())
                && !Membership.isExplicit(logDirectory(runtime.descriptor().name(), partition));
    }

    private Path logDirectory(String service, int partition) {
        return config.dataDirectory().resolve(service).resolve("log-" + partition);
    }

    private PartitionReplica create(ServiceRuntime runtime, int partition, boolean learner) {
        String service = runtime.descriptor().name();
        Path directory = logDirectory(service, partition);
        RedoLog log = RedoLog.open(directory, FsyncPolicy.valueOf(config.logSync().name()), logWriters,
                config.logRetention().requestIds());
        CoreSetup setup = new CoreSetup(service, partition, self).storage(log, directory)
                .app(new RuntimePartition(runtime, partition)).peers(peers)
                .executors(new SerialExecutor(pool, service + "#" + partition + "@" + self), timer)
                .maxBatchBytes(Math.min(config.maxFrameBytes(), config.client().maxFrameBytes()) / 2)
                .retention(config.logRetention()).draining(() -> draining);
        ReplicaCore core = ReplicationMeters.countRoleChanges(registry, setup).build();
        cores.put(service + "#" + partition, core);
        PartitionReplica replica = stateMachine(runtime, core, learner);
        ReplicationMeters.bind(registry, log, core, replica);
        if (runtime.descriptor().consistency() != ConsistencyLevel.LEVEL_1) {
            ReplicationMeters.bindLag(registry, core, replica, yellowPage);
        }
        return replica;
    }

    /** The state machine of {@code core}'s partition for the service's level and fail-over mode. */
    private PartitionReplica stateMachine(ServiceRuntime runtime, ReplicaCore core, boolean learner) {
        ConsistencyLevel level = runtime.descriptor().consistency();
        Duration staleness = level == ConsistencyLevel.LEVEL_3
                ? Duration.ofMillis(runtime.descriptor().stalenessMillis()) : null;
        ReplicaSettings settings = new ReplicaSettings(runtime.hosting().priorityOf(core.partition),
                runtime.hosting().replicas(), config.ackTimeout(), staleness, learner);
        if (level == ConsistencyLevel.LEVEL_1) {
            return new WriteAnywhereReplica(core, settings);
        }
        if (runtime.hosting().failoverOf(runtime.descriptor()) == FailoverMode.MAJORITY) {
            return new MajorityReplica(core, settings);
        }
        return new PrimaryBackupReplica(core, settings);
    }

    /** The data directory a service's own store lives in on this node. */
    public static Path serviceDirectory(NodeConfig config, String service) {
        Path directory = config.dataDirectory().resolve(service).resolve("data");
        try {
            return Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("data-directory: cannot create " + directory, e);
        }
    }

    /** Connects the engine to the node's client (for peer calls) and publisher, then starts every replica. */
    public void start(DefaultNeptuneClient client, Runnable announce) {
        peers.connect(requireNonNull(client, "client"), requireNonNull(announce, "announce"));
        replicas.values().forEach(byPartition -> {
            for (PartitionReplica replica : byPartition) {
                if (replica != null) {
                    replica.start();
                }
            }
        });
        started = true;
        timer.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        yellowPage.addListener(() -> timer.execute(this::tick));
    }

    /**
     * Ticks every replica, {@value #TICK_BATCH} to a pool task: each idle partition's tick runs in that
     * task ({@link SerialExecutor#runNowOrQueue}), so a tick costs no hand-off between threads per
     * partition, and a tick that blocks (a fail-stop epoch write) delays only its own batch.
     */
    private void tick() {
        List<PartitionReplica> batch = new ArrayList<>(TICK_BATCH);
        for (PartitionReplica[] byPartition : replicas.values()) {
            for (PartitionReplica replica : byPartition) {
                if (replica != null) {
                    batch.add(replica);
                }
                if (batch.size() == TICK_BATCH) {
                    tick(batch);
                    batch = new ArrayList<>(TICK_BATCH);
                }
            }
        }
        if (!batch.isEmpty()) {
            tick(batch);
        }
    }

    private void tick(List<PartitionReplica> batch) {
        try {
            pool.execute(() -> batch.forEach(PartitionReplica::tick));
        } catch (RejectedExecutionException e) {
            logger.debug("{}: replication pool shut down; tick of {} replicas skipped", self, batch.size());
        }
    }

    /**
     * Marks the node as draining: its replicas stand for no election and ask for no handover by
     * priority from now on, so the primary roles {@link #handOver} moves away stay away.
     */
    public void drain() {
        draining = true;
    }

    /** Whether {@link #drain()} was called. */
    public boolean isDraining() {
        return draining;
    }

    /** The hosted partitions, as {@code service#partition}, whose replica here is the primary (levels 2 and 3). */
    public List<String> primaries() {
        List<String> primaries = new ArrayList<>();
        replicas.forEach((service, byPartition) -> {
            for (int p = 0; p < byPartition.length; p++) {
                PartitionReplica replica = byPartition[p];
                if (replica != null && replica.state().role() == ReplicaRole.PRIMARY) { // level 1 has no primary
                    primaries.add(service + "#" + p);
                }
            }
        });
        primaries.sort(null);
        return primaries;
    }

    /**
     * Asks the best other replica of {@code service#partition} (serving, on a node that is not
     * draining, the most complete log, then the highest priority) to take the primary role over from
     * this node's replica; the nodes in {@code refused} only if no other qualifies (they refused
     * lately: still catching up, say). Completes with the node that took it, or fails with why none did.
     */
    public CompletableFuture<NodeId> handOver(String service, int partition, Set<NodeId> refused) {
        List<Replica> candidates = yellowPage.replicas(service, partition).stream()
                .filter(r -> !r.node().equals(self) && !r.draining() && r.role() == ReplicaRole.SECONDARY).toList();
        Replica target = candidates.stream().filter(r -> !refused.contains(r.node()) || candidates.stream()
                        .allMatch(other -> refused.contains(other.node())))
                .max(Comparator.comparingLong(Replica::logEnd).thenComparingInt(Replica::priority))
                .orElse(null);
        if (target == null) {
            return CompletableFuture.failedFuture(new NeptuneException(service + "#" + partition
                    + ": no serving replica on a node that is not draining to hand the primary role to"));
        }
        return peers.call(target.node(), PeerRequest.of(service, partition, "takeOver",
                new PeerMessages.TakeOver(service, partition, false)), PeerMessages.PromoteReply.class).thenApply(r -> {
                    if (!r.accepted()) {
                        throw new HandOverRefusedException(target.node(), target.node() + " did not take " + service
                                + "#" + partition + " over: " + r.reason());
                    }
                    return target.node();
                });
    }

    /** A replica refused to take a primary role over: {@link #node()} may qualify again later. */
    public static final class HandOverRefusedException extends NeptuneException {
        private static final long serialVersionUID = 1L;
        private final transient NodeId node;

        HandOverRefusedException(NodeId node, String message) {
            super(message);
            this.node = node;
        }

        /** The replica that refused. */
        public NodeId node() {
            return node;
        }
    }

    /**
     * Starts hosting {@code service#partition} as a learner ({@code docs/protocols/placement.md}): tells
     * the service ({@link io.neptune.core.ServiceLifecycle#partitionAdded}), records the partition in
     * the placement file, opens its log and starts its replica, which counts for nothing until the
     * primary commits a configuration that names it. Blocks (the service's callback, file I/O): call
     * it on the node's placement thread. Returns what it did; throws a {@link NeptuneException}
     * starting with a {@code NEP-PLACE-} code where it cannot, and then hosts nothing new.
     */
    public synchronized String host(String service, int partition) {
        ServiceRuntime runtime = placeable(service, partition);
        PartitionReplica[] byPartition = requireNonNull(replicas.get(service));
        if (byPartition[partition] != null) {
            return self + " already hosts " + service + "#" + partition;
        }
        runtime.partitions().partitionAdded(partition);   // NEP-PLACE-008 if the service refuses: nothing changed yet
        java.util.Set<Integer> hosted = new java.util.TreeSet<>(runtime.partitions().hosted());
        hosted.add(partition);
        PartitionReplica replica;
        try {
            requireNonNull(placement).put(service, hosted);   // durable first: a restart hosts it again
            replica = create(runtime, partition, true);
        } catch (RuntimeException e) {
            undoHost(runtime, partition, e);
            throw e;
        }
        PartitionReplica[] copy = byPartition.clone();
        copy[partition] = replica;
        replicas.put(service, copy);
        runtime.partitions().place(hosted);
        if (started) {
            replica.start();
        }
        logger.info("{}: [NEP-PLACE-006] now hosts {}#{} as a learner (an operator's add-replica)", self, service,
                partition);
        return self + " hosts " + service + "#" + partition + " as a learner";
    }

    /** {@link #host} failed after the service prepared {@code partition}: forget it again, file and service. */
    private void undoHost(ServiceRuntime runtime, int partition, RuntimeException failure) {
        String service = runtime.descriptor().name();
        try {
            requireNonNull(placement).put(service, runtime.partitions().hosted());
        } catch (RuntimeException e) {
            failure.addSuppressed(e);
        }
        try {
            runtime.partitions().partitionRemoved(partition, Duration.ZERO);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Stops hosting {@code service#partition} (an operator's remove-replica, after the configuration
     * without this node committed): records it in the placement file, refuses the partition's calls,
     * closes its replica and log (keeping every file), and once no call of it runs tells the service
     * ({@link io.neptune.core.ServiceLifecycle#partitionRemoved}). Blocks: call it on the node's
     * placement thread.
     */
    public synchronized String unhost(String service, int partition) {
        ServiceRuntime runtime = placeable(service, partition);
        PartitionReplica[] byPartition = requireNonNull(replicas.get(service));
        PartitionReplica replica = byPartition[partition];
        if (replica == null) {
            return self + " does not host " + service + "#" + partition;
        }
        java.util.Set<Integer> hosted = new java.util.TreeSet<>(runtime.partitions().hosted());
        hosted.remove(partition);
        requireNonNull(placement).put(service, hosted);
        PartitionReplica[] copy = byPartition.clone();
        copy[partition] = null;
        replicas.put(service, copy);
        replica.close();
        ReplicaCore core = cores.remove(service + "#" + partition);
        CompletableFuture<Void> closed = new CompletableFuture<>();
        if (core != null) {
            core.exec.execute(() -> {   // after the replica's close, on its executor
                try {
                    core.log.close();
                } finally {
                    closed.complete(null);
                }
            });
        } else {
            closed.complete(null);
        }
        boolean told = false;
        try {
            closed.get(PARTITION_RELEASE_SECONDS, TimeUnit.SECONDS);
            told = true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            logger.warn("{}: {}#{}: its replica did not close within {} s; the service is not told it left", self,
                    service, partition, PARTITION_RELEASE_SECONDS);
        }
        // The partition's calls are refused only once its replica closed: an apply already running on the
        // replica's executor enters the partition, and died of an uncaught exception when it was refused first.
        runtime.partitions().place(hosted);
        peers.announce();
        try {
            told = told && runtime.partitions().partitionRemoved(partition, Duration.ofSeconds(PARTITION_RELEASE_SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            told = false;
        }
        logger.info("{}: [NEP-PLACE-007] no longer hosts {}#{} (an operator's remove-replica); its files stay", self,
                service, partition);
        return self + " no longer hosts " + service + "#" + partition + " (its log and data stay on disk"
                + (told ? "" : "; the service was not told, see the node's log") + ")";
    }

    private ServiceRuntime placeable(String service, int partition) {
        ServiceRuntime runtime = services.get(service);
        if (runtime == null || !replicas.containsKey(service)) {
            throw new NeptuneException("NEP-PLACE-005 " + self + " runs no replicated service '" + service + "'");
        }
        if (partition < 0 || partition >= runtime.descriptor().partitions()) {
            throw new NeptuneException("NEP-PLACE-005 partition: " + partition + " (expected: 0.."
                    + (runtime.descriptor().partitions() - 1) + ")");
        }
        if (!acceptsPlacement(runtime)) {
            throw new NeptuneException("NEP-PLACE-001 " + service + " is not in majority mode (level-2/3 with"
                    + " failover: majority): add-replica and remove-replica are refused there"
                    + " (docs/protocols/placement.md)");
        }
        if (placement == null) {
            throw new NeptuneException("NEP-PLACE-005 " + self + " keeps no placement file");
        }
        return runtime;
    }

    /**
     * Whether an operator's add-replica and remove-replica can change where {@code runtime}'s
     * partitions live: a replicated level-2/3 service in majority mode.
     */
    public static boolean acceptsPlacement(ServiceRuntime runtime) {
        return isReplicated(runtime) && runtime.descriptor().consistency() != ConsistencyLevel.LEVEL_1
                && runtime.hosting().failoverOf(runtime.descriptor()) == FailoverMode.MAJORITY;
    }

    /** Whether writes of {@code service} go through replication. */
    public boolean replicates(String service) {
        return replicas.containsKey(service);
    }

    private @Nullable PartitionReplica replica(String service, int partition) {
        PartitionReplica[] byPartition = replicas.get(service);
        return byPartition == null || partition < 0 || partition >= byPartition.length ? null : byPartition[partition];
    }

    /** Handles a client write of a replicated service. */
    public void write(RequestMessage request, Consumer<ResponseMessage> reply) {
        PartitionReplica replica = replica(request.service(), request.partition());
        if (replica == null) {
            reply.accept(ResponseMessage.error(request.requestId(), Status.NOT_HOSTED, self + " does not host "
                    + request.service() + "#" + request.partition()));
            return;
        }
        if (request.id().isNone()) {
            reply.accept(ResponseMessage.error(request.requestId(), Status.INVALID_REQUEST,
                    "a write to a replicated service needs a request id"));
            return;
        }
        long limit = Math.min(config.maxFrameBytes(), config.client().maxFrameBytes()) / 2;
        long size = 4L * ((request.payload().length + 2) / 3);
        if (size > limit) { // its log record could not reach the other replicas in any frame
            reply.accept(ResponseMessage.error(request.requestId(), Status.INVALID_REQUEST, "a write of "
                    + request.payload().length + " bytes to replicated service '" + request.service()
                    + "' (expected: at most " + limit * 3 / 4 + " bytes, so that its log record fits in a"
                    + " replication message under max-frame-size " + config.maxFrameBytes() + ")"));
            return;
        }
        tracing.write(request, reply, replica::write);
    }

    /** The role of this node's replica of {@code service#partition}; SECONDARY for unreplicated services. */
    public ReplicaRole role(String service, int partition) {
        PartitionReplica replica = replica(service, partition);
        return replica == null ? ReplicaRole.SECONDARY : replica.state().role();
    }

    /** The version (last applied LSN) of this node's replica; 0 for unreplicated services. */
    public long version(String service, int partition) {
        PartitionReplica replica = replica(service, partition);
        return replica == null ? 0 : replica.state().applied();
    }

    /**
     * The version to report with a read of this node's replica that just ran: at least that of every
     * write whose effects the read may have seen (DESIGN §6.4); 0 for unreplicated services.
     */
    public long readVersion(String service, int partition) {
        PartitionReplica replica = replica(service, partition);
        return replica == null ? 0 : replica.readVersion();
    }

    /** Completes with whether the replica reached {@code version} within {@value #VERSION_WAIT_MILLIS} ms. */
    public CompletableFuture<Boolean> awaitVersion(String service, int partition, long version) {
        PartitionReplica replica = replica(service, partition);
        return replica == null ? CompletableFuture.completedFuture(true)
                : replica.awaitVersion(version, VERSION_WAIT_MILLIS);
    }

    /**
     * Level 3: whether a read of this node's replica now stays within the staleness bound although
     * the replica may be cut off from the others (see {@link PartitionReplica#fresh()}).
     */
    public boolean fresh(String service, int partition) {
        PartitionReplica replica = replica(service, partition);
        return replica == null || replica.fresh();
    }

    /** The announced state of this node's replica of {@code service#partition}. */
    public Announcement.ReplicaState announce(String service, int partition, int priority) {
        PartitionReplica replica = replica(service, partition);
        if (replica == null) {
            return new Announcement.ReplicaState(partition, priority, ReplicaRole.SECONDARY, 0);
        }
        ReplicaState s = replica.state();
        return new Announcement.ReplicaState(partition, priority, s.role(), s.applied(), s.epoch(), s.logEnd(),
                s.lastEpoch(), s.boundVersion());
    }

    /**
     * Handles a peer-protocol request (service {@value #SERVICE}) sent by {@code caller}
     * ({@link PeerEndpoint}).
     */
    public void handlePeer(RequestMessage request, Caller caller, Consumer<ResponseMessage> reply) {
        endpoint.handle(request, caller, reply);
    }

    /**
     * Traces replicated writes with {@code tracing} from now on: a {@code replicate} span on the primary
     * and on each replica it sends the record to ({@link ReplicationTracing}); set before the node takes calls.
     */
    public void traceWith(Tracing tracing) {
        this.tracing.traceWith(tracing);
    }

    @Override
    public void close() {
        replicas.values().forEach(byPartition -> {
            for (PartitionReplica replica : byPartition) {
                if (replica != null) {
                    replica.close();
                }
            }
        });
        timer.shutdownNow();
        peers.close();
        pool.shutdown();
        try {
            pool.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pool.shutdownNow();
        for (ReplicaCore core : cores.values()) {
            core.log.close();
        }
        logWriters.close();   // after the logs: each log's last drain writes its queue and meta file there
    }
}
