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
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * OpenTelemetry spans across three tiers on real nodes: a client calls the front on node-1, whose
 * method calls the ledger on node-2 through an inner proxy. The trace is one, connected: the client's
 * CLIENT span, the front's SERVER span (with its queue wait as a child), the inner CLIENT span as the
 * SERVER span's child, and the ledger's SERVER span under it; each names its service, partition,
 * method, node and outcome.
 */
class TracingIT {
    private static final AttributeKey<String> NODE = AttributeKey.stringKey("neptune.node");
    private static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("neptune.outcome");

    @Test
    void aThreeTierCallIsOneConnectedTrace() {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
                .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
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
        } finally {
            sdk.close();
        }
    }

    private static SpanData only(List<SpanData> spans, Predicate<SpanData> which) {
        List<SpanData> found = spans.stream().filter(which).toList();
        assertThat(found).as("of %s", spans).hasSize(1);
        return found.get(0);
    }
}
