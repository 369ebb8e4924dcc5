package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import org.jspecify.annotations.Nullable;

/**
 * Where a node's meters and spans go.
 *
 * @param meterRegistry the application's registry to record the node's meters into; null: a registry
 *     of the node's own ({@link NodeMetrics})
 * @param openTelemetry the OpenTelemetry whose tracer records the node's spans (no-op: none)
 */
public record Telemetry(@Nullable MeterRegistry meterRegistry, OpenTelemetry openTelemetry) {
    /** Validates the fields. */
    public Telemetry {
        requireNonNull(openTelemetry, "openTelemetry");
    }
}
