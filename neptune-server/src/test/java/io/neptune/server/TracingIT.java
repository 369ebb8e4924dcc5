package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.replication.runtime.ReplicationEngine;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * OpenTelemetry spans across three tiers on real nodes: a client calls the front on node-1, whose
 * method calls the ledger on node-2 through an inner proxy. The trace is one, connected: the client's
 * CLIENT span, the front's SERVER span (with its queue wait as a child), the inner CLIENT span as the
 * SERVER span's child, and the ledger's SERVER span under it; each names its service, partition,
 * method, node and outcome. A replicated write's replication is a span on its primary and on the
 * secondary that receives its record; a stream is a span on each side from its open to its end; a
 * level-3 read that waited at a replica for its version runs in its own trace.
 */
class TracingIT {
    private static final AttributeKey<String> NODE = AttributeKey.stringKey("neptune.node");
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("neptune.outcome");

    @RegisterExtension
    final InMemoryTracing tracing = new InMemoryTracing();
    private final InMemorySpanExporter exporter = tracing.exporter;
    private final OpenTelemetrySdk sdk = tracing.sdk;

    @Test
    void aThreeTierCallIsOneConnectedTrace() {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            cluster.add("node-1", ClientConfig.defaults(), b -> b.openTelemetry(sdk)
                    .host(new InnerCallIT.Front(), HostingConfig.builder().build()));
            cluster.add("node-2", ClientConfig.defaults(), b -> b.openTelemetry(sdk)
                    .host(new InnerCallIT.Ledger(), HostingConfig.builder().build()));
            NeptuneNode observer = cluster.add("observer", ClientConfig.defaults(), b -> b.openTelemetry(sdk));
            for (String service : List.of("front", "ledger")) {
                await().atMost(Duration.ofSeconds(30)).until(() -> observer.replicaRoles(service, 0).containsValue(
                        ReplicaRole.PRIMARY));
            }
            exporter.reset();

            InnerCallIT.Front.Asked asked = observer.client().call(NeptuneHandle.create(), "front", 0, "ask",
                    AccessMode.READ, new InnerCallIT.Ledger.Probe(0), InnerCallIT.Front.Asked.class,
                    CallOptions.timeout(Duration.ofSeconds(10)));
            assertThat(asked.failure()).isEmpty();

            await().atMost(Duration.ofSeconds(10)).until(() -> exporter.getFinishedSpanItems().size() >= 6);
            List<SpanData> spans = exporter.getFinishedSpanItems();
            assertThat(spans.stream().map(SpanData::getTraceId).collect(Collectors.toSet())).as("one trace: %s", spans)
                    .hasSize(1);
            Map<String, SpanData> byId = spans.stream().collect(Collectors.toMap(SpanData::getSpanId, s -> s));
            SpanData client = only(spans, s -> s.getKind() == SpanKind.CLIENT && s.getName().equals("front/ask"));
            SpanData front = only(spans, s -> s.getKind() == SpanKind.SERVER && s.getName().equals("front/ask"));
            SpanData inner = only(spans, s -> s.getKind() == SpanKind.CLIENT && s.getName().equals("ledger/seen"));
            SpanData ledger = only(spans, s -> s.getKind() == SpanKind.SERVER && s.getName().equals("ledger/seen"));

            assertThat(client.getParentSpanContext().isValid()).as("the client's span is the root").isFalse();
            assertThat(front.getParentSpanId()).isEqualTo(client.getSpanId());
            assertThat(inner.getParentSpanId()).as("the inner call runs in the front's span").isEqualTo(front.getSpanId());
            assertThat(ledger.getParentSpanId()).isEqualTo(inner.getSpanId());
            assertThat(spans).filteredOn(s -> s.getName().equals("queue"))
                    .extracting(SpanData::getParentSpanId).containsExactlyInAnyOrder(front.getSpanId(), ledger.getSpanId());
            assertThat(byId).containsKeys(client.getSpanId(), front.getSpanId(), inner.getSpanId(), ledger.getSpanId());

            assertThat(client.getAttributes().get(NODE)).isEqualTo(new NodeId("observer").value());
            assertThat(front.getAttributes().get(NODE)).isEqualTo("node-1");
            assertThat(ledger.getAttributes().get(NODE)).isEqualTo("node-2");
            assertThat(List.of(client, front, inner, ledger)).allSatisfy(s -> {
                assertThat(s.getAttributes().get(OUTCOME)).isEqualTo("OK");
                assertThat(s.getAttributes().get(AttributeKey.longKey("neptune.partition"))).isZero();
                assertThat(s.getAttributes().get(AttributeKey.stringKey("rpc.system"))).isEqualTo("neptune");
            });
            assertThat(front.getStartEpochNanos()).isGreaterThanOrEqualTo(client.getStartEpochNanos());
            assertThat(ledger.getEndEpochNanos()).isLessThanOrEqualTo(front.getEndEpochNanos());
        }
    }

    /**
     * A client calls the front on node-1, whose method writes to the ledger, replicated on node-2 and
     * node-3, through a blocking inner call. The ledger's primary records the write's replication as a
     * {@code replicate} span under the write's SERVER span, and the secondary the record's arrival as a
     * {@code replicate} span under that one, naming its LSN: all in the client's one trace.
     */
    @Test
    void aReplicatedWriteTracesItsReplicationOnBothReplicas() {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            cluster.add("node-1", ClientConfig.defaults(), b -> b.openTelemetry(sdk)
                    .host(new InnerCallIT.Front(), HostingConfig.builder().build()));
            HostingConfig twoReplicas = HostingConfig.builder().replicas(2).build();
            for (String node : List.of("node-2", "node-3")) {
                cluster.add(node, ClientConfig.defaults(), b -> b.openTelemetry(sdk)
                        .host(new InnerCallIT.Ledger(), twoReplicas));
            }
            NeptuneNode observer = cluster.add("observer", ClientConfig.defaults(), b -> b.openTelemetry(sdk));
            await().atMost(Duration.ofSeconds(30)).until(() -> observer.replicaRoles("front", 0).containsValue(
                    ReplicaRole.PRIMARY));
            await().atMost(Duration.ofSeconds(30)).until(() -> observer.replicaRoles("ledger", 0).values().stream()
                    .sorted().toList().equals(List.of(ReplicaRole.PRIMARY, ReplicaRole.SECONDARY)));
            exporter.reset();

            InnerCallIT.Ledger.Entries entries = observer.client().call(NeptuneHandle.create(), "front", 0,
                    "addToLedger", AccessMode.READ, new InnerCallIT.Ledger.Add("traced"),
                    InnerCallIT.Ledger.Entries.class, CallOptions.timeout(Duration.ofSeconds(10)));
            assertThat(entries.entries()).contains("traced");

            await().atMost(Duration.ofSeconds(10)).until(() -> exporter.getFinishedSpanItems().stream()
                    .anyMatch(s -> s.getName().equals("replicate") && s.getKind() == SpanKind.SERVER));
            List<SpanData> spans = exporter.getFinishedSpanItems();
            assertThat(spans.stream().map(SpanData::getTraceId).collect(Collectors.toSet())).as("one trace: %s", spans)
                    .hasSize(1);
            SpanData front = only(spans, s -> s.getKind() == SpanKind.SERVER
                    && s.getName().equals("front/addToLedger"));
            SpanData inner = only(spans, s -> s.getKind() == SpanKind.CLIENT && s.getName().equals("ledger/add"));
            SpanData write = only(spans, s -> s.getKind() == SpanKind.SERVER && s.getName().equals("ledger/add"));
            SpanData replicate = only(spans, s -> s.getKind() == SpanKind.INTERNAL && s.getName().equals("replicate"));
            List<SpanData> received = spans.stream()
                    .filter(s -> s.getKind() == SpanKind.SERVER && s.getName().equals("replicate")).toList();

            assertThat(inner.getParentSpanId()).isEqualTo(front.getSpanId());
            assertThat(write.getParentSpanId()).isEqualTo(inner.getSpanId());
            assertThat(replicate.getParentSpanId()).as("the primary's replication").isEqualTo(write.getSpanId());
            assertThat(replicate.getAttributes().get(NODE)).isEqualTo(write.getAttributes().get(NODE));
            assertThat(replicate.getAttributes().get(OUTCOME)).isEqualTo("OK");
            assertThat(received).as("the secondary's span of the record").isNotEmpty().allSatisfy(s -> {
                assertThat(s.getParentSpanId()).isEqualTo(replicate.getSpanId());
                assertThat(s.getAttributes().get(NODE)).isIn("node-2", "node-3")
                        .isNotEqualTo(write.getAttributes().get(NODE));
                assertThat(s.getAttributes().get(AttributeKey.longKey("neptune.lsn"))).isPositive();
                assertThat(s.getAttributes().get(AttributeKey.stringKey("neptune.service"))).isEqualTo("ledger");
                assertThat(s.getAttributes().get(OUTCOME)).isEqualTo("OK");
            });
            assertThat(replicate.getEndEpochNanos()).isLessThanOrEqualTo(write.getEndEpochNanos());
        }
    }

    /**
     * A stream is one CLIENT span and one SERVER span, each from its open to its end: a stream that
     * completes ends them OK, one whose producer fails ends them as errors.
     */
    @Test
    void aStreamIsASpanFromItsOpenToItsEnd() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            cluster.add("node-1", ClientConfig.defaults(), b -> b.openTelemetry(sdk)
                    .host(new StreamTestService(), HostingConfig.builder().build()));
            NeptuneNode observer = cluster.add("observer", ClientConfig.defaults(), b -> b.openTelemetry(sdk));
            await().atMost(Duration.ofSeconds(30)).until(() -> observer.knownNodes().contains(new NodeId("node-1")));

            for (StreamTestService.Range range : List.of(StreamTestService.Range.of(100),
                    new StreamTestService.Range(100, 16, 0, 5, -1))) {
                exporter.reset();
                RecordingSubscriber<StreamTestService.Item> subscriber = RecordingSubscriber.all();
                observer.client().openStream(NeptuneHandle.create(), "streams", 0, "produce", range,
                        StreamTestService.Item.class, CallOptions.timeout(Duration.ofSeconds(10))).subscribe(subscriber);
                subscriber.done().handle((v, e) -> null).get(10, TimeUnit.SECONDS);
                boolean fails = range.failAt() >= 0;

                await().atMost(Duration.ofSeconds(10)).until(() -> exporter.getFinishedSpanItems().stream()
                        .filter(s -> s.getName().equals("streams/produce")).count() == 2);
                List<SpanData> spans = exporter.getFinishedSpanItems();
                SpanData client = only(spans, s -> s.getKind() == SpanKind.CLIENT
                        && s.getName().equals("streams/produce"));
                SpanData server = only(spans, s -> s.getKind() == SpanKind.SERVER
                        && s.getName().equals("streams/produce"));
                assertThat(server.getParentSpanId()).isEqualTo(client.getSpanId());
                assertThat(server.getAttributes().get(OUTCOME)).isEqualTo(fails ? "METHOD_FAILED" : "OK");
                assertThat(client.getAttributes().get(OUTCOME).equals("OK")).as("the client's outcome OK: %s",
                        client.getAttributes().get(OUTCOME)).isEqualTo(!fails);
                assertThat(List.of(client, server)).allSatisfy(s -> assertThat(s.getStatus().getStatusCode())
                        .isEqualTo(fails ? StatusCode.ERROR : StatusCode.UNSET));
                assertThat(server.getEndEpochNanos()).isLessThanOrEqualTo(client.getEndEpochNanos());
            }
        }
    }

    /**
     * A level-3 read at a replica behind the version it asks for waits there for the version, and then
     * runs in the read's own trace: its queue wait is a child of its SERVER span, however long the wait
     * and whichever thread the version arrived on.
     */
    @Test
    void aReadThatWaitedForItsVersionRunsInItsTrace() throws Exception {
        VersionedTestService lagging = new VersionedTestService();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            for (int i = 1; i <= 3; i++) {   // node-1 the primary, node-3 the replica held behind
                HostingConfig hosting = HostingConfig.builder().replicas(3).priority(4 - i).build();
                VersionedTestService service = i == 3 ? lagging : new VersionedTestService();
                cluster.add("node-" + i, ClientConfig.defaults(), b -> b.openTelemetry(sdk).host(service, hosting));
            }
            NeptuneNode observer = cluster.add("observer", ClientConfig.defaults(), b -> b.openTelemetry(sdk));
            await().atMost(Duration.ofSeconds(30)).until(() -> observer.replicaRoles("versioned", 0).equals(Map.of(
                    NodeId.of("node-1"), ReplicaRole.PRIMARY, NodeId.of("node-2"), ReplicaRole.SECONDARY,
                    NodeId.of("node-3"), ReplicaRole.SECONDARY)));

            CompletableFuture<ResponseMessage> read;
            try (VersionedTestService.Hold hold = lagging.hold(VersionedTestService.Gate.BEFORE_APPLYING)) {
                long lsn = observer.client().call(NeptuneHandle.create(), "versioned", 0, "set", AccessMode.WRITE,
                        new VersionedTestService.Set("v"), VersionedTestService.Written.class).lsn();
                hold.awaitHeld(Duration.ofSeconds(10));   // node-3 logged the write and cannot apply it yet
                exporter.reset();
                RequestMessage get = new RequestMessage(0, "versioned", 0, "get", AccessMode.READ, 10_000, lsn,
                        RequestId.NONE, Json.mapper().writeValueAsBytes(new VersionedTestService.Get()));
                read = ((DefaultNeptuneClient) observer.client()).sendTo(NodeId.of("node-3"), get, 0);
                CompletableFuture<ResponseMessage> waiting = read;
                // released well within the replica's bounded wait for the version
                assertThatThrownBy(() -> waiting.get(50, TimeUnit.MILLISECONDS)).as("node-3 waits for version %d", lsn)
                        .isInstanceOf(TimeoutException.class);
            }
            ResponseMessage response = read.get(10, TimeUnit.SECONDS);
            assumeThat(response.status()).as("node-3 applied the write only after its %d ms wait: this run shows"
                    + " nothing", ReplicationEngine.VERSION_WAIT_MILLIS).isNotEqualTo(Status.STALE);
            assertThat(response.status()).as(response.errorMessage()).isEqualTo(Status.OK);

            await().atMost(Duration.ofSeconds(10)).until(() -> exporter.getFinishedSpanItems().stream()
                    .anyMatch(s -> s.getKind() == SpanKind.SERVER && s.getName().equals("versioned/get")));
            List<SpanData> spans = exporter.getFinishedSpanItems();
            SpanData server = only(spans, s -> s.getKind() == SpanKind.SERVER && s.getName().equals("versioned/get"));
            SpanData queue = only(spans, s -> s.getName().equals("queue"));
            assertThat(queue.getTraceId()).as("the queue span's trace").isEqualTo(server.getTraceId());
            assertThat(queue.getParentSpanId()).as("the queue span's parent").isEqualTo(server.getSpanId());
        }
    }

    private static SpanData only(List<SpanData> spans, Predicate<SpanData> which) {
        List<SpanData> found = spans.stream().filter(which).toList();
        assertThat(found).as("of %s", spans).hasSize(1);
        return found.get(0);
    }
}
