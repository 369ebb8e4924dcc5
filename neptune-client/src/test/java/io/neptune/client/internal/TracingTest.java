package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.Metadata;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a call's trace context goes on the wire and is picked up again: nothing at all with tracing
 * off; a CLIENT span's {@code traceparent} in the request's metadata, which the serving node's SERVER
 * span continues; and without an SDK, a trace that came in is still passed on.
 */
class TracingTest {
    private static final NodeId NODE = NodeId.of("node-1");
    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();

    @AfterEach
    void close() {
        sdk.close();
    }

    private static RequestMessage call() {
        return new RequestMessage(0, "front", 2, "page", AccessMode.READ, 1000, 0, RequestId.NONE,
                "{}".getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void tracingOffMakesNoSpanAndAddsNothingToTheRequest() {
        assertThat(Tracing.OFF.clientSpan(NODE, call())).isNull();
        assertThat(Tracing.OFF.serverSpan(NODE, call())).isNull();
    }

    @Test
    void aClientSpansContextTravelsInTheMetadataAndTheServerSpanContinuesIt() {
        Tracing tracing = new Tracing(sdk);
        Span client = tracing.clientSpan(NODE, call());
        assertThat(client).isNotNull();
        RequestMessage sent = Tracing.carrying(client, call());

        assertThat(sent.metadata().get("traceparent")).hasValueSatisfying(traceparent -> assertThat(traceparent)
                .contains(client.getSpanContext().getTraceId()).contains(client.getSpanContext().getSpanId()));
        Span server = tracing.serverSpan(NodeId.of("node-2"), sent);
        Tracing.endServer(server, "OK");
        Tracing.end(client, null);

        SpanData served = exporter.getFinishedSpanItems().stream().filter(s -> s.getSpanId()
                .equals(server.getSpanContext().getSpanId())).findFirst().orElseThrow();
        assertThat(served.getParentSpanId()).isEqualTo(client.getSpanContext().getSpanId());
        assertThat(served.getTraceId()).isEqualTo(client.getSpanContext().getTraceId());
    }

    @Test
    void withoutAnSdkATraceThatCameInIsPassedOnToTheInnerCalls() {
        Span outer = new Tracing(sdk).clientSpan(NODE, call());
        RequestMessage incoming = Tracing.carrying(outer, call());
        Tracing noSdk = new Tracing(OpenTelemetry.noop());

        Span server = noSdk.serverSpan(NODE, incoming);
        assertThat(server).as("the incoming trace, propagated").isNotNull();
        try (Scope scope = server.makeCurrent()) {
            Span inner = noSdk.clientSpan(NODE, call());
            assertThat(inner).isNotNull();
            assertThat(Tracing.carrying(inner, call()).metadata().get("traceparent"))
                    .hasValueSatisfying(t -> assertThat(t).contains(outer.getSpanContext().getTraceId()));
        }
        assertThat(Tracing.carrying(outer, call().withMetadata(Metadata.NONE.with("tenant", "a"))).metadata()
                .entries()).containsKeys("tenant", "traceparent");
    }
}
