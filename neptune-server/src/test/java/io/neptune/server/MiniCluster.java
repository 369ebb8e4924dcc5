package io.neptune.server;

import io.neptune.client.ClientConfig;
import io.neptune.core.MembershipConfig;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * An in-JVM cluster of real nodes on the loopback JGroups stack, with data under a temporary
 * directory that close() deletes, each cluster in its own discovery
 * directory so concurrent test classes never see each other. Close it to stop every node.
 */
public final class MiniCluster implements AutoCloseable {
    private final String cluster = "test-" + UUID.randomUUID().toString().substring(0, 8);
    private final Path discovery;
    private final List<NeptuneNode> nodes = new ArrayList<>();
    private final @Nullable TestCertificates certificates;

    private MiniCluster(boolean tls) {
        try {
            discovery = Files.createTempDirectory("neptune-discovery-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        certificates = tls ? TestCertificates.create(discovery.resolve("certs"), cluster) : null;
    }

    /** Starts {@code count} nodes {@code node-0..}, each configured by {@code hosting}. */
    public static MiniCluster start(int count, Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting) {
        return start(false, count, hosting);
    }

    /**
     * Starts {@code count} nodes {@code node-0..} with TLS required, each with a certificate of its
     * own from the cluster's {@link #certificates()}, and each configured by {@code hosting}.
     */
    public static MiniCluster startWithTls(int count, Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting) {
        return start(true, count, hosting);
    }

    private static MiniCluster start(boolean tls, int count, Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting) {
        MiniCluster cluster = new MiniCluster(tls);
        try {
            for (int i = 0; i < count; i++) {
                cluster.nodes.add(hosting.apply(NeptuneNode.builder(cluster.config("node-" + i, ClientConfig.defaults())))
                        .start());
            }
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** The membership settings every node of this cluster uses. */
    public MembershipConfig membership() {
        return MembershipConfig.builder().cluster(cluster).discoveryDirectory(discovery)
                .announceInterval(Duration.ofMillis(200)).expiry(Duration.ofSeconds(2)).build();
    }

    /** A node config joining this cluster; with TLS, the node has a certificate of its own. */
    public NodeConfig config(String node, ClientConfig client) {
        NodeConfig.Builder config = NodeConfig.builder().node(node).ioThreads(2).membership(membership()).client(client)
                .dataDirectory(discovery.resolve("data").resolve(node));
        if (certificates != null) {
            config.security(certificates.node(node));
        }
        return config.build();
    }

    /** The authority that certifies this cluster's nodes (started with {@link #startWithTls}). */
    public TestCertificates certificates() {
        if (certificates == null) {
            throw new IllegalStateException("this cluster runs without TLS (expected: one from startWithTls)");
        }
        return certificates;
    }

    /** Starts one more node hosting what {@code hosting} adds. */
    public NeptuneNode add(String node, ClientConfig client, Function<NeptuneNode.Builder, NeptuneNode.Builder> hosting) {
        NeptuneNode started = hosting.apply(NeptuneNode.builder(config(node, client))).start();
        nodes.add(started);
        return started;
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

    /** The started nodes. */
    public List<NeptuneNode> nodes() {
        return Collections.unmodifiableList(nodes);
    }

    /** Node {@code i}. */
    public NeptuneNode node(int i) {
        return nodes.get(i);
    }

    /** Waits until every node's yellow page lists {@code count} nodes. */
    public void awaitNodes(int count) {
        ReplicatedProcesses.await(() -> nodes.stream().allMatch(n -> n.knownNodes().size() >= count),
                Duration.ofSeconds(30), "every yellow page to list " + count + " nodes");
    }

    @Override
    public void close() {
        for (NeptuneNode node : nodes) {
            node.close();
        }
        try (var files = Files.walk(discovery)) {
            files.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // best effort: a temp directory
        }
    }
}
