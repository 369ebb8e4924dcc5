package io.neptune.benchmarks;

import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;

/**
 * The OpenTelemetry SDKs of the invocation-overhead experiment's tracing rows: the SDK's tracer
 * provider with a {@link BatchSpanProcessor} (its defaults) feeding the SDK's own
 * {@linkplain SpanExporter#noop() no-op exporter}, so a recorded span pays for its creation, its
 * attributes, the processor's queue and its conversion for export, but no serialization or network.
 */
enum TracingSdk {
    /** Installed, but the sampler is always-off: spans are made non-recording, nothing is queued. */
    UNSAMPLED(Sampler.alwaysOff()),
    /** Every span recorded and handed, in batches, to the no-op exporter. */
    SAMPLED(Sampler.alwaysOn());

    private final Sampler sampler;

    TracingSdk(Sampler sampler) {
        this.sampler = sampler;
    }

    /** A new SDK with this sampler; close it after the nodes that use it. */
    OpenTelemetrySdk open() {
        return OpenTelemetrySdk.builder().setTracerProvider(SdkTracerProvider.builder().setSampler(sampler)
                .addSpanProcessor(BatchSpanProcessor.builder(SpanExporter.noop()).build()).build()).build();
    }
}
