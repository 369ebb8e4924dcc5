package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A rolling upgrade's mixed cluster (docs/protocols/wire.md, "Versions"): node-3 speaks wire version 1
 * ({@code wire-version: 1}, as a node of a release before version 2 does), node-1 and node-2 version 2,
 * and the three hold the replicas of one level-2 partition. A traced client, whose calls carry a trace
 * context in a version-2 metadata section, writes and reads from 8 threads. Every call succeeds, the
 * version-1 node serves reads and takes its replication (whose messages carry trace contexts to the
 * version-2 secondary only), the replicas end equal, and only the version-2 nodes record spans.
 */
class MixedWireVersionIT {
    private static final AttributeKey<String> NODE = AttributeKey.stringKey("neptune.node");
    private static final Duration LOAD = Duration.ofSeconds(5);
    private static final int THREADS = 8;

    @RegisterExtension
    final InMemoryTracing tracing = new InMemoryTracing();
    private final InMemorySpanExporter exporter = tracing.exporter;
    private final OpenTelemetrySdk sdk = tracing.sdk;

    @Test
    void versionOneAndTwoNodesServeOneReplicatedPartitionUnderTracedLoad() throws Exception {
        List<InnerCallIT.Ledger> ledgers = new ArrayList<>();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            for (int i = 1; i <= 3; i++) {
                // node-1 leads (the highest priority), so a version-2 primary replicates to both versions
                HostingConfig hosting = HostingConfig.builder().replicas(3).priority(4 - i).build();
                NodeConfig config = cluster.config("node-" + i, ClientConfig.defaults());
                if (i == 3) {
                    config = config.toBuilder().wireVersion(1).build();
                }
                InnerCallIT.Ledger ledger = new InnerCallIT.Ledger();
                ledgers.add(ledger);
                cluster.add(config, b -> b.openTelemetry(sdk).host(ledger, hosting));
            }
            NeptuneNode observer = cluster.add("observer", ClientConfig.defaults(), b -> b.openTelemetry(sdk));
            await().atMost(Duration.ofSeconds(60)).until(() -> observer.replicaRoles("ledger", 0).equals(Map.of(
                    NodeId.of("node-1"), ReplicaRole.PRIMARY, NodeId.of("node-2"), ReplicaRole.SECONDARY,
                    NodeId.of("node-3"), ReplicaRole.SECONDARY)));

            Set<String> acknowledged = ConcurrentHashMap.newKeySet();
            Map<String, AtomicInteger> readsBy = new ConcurrentHashMap<>();
            List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            long end = System.nanoTime() + LOAD.toNanos();
            ExecutorService load = Executors.newFixedThreadPool(THREADS);
            try {
                for (int t = 0; t < THREADS; t++) {
                    int thread = t;
                    load.execute(() -> {
                        NeptuneHandle session = NeptuneHandle.create();
                        CallOptions options = CallOptions.timeout(Duration.ofSeconds(10));
                        for (int n = 0; System.nanoTime() - end < 0; n++) {
                            try {
                                if (n % 4 == 0) {
                                    String entry = "t" + thread + "-" + n;
                                    observer.client().call(session, "ledger", 0, "add", AccessMode.WRITE,
                                            new InnerCallIT.Ledger.Add(entry), InnerCallIT.Ledger.Entries.class,
                                            options);
                                    acknowledged.add(entry);
                                } else {
                                    InnerCallIT.Ledger.Seen seen = observer.client().call(session, "ledger", 0, "seen",
                                            AccessMode.READ, new InnerCallIT.Ledger.Probe(0),
                                            InnerCallIT.Ledger.Seen.class, options);
                                    readsBy.computeIfAbsent(seen.node(), k -> new AtomicInteger()).incrementAndGet();
                                }
                            } catch (RuntimeException e) {
                                failures.add(e);
                            }
                        }
                    });
                }
            } finally {
                load.shutdown();
                assertThat(load.awaitTermination(60, TimeUnit.SECONDS)).as("the load ended").isTrue();
            }

            assertThat(failures).as("failed calls").isEmpty();
            assertThat(acknowledged).as("acknowledged writes").hasSizeGreaterThan(20);
            assertThat(readsBy.keySet()).as("the nodes that served reads: %s", readsBy).contains("node-3")
                    .containsAnyOf("node-1", "node-2");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                List<String> first = ledgers.get(0).entries(null, new InnerCallIT.Ledger.Probe(0)).entries();
                assertThat(first).containsAll(acknowledged);
                for (InnerCallIT.Ledger ledger : ledgers) {
                    assertThat(ledger.entries(null, new InnerCallIT.Ledger.Probe(0)).entries()).isEqualTo(first);
                }
            });
            Set<String> tracedBy = exporter.getFinishedSpanItems().stream()
                    .filter(s -> s.getKind() == SpanKind.SERVER).map(s -> s.getAttributes().get(NODE))
                    .collect(Collectors.toSet());
            assertThat(tracedBy).as("nodes that recorded SERVER spans").contains("node-1", "node-2")
                    .doesNotContain("node-3");
            List<SpanData> received = exporter.getFinishedSpanItems().stream()
                    .filter(s -> s.getName().equals("replicate") && s.getKind() == SpanKind.SERVER).toList();
            assertThat(received).as("replication spans of the version-2 secondary").isNotEmpty()
                    .allSatisfy(s -> assertThat(s.getAttributes().get(NODE)).isNotEqualTo("node-3"));
        }
    }
}
