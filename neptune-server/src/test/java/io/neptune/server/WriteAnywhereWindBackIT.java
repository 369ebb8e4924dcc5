package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.ClientConfig;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Wind-back at level 1 (DESIGN §6.1, §6.5): a replica written with {@code log-sync: none} comes back
 * from a machine crash with its REDO log as it was at its last force, without its own latest writes,
 * which its peers already have. Real nodes on the loopback JGroups stack, real logs; the crash is
 * the node's log directory put back to a copy taken at an earlier clean stop, which is what a power
 * cut leaves of a log that was never forced after it (the set service keeps its state in memory, so
 * the restarted node rebuilds it from its log). The replica must get its own lost writes back from
 * its peers and never give out an origin sequence twice: a reused one would name, at its peers, the
 * lost write they already hold, and they would never take the new one.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class WriteAnywhereWindBackIT {
    private static final String SERVICE = "set";
    private static final int PARTITION = 1;
    private static final List<String> NODES = List.of("node-0", "node-1", "node-2");
    private static final String CRASHING = "node-2";

    @TempDir
    Path work;

    @Test
    void aReplicaThatLostItsUnsyncedTailGetsItsOwnWritesBackAndNeverReusesTheirSequence() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            for (String node : NODES) {
                start(cluster, node);
            }
            NeptuneNode observer = cluster.add("observer", ClientConfig.defaults(), b -> b);
            awaitServing(observer, NODES);
            add(observer, CRASHING, "e1", "e2", "e3");
            awaitEveryNodeHas(observer, 3);

            NeptuneNode crashing = node(cluster, CRASHING);
            Path log = cluster.config(CRASHING, ClientConfig.defaults()).dataDirectory().resolve(SERVICE)
                    .resolve("log-" + PARTITION);
            crashing.close();  // a clean stop: its log is forced, a durable starting point
            Path synced = copy(log, work.resolve("synced"));
            start(cluster, CRASHING);
            awaitServing(observer, List.of(CRASHING));
            add(observer, CRASHING, "e4", "e5");  // logged with log-sync none: in the page cache only
            awaitEveryNodeHas(observer, 5);
            node(cluster, CRASHING).close();
            restore(synced, log);  // the power cut: the log is back at its last force, without e4 and e5

            start(cluster, CRASHING);
            awaitServing(observer, List.of(CRASHING));
            add(observer, CRASHING, "e6");

            awaitEveryNodeHas(observer, 6);
            Map<String, Object> reference = status(observer, "node-0");
            for (String node : NODES) {
                assertThat(status(observer, node).get("digest")).as("digest of %s", node)
                        .isEqualTo(reference.get("digest"));
            }
            assertThat((String) reference.get("digest")).as("e1..e6, each once").endsWith("/6");
        }
    }

    private static void start(MiniCluster cluster, String node) {
        NodeConfig config = cluster.config(node, ClientConfig.defaults()).toBuilder().logSync(NodeConfig.LogSync.NONE)
                .build();
        cluster.add(config, b -> b.host(new SetTestService(), HostingConfig.builder().replicas(NODES.size()).build()));
    }

    /** The most recently started node named {@code name}. */
    private static NeptuneNode node(MiniCluster cluster, String name) {
        List<NeptuneNode> nodes = cluster.nodes();
        for (int i = nodes.size() - 1; i >= 0; i--) {
            if (nodes.get(i).node().value().equals(name)) {
                return nodes.get(i);
            }
        }
        throw new AssertionError("no node " + name);
    }

    /** Adds {@code elements} at {@code node}, each acknowledged there. */
    private static void add(NeptuneNode observer, String node, String... elements) throws Exception {
        for (String element : elements) {
            RequestMessage request = new RequestMessage(0, SERVICE, PARTITION, "add", AccessMode.WRITE, 10_000, 0,
                    RequestId.random(), Json.mapper().writeValueAsBytes(new SetTestService.Add(element)));
            ResponseMessage response = ((DefaultNeptuneClient) observer.client())
                    .sendTo(NodeId.of(node), request, PARTITION).get(20, TimeUnit.SECONDS);
            assertThat(response.status()).as("add %s at %s: %s", element, node, response.errorMessage())
                    .isEqualTo(Status.OK);
        }
    }

    private static void awaitServing(NeptuneNode observer, List<String> nodes) {
        await(() -> nodes.stream().allMatch(n -> "SECONDARY".equals(statusIfUp(observer, n).get("role"))),
                nodes + " serving " + SERVICE + "#" + PARTITION);
    }

    /** Waits until every node's set holds {@code size} elements (the digest ends with the size). */
    private static void awaitEveryNodeHas(NeptuneNode observer, int size) {
        await(() -> NODES.stream().allMatch(n -> String.valueOf(statusIfUp(observer, n).get("digest"))
                .endsWith("/" + size)),
                "every replica with " + size + " elements");
    }

    private static Map<String, Object> status(NeptuneNode observer, String node) {
        return ReplicatedProcesses.status(observer, node, SERVICE, PARTITION);
    }

    /** The status, or an empty map while the node cannot be asked (it is starting, the yellow page lags). */
    private static Map<String, Object> statusIfUp(NeptuneNode observer, String node) {
        try {
            return status(observer, node);
        } catch (AssertionError e) {
            return Map.of();
        }
    }

    private static void await(BooleanSupplier condition, String what) {
        ReplicatedProcesses.await(condition, Duration.ofSeconds(60), what);
    }

    private static Path copy(Path from, Path to) {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Files.copy(file, to.resolve(from.relativize(file).toString()));
            }
            return to;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void restore(Path copy, Path to) {
        try (Stream<Path> files = Files.walk(to)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        copy(copy, to);
    }
}
