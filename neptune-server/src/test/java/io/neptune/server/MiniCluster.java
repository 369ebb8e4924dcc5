package io.neptune.server;

import static java.util.Objects.requireNonNull;

import io.neptune.client.ClientConfig;
import io.neptune.core.MembershipConfig;
import io.neptune.core.SecurityConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * An in-JVM cluster of real nodes on the loopback JGroups stack, with data under a temporary
 * directory that close() deletes, each cluster in its own discovery directory (and with a JGroups
 * cluster name of its own) so concurrent test classes never see each other. Close it to stop every
 * node.
 *
 * <p>The server tests start one with {@link #start}; the benchmarks' in-process harnesses
 * ({@code EchoCluster}, {@code DiscussionCluster}, {@code QosCluster}, {@code BalancingCluster}) are
 * configurations of its {@link #builder()}: they name the cluster, keep the default membership
 * timing, choose the I/O threads and the TLS provider, then {@link #add} the nodes their experiment
 * needs and wait for their own readiness condition with {@link #await}.
 *
 * <p>Thread-safety: start, add, restart and close from one thread; the accessors may be read from
 * others once the nodes are started.
 */
public final class MiniCluster implements AutoCloseable {
    private final String cluster;
    private final Path directory;
    private final Duration announceInterval;
    private final Duration expiry;
    private final int ioThreads;
    private final ClientConfig client;
    private final boolean closeInParallel;
    private final List<NeptuneNode> nodes = new ArrayList<>();
    /** What {@link #closeWith} registered: closed before the nodes. */
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final @Nullable TestCertificates certificates;
    private final SecurityConfig.TlsProvider provider;

    private MiniCluster(Builder builder) {
        this.cluster = builder.name + "-" + UUID.randomUUID().toString().substring(0, 8);
        try {
            directory = Files.createTempDirectory("neptune-" + builder.name + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        this.announceInterval = builder.announceInterval;
        this.expiry = builder.expiry;
        this.ioThreads = builder.ioThreads;
        this.client = builder.client;
        this.closeInParallel = builder.closeInParallel;
        this.provider = builder.provider;
        this.certificates = builder.tls ? TestCertificates.create(directory.resolve("certs"), cluster) : null;
    }

    /** A builder of a cluster with no nodes yet; {@link Builder#start} adds the first ones. */
    public static Builder builder() {
        return new Builder();
    }

    /** Starts {@code count} nodes {@code node-0..}, each configured by {@code hosting}. */
    public static MiniCluster start(int count, Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting) {
        return builder().start(count, hosting);
    }

    /**
     * Starts {@code count} nodes {@code node-0..} with TLS required, each with a certificate of its
     * own from the cluster's {@link #certificates()}, and each configured by {@code hosting}.
     */
    public static MiniCluster startWithTls(int count, Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting) {
        return builder().tls().start(count, hosting);
    }

    /** The JGroups cluster name: the builder's name and a random suffix, unique per instance. */
    public String name() {
        return cluster;
    }

    /** The temporary directory that holds discovery files, certificates and data; close() deletes it. */
    public Path directory() {
        return directory;
    }

    /** The membership settings every node of this cluster uses. */
    public MembershipConfig membership() {
        return MembershipConfig.builder().cluster(cluster).discoveryDirectory(directory)
                .bindAddress(MembershipConfig.DEFAULT_BIND_ADDRESS).port(0).announceInterval(announceInterval)
                .expiry(expiry).build();
    }

    /** A node config joining this cluster with the builder's client settings; see {@link #config(String, ClientConfig)}. */
    public NodeConfig config(String node) {
        return config(node, client);
    }

    /**
     * A node config joining this cluster: loopback, ephemeral request and poll ports, data under
     * {@link #directory()}; with TLS, the node has a certificate of its own.
     */
    public NodeConfig config(String node, ClientConfig client) {
        NodeConfig.Builder config = NodeConfig.builder().node(node).bindAddress(NodeConfig.DEFAULT_BIND_ADDRESS).port(0)
                .pollPort(0).ioThreads(ioThreads).membership(membership()).client(client)
                .dataDirectory(directory.resolve("data").resolve(node));
        if (certificates != null) {
            config.security(certificates.node(node).toBuilder().provider(provider).build());
        }
        return config.build();
    }

    /** The authority that certifies this cluster's nodes (started with {@link #startWithTls} or {@link Builder#tls()}). */
    public TestCertificates certificates() {
        if (certificates == null) {
            throw new IllegalStateException("this cluster runs without TLS (expected: one from startWithTls)");
        }
        return certificates;
    }

    /** Starts one more node hosting what {@code hosting} adds. */
    public NeptuneNode add(String node, ClientConfig client, Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting) {
        return add(config(node, client), hosting);
    }

    /** Starts one more node with {@code config} (e.g. {@link #config} with a setting changed). */
    public NeptuneNode add(NodeConfig config, Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting) {
        NeptuneNode started = hosting.apply(NeptuneNode.builder(config)).start();
        nodes.add(started);
        return started;
    }

    /**
     * Starts node {@code i} again, with {@code config} (e.g. its old one with another security
     * setting) and on the same data directory if the config names the same node, in its place: a
     * rolling restart's step. Node {@code i} must be closed (or drained) first.
     */
    public NeptuneNode restart(int i, NodeConfig config, Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting) {
        if (nodes.get(i).isRunning()) {
            throw new IllegalStateException("node " + i + ": " + nodes.get(i).node() + " runs (expected: closed first)");
        }
        NeptuneNode started = hosting.apply(NeptuneNode.builder(config)).start();
        nodes.set(i, started);
        return started;
    }

    /** The started nodes, in the order they were added. */
    public List<NeptuneNode> nodes() {
        return Collections.unmodifiableList(nodes);
    }

    /** Node {@code i}. */
    public NeptuneNode node(int i) {
        return nodes.get(i);
    }

    /** Waits until every node's yellow page lists {@code count} nodes. */
    public void awaitNodes(int count) {
        await("every yellow page to list " + count + " nodes", Duration.ofSeconds(30),
                () -> nodes.stream().allMatch(n -> n.knownNodes().size() >= count));
    }

    /**
     * Polls {@code condition} every 20 ms until it holds; throws {@link IllegalStateException}
     * naming {@code what} after {@code limit}. (No Awaitility: the benchmarks' jar runs this too.)
     */
    public static void await(String what, Duration limit, BooleanSupplier condition) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("timed out after " + limit + " waiting for " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + what);
            }
        }
    }

    /**
     * Registers {@code resource} (e.g. a client-only member built from {@link #membership()}) to be
     * closed with the cluster, before the nodes; returns it.
     */
    public <T extends AutoCloseable> T closeWith(T resource) {
        resources.add(requireNonNull(resource, "resource"));
        return resource;
    }

    /**
     * Closes what {@link #closeWith} registered, then every node, each group in the order it was
     * added (or all at once if the builder said {@link Builder#closeInParallel()}), then deletes
     * {@link #directory()}; idempotent. A node that fails to close does not keep the others running:
     * the first failure is thrown after all were closed.
     */
    @Override
    public void close() {
        List<RuntimeException> failures = new ArrayList<>();
        for (List<? extends AutoCloseable> group : List.of(resources, nodes)) {
            List<AutoCloseable> closing = new ArrayList<>(group);
            group.clear();
            failures.addAll(closeInParallel ? closeInParallel(closing) : closeInOrder(closing));
        }
        try (var files = Files.walk(directory)) {
            files.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // best effort: a temp directory
        }
        if (!failures.isEmpty()) {
            RuntimeException first = failures.get(0);
            failures.subList(1, failures.size()).forEach(first::addSuppressed);
            throw first;
        }
    }

    private static List<RuntimeException> closeInOrder(List<AutoCloseable> closing) {
        List<RuntimeException> failures = new ArrayList<>();
        for (AutoCloseable resource : closing) {
            close(resource, failures);
        }
        return failures;
    }

    private List<RuntimeException> closeInParallel(List<AutoCloseable> closing) {
        List<RuntimeException> failures = Collections.synchronizedList(new ArrayList<>());
        List<Thread> threads = new ArrayList<>();
        for (AutoCloseable resource : closing) {
            Thread thread = new Thread(() -> close(resource, failures), cluster + "-close-" + threads.size());
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
        for (Thread thread : threads) {
            try {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                failures.add(new IllegalStateException(cluster + ": interrupted while closing the nodes", e));
                break;
            }
        }
        synchronized (failures) {
            return new ArrayList<>(failures);
        }
    }

    private static void close(AutoCloseable resource, List<RuntimeException> failures) {
        try {
            resource.close();
        } catch (RuntimeException e) {
            failures.add(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failures.add(new IllegalStateException(resource + ": interrupted while closing", e));
        } catch (Exception e) {
            failures.add(new IllegalStateException(resource + ": close failed", e));
        }
    }

    /**
     * Closes {@code cluster} after {@code cause} ended its start; a failure to close is added to
     * {@code cause} as suppressed, so the reason the start failed is the one reported.
     */
    public static void closeAfter(MiniCluster cluster, RuntimeException cause) {
        try {
            cluster.close();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    /**
     * How the cluster is named, timed and secured. The defaults are the server tests': fast
     * membership (announce every 200 ms, expiry 2 s), 2 I/O threads per node, default client
     * settings, no TLS. Mutable, single-use; not thread-safe.
     */
    public static final class Builder {
        private String name = "test";
        private Duration announceInterval = Duration.ofMillis(200);
        private Duration expiry = Duration.ofSeconds(2);
        private int ioThreads = 2;
        private ClientConfig client = ClientConfig.defaults();
        private boolean tls;
        private SecurityConfig.TlsProvider provider = SecurityConfig.TlsProvider.AUTO;
        private boolean closeInParallel;

        private Builder() {}

        /** The first part of the JGroups cluster name and of the temporary directory's name. */
        public Builder name(String name) {
            this.name = requireNonNull(name, "name");
            return this;
        }

        /** How often each node announces its replicas; see {@link MembershipConfig#announceInterval()}. */
        public Builder announceInterval(Duration announceInterval) {
            this.announceInterval = requireNonNull(announceInterval, "announceInterval");
            return this;
        }

        /** How long a yellow page entry lives without an announcement; see {@link MembershipConfig#expiry()}. */
        public Builder expiry(Duration expiry) {
            this.expiry = requireNonNull(expiry, "expiry");
            return this;
        }

        /** The membership timing production runs with: {@link MembershipConfig}'s defaults. */
        public Builder defaultMembershipTiming() {
            return announceInterval(MembershipConfig.DEFAULT_ANNOUNCE_INTERVAL).expiry(MembershipConfig.DEFAULT_EXPIRY);
        }

        /** Netty event loop threads per node. */
        public Builder ioThreads(int ioThreads) {
            if (ioThreads < 1) {
                throw new IllegalArgumentException("ioThreads: " + ioThreads + " (expected: >= 1)");
            }
            this.ioThreads = ioThreads;
            return this;
        }

        /** The client settings of {@link #config(String)}. */
        public Builder client(ClientConfig client) {
            this.client = requireNonNull(client, "client");
            return this;
        }

        /** TLS required between the nodes, each with a certificate of its own from {@link #certificates()}. */
        public Builder tls() {
            this.tls = true;
            return this;
        }

        /** {@link #tls()} on {@code provider}. */
        public Builder tls(SecurityConfig.TlsProvider provider) {
            this.provider = requireNonNull(provider, "provider");
            return tls();
        }

        /** Closes the nodes all at once: 20 JGroups members leaving one by one take about 20 s. */
        public Builder closeInParallel() {
            this.closeInParallel = true;
            return this;
        }

        /** A cluster with no nodes yet; add them with {@link #add}. */
        public MiniCluster build() {
            return new MiniCluster(this);
        }

        /** A cluster of {@code count} nodes {@code node-0..}, each configured by {@code hosting}; closed if one fails. */
        public MiniCluster start(int count, Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting) {
            MiniCluster cluster = build();
            try {
                for (int i = 0; i < count; i++) {
                    cluster.add("node-" + i, cluster.client, hosting);
                }
                return cluster;
            } catch (RuntimeException e) {
                closeAfter(cluster, e);
                throw e;
            }
        }
    }
}
