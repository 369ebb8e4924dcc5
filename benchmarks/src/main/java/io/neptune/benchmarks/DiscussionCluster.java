package io.neptune.benchmarks;

import io.neptune.benchmarks.EmulatedDiscussion.ServiceTimes;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.FailoverMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.SecurityConfig;
import io.neptune.core.ServiceDescriptor;
import io.neptune.server.ClusterAdmin;
import io.neptune.server.HostingConfig;
import io.neptune.server.MiniCluster;
import io.neptune.server.NeptuneNode;
import io.neptune.server.NodeConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * {@code nodes} in-process Neptune nodes on the loopback JGroups stack, in a cluster of their own,
 * each an emulated machine ({@link ServerCapacity}) hosting the discussion group at the given
 * consistency levels (or any services built on the node's capacity, e.g. the auction and the
 * persistent cache) with {@code degree} replicas per partition, plus one node that hosts nothing
 * and sends the load. Partition {@code p} has its replicas on nodes {@code p, p+1, …, p+degree-1}
 * (mod {@code nodes}), the first with the highest priority, so primaries and replicas are spread
 * evenly. Degree 1 is the dissertation's "NoRep": a level-2 partition with one replica still logs
 * every write (REDO log with fsync) but propagates nothing. Level-2/3 partitions run in the
 * dissertation's {@code fail-stop} mode, which chapter 5 measured, unless a start method is given
 * another {@link FailoverMode}.
 *
 * <p>Thread-safety: start and close from one thread; {@link #client()} is thread-safe.
 */
public final class DiscussionCluster implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);

    private final int nodeCount;
    private final int degree;
    private final List<ServiceDescriptor> services = new ArrayList<>();
    private final MiniCluster cluster;
    private final List<ServerCapacity> capacities = new ArrayList<>();
    private @Nullable NeptuneNode driver;

    private DiscussionCluster(int nodeCount, int degree, SecurityConfig.@Nullable TlsProvider tls) {
        if (degree < 1 || degree > nodeCount) {
            throw new IllegalArgumentException("degree: " + degree + " (expected: 1.." + nodeCount + ")");
        }
        this.nodeCount = nodeCount;
        this.degree = degree;
        MiniCluster.Builder builder = MiniCluster.builder().name("bench-replication").defaultMembershipTiming()
                .ioThreads(1).client(ClientConfig.builder().timeout(OpenLoopProbe.DEADLINE).build());
        this.cluster = (tls == null ? builder : builder.tls(tls)).build();
    }

    /**
     * Starts the nodes and the load driver and waits until every partition of every level has
     * {@code degree} serving replicas (and a primary at levels 2 and 3) in the driver's yellow page.
     */
    static DiscussionCluster start(int nodes, int degree, Set<ConsistencyLevel> levels, int workers,
            ServiceTimes times) {
        return start(nodes, degree, levels, FailoverMode.FAIL_STOP, workers, times);
    }

    /**
     * Like {@link #start(int, int, Set, int, ServiceTimes)}, with the level-2/3 partitions in
     * fail-over mode {@code failover} instead of chapter 5's {@link FailoverMode#FAIL_STOP}.
     */
    static DiscussionCluster start(int nodes, int degree, Set<ConsistencyLevel> levels, FailoverMode failover,
            int workers, ServiceTimes times) {
        return start(nodes, degree, workers, failover, capacity -> levels.stream()
                .map(level -> (Object) EmulatedDiscussion.create(level, capacity, times)).toList());
    }

    /**
     * Starts the nodes, each hosting the services {@code servicesOf} builds on its capacity of
     * {@code workers}, and the load driver, and waits until every partition of every service has
     * {@code degree} serving replicas (and a primary at levels 2 and 3) in the driver's yellow page.
     */
    static DiscussionCluster start(int nodes, int degree, int workers,
            Function<ServerCapacity, List<Object>> servicesOf) {
        return start(nodes, degree, workers, FailoverMode.FAIL_STOP, servicesOf);
    }

    /** Like {@link #start(int, int, int, Function)}, every service hosted in fail-over mode {@code failover}. */
    public static DiscussionCluster start(int nodes, int degree, int workers, FailoverMode failover,
            Function<ServerCapacity, List<Object>> servicesOf) {
        return start(nodes, degree, workers, failover, null, servicesOf);
    }

    /**
     * Like {@link #start(int, int, int, FailoverMode, Function)}; with {@code tls} not null every node
     * and the driver require TLS on the request port ({@code security.tls: required}) on that
     * provider, each with a certificate of its own from a development CA made for this cluster.
     */
    public static DiscussionCluster start(int nodes, int degree, int workers, FailoverMode failover,
            SecurityConfig.@Nullable TlsProvider tls, Function<ServerCapacity, List<Object>> servicesOf) {
        DiscussionCluster c = new DiscussionCluster(nodes, degree, tls);
        try {
            for (int i = 0; i < nodes; i++) {
                ServerCapacity capacity = new ServerCapacity(workers);
                int index = i;
                c.cluster.add(c.cluster.config("rep-" + i), builder -> {
                    for (Object service : servicesOf.apply(capacity)) {
                        ServiceDescriptor descriptor = ServiceDescriptor.of(service.getClass());
                        if (index == 0) {
                            c.services.add(descriptor);
                        }
                        builder.host(service, hosting(index, nodes, degree, workers, descriptor.partitions(), failover));
                    }
                    return builder;
                });
                c.capacities.add(capacity);
            }
            c.driver = c.cluster.add(c.cluster.config("rep-driver").toBuilder().ioThreads(2).build(), b -> b);
            c.awaitReady();
            return c;
        } catch (RuntimeException e) {
            MiniCluster.closeAfter(c.cluster, e);
            throw e;
        }
    }

    /**
     * The config of in-process node {@code node} of {@code cluster}: loopback, ephemeral ports, data
     * and discovery under {@code work}, calls timing out after {@link OpenLoopProbe#DEADLINE}.
     */
    static NodeConfig config(String cluster, Path work, String node, int ioThreads) {
        MembershipConfig membership = MembershipConfig.builder().cluster(cluster)
                .discoveryDirectory(work.resolve("discovery")).bindAddress("127.0.0.1").port(0).build();
        ClientConfig client = ClientConfig.builder().timeout(OpenLoopProbe.DEADLINE).build();
        return NodeConfig.builder().node(node).bindAddress("127.0.0.1").port(0).pollPort(0).ioThreads(ioThreads)
                .dataDirectory(work.resolve(node)).membership(membership).client(client).build();
    }

    /**
     * Node {@code index}'s hosting of a service with {@code partitionCount} partitions in a cluster of
     * {@code nodes} with {@code degree} replicas per partition: partitions {@code index-degree+1 … index}
     * (mod {@code nodes}), partition {@code p}'s replica on node {@code p} with the highest priority.
     */
    static HostingConfig hosting(int index, int nodes, int degree, int workers, int partitionCount) {
        // chapter 5 measured the dissertation's fail-stop replication: reproduce it, not the majority default
        return hosting(index, nodes, degree, workers, partitionCount, FailoverMode.FAIL_STOP);
    }

    /** {@link #hosting(int, int, int, int, int)} in fail-over mode {@code failover}. */
    static HostingConfig hosting(int index, int nodes, int degree, int workers, int partitionCount,
            FailoverMode failover) {
        List<Integer> partitions = new ArrayList<>();
        Map<Integer, Integer> priorities = new HashMap<>();
        for (int p = 0; p < partitionCount; p++) {
            int rank = Math.floorMod(index - p, nodes);
            if (rank < degree) {
                partitions.add(p);
                priorities.put(p, degree - rank);
            }
        }
        return HostingConfig.builder().partitions(partitions).priorities(priorities).replicas(degree).workers(workers)
                .failover(failover).build();
    }

    /** Waits until the driver sees {@code degree} serving replicas of every partition (and a level-2/3 primary). */
    void awaitReady() {
        NeptuneNode d = driverNode();
        try {
            MiniCluster.await("every partition's replicas to serve", READY_TIMEOUT, () -> firstUnready(d) == null);
        } catch (IllegalStateException e) {
            throw new IllegalStateException(cluster.name() + ": not ready after " + READY_TIMEOUT + ": "
                    + firstUnready(d), e);
        }
    }

    /**
     * Waits, at most {@code maxMillis}, until the driver sees every level-2/3 partition led by its
     * first (highest-priority) replica, as after start: a primary that stepped down or failed over
     * under load is handed back by a later election, which would otherwise fall into the next load
     * step. Returns whether it got there.
     */
    boolean awaitPreferredPrimaries(long maxMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
        NeptuneNode d = driverNode();
        while (System.nanoTime() - deadline < 0) {
            if (firstNotPreferred(d) == null) {
                return true;
            }
            pause(50);
        }
        return false;
    }

    private @Nullable String firstNotPreferred(NeptuneNode d) {
        for (ServiceDescriptor service : services) {
            if (service.consistency() == ConsistencyLevel.LEVEL_1) {
                continue;
            }
            for (int p = 0; p < service.partitions(); p++) {
                Map<NodeId, ReplicaRole> roles = d.replicaRoles(service.name(), p);
                if (roles.get(NodeId.of(firstReplicaOf(p))) != ReplicaRole.PRIMARY
                        || roles.values().stream().filter(r -> r == ReplicaRole.PRIMARY).count() != 1) {
                    return service.name() + "#" + p + " " + roles;
                }
            }
        }
        return null;
    }

    private @Nullable String firstUnready(NeptuneNode d) {
        for (ServiceDescriptor service : services) {
            String missing = firstUnready(d, service.name(), service.partitions(), service.consistency(), degree);
            if (missing != null) {
                return missing;
            }
        }
        return null;
    }

    /**
     * The first partition of {@code service} that {@code observer} does not see with {@code degree}
     * serving replicas (and a primary at levels 2 and 3), or {@code null} if all are ready.
     */
    static @Nullable String firstUnready(NeptuneNode observer, String service, int partitions, ConsistencyLevel level,
            int degree) {
        for (int p = 0; p < partitions; p++) {
            Map<NodeId, ReplicaRole> roles = observer.replicaRoles(service, p);
            boolean ready = roles.size() == degree && !roles.containsValue(ReplicaRole.RECOVERING)
                    && (level == ConsistencyLevel.LEVEL_1 || roles.containsValue(ReplicaRole.PRIMARY));
            if (!ready) {
                return service + "#" + p + " " + roles;
            }
        }
        return null;
    }

    /**
     * Waits until every node is idle (no request running or waiting for a worker) for {@code quietMillis}
     * in a row, at most {@code maxMillis}; returns whether it got there.
     */
    boolean awaitIdle(long quietMillis, long maxMillis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(maxMillis);
        long quietSince = System.nanoTime();
        while (System.nanoTime() - deadline < 0) {
            if (capacities.stream().anyMatch(c -> c.inFlight() > 0)) {
                quietSince = System.nanoTime();
            } else if (System.nanoTime() - quietSince >= TimeUnit.MILLISECONDS.toNanos(quietMillis)) {
                return true;
            }
            pause(10);
        }
        return false;
    }

    /** The node holding partition {@code partition}'s first (highest-priority) replica. */
    String firstReplicaOf(int partition) {
        return "rep-" + Math.floorMod(partition, nodeCount);
    }

    /** The load driver's view of the cluster's replicas (it hosts nothing itself). */
    ClusterAdmin admin() {
        return driverNode().admin();
    }

    /** The load driver's client. */
    public NeptuneClient client() {
        return driverNode().client();
    }

    private NeptuneNode driverNode() {
        NeptuneNode d = driver;
        if (d == null) {
            throw new IllegalStateException(cluster.name() + ": not started");
        }
        return d;
    }

    /** Service nodes (without the driver). */
    int nodes() {
        return nodeCount;
    }

    /** Replicas per partition. */
    int degree() {
        return degree;
    }

    /** The cluster name; unique per instance. */
    public String name() {
        return cluster.name();
    }

    private static void pause(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /** Closes every node and the driver (each on every path), then deletes the temp directory; idempotent. */
    @Override
    public void close() {
        driver = null;
        cluster.close();
    }
}
