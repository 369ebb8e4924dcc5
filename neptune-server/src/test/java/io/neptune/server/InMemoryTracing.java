package io.neptune.server;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An OpenTelemetry SDK whose spans go, each as it ends, to an in-memory exporter; closed after each
 * test. Register it as an instance field: {@code @RegisterExtension final InMemoryTracing tracing = ...}.
 */
final class InMemoryTracing implements AfterEachCallback {
    /** Where the ended spans are. */
    final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    /** The SDK to give the nodes and clients under test. */
    final OpenTelemetrySdk sdk = OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder()
            .addSpanProcessor(SimpleSpanProcessor.create(exporter)).build()).build();

    @Override
    public void afterEach(ExtensionContext context) {
        sdk.close();
    }
}
