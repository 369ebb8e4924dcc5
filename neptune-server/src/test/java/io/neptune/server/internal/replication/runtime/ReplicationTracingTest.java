package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.internal.Tracing;
import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.Metadata;
import io.neptune.server.internal.replication.protocol.Ack;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The replica's side of replication spans: a span per traced record a {@code replicate} message
 * names, ended with the replica's answer; what is not a trace context of a record is skipped, and
 * never stops the message.
 */
class ReplicationTracingTest {
    private static final String TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();
    private final ReplicationTracing tracing = new ReplicationTracing(NodeId.of("node-2"));
    private final List<Object> answers = new ArrayList<>();
    private final Consumer<Object> answer = answers::add;

    ReplicationTracingTest() {
        tracing.traceWith(new Tracing(sdk));
    }

    @AfterEach
    void close() {
        sdk.close();
    }

    @Test
    void eachTracedRecordIsASpanUnderThePrimarysEndedWithTheAnswer() {
        Consumer<Object> traced = tracing.received("kv", 3, new Metadata(Map.of("tp.7", TRACEPARENT, "tp.8",
                TRACEPARENT)), answer);
        assertThat(exporter.getFinishedSpanItems()).as("open until answered").isEmpty();

        Ack refused = new Ack(false, 6, 2, "gap");
        traced.accept(refused);

        assertThat(answers).containsExactly(refused);
        List<SpanData> spans = exporter.getFinishedSpanItems();
        assertThat(spans).hasSize(2).allSatisfy(span -> {
            assertThat(span.getName()).isEqualTo("replicate");
            assertThat(span.getKind()).isEqualTo(SpanKind.SERVER);
            assertThat(span.getTraceId()).isEqualTo("0af7651916cd43dd8448eb211c80319c");
            assertThat(span.getParentSpanId()).isEqualTo("b7ad6b7169203331");
            assertThat(span.getAttributes().get(AttributeKey.stringKey("neptune.outcome"))).isEqualTo("refused: gap");
            assertThat(span.getAttributes().get(AttributeKey.stringKey("neptune.node"))).isEqualTo("node-2");
        });
        assertThat(spans).extracting(span -> span.getAttributes().get(AttributeKey.longKey("neptune.lsn")))
                .containsExactlyInAnyOrder(7L, 8L);
    }

    @Test
    void whatIsNoTraceOfARecordIsSkippedAndTheAnswerGoesThrough() {
        Metadata malformed = new Metadata(Map.of("tp.x", TRACEPARENT, "tp.-4", TRACEPARENT, "tp.9", "not-a-context",
                "baggage", "k=v"));
        Consumer<Object> traced = tracing.received("kv", 3, malformed, answer);

        assertThat(traced).as("no span to end: the answer itself").isSameAs(answer);
        assertThat(tracing.received("kv", 3, Metadata.NONE, answer)).isSameAs(answer);
        traced.accept("ok");
        assertThat(answers).containsExactly("ok");
        assertThat(exporter.getFinishedSpanItems()).isEmpty();
    }
}
