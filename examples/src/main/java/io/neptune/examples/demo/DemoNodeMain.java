package io.neptune.examples.demo;

import io.neptune.server.cli.NeptuneCli;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;

/**
 * The main of the demo's node processes when it traces: installs the SDK of {@link DemoTracing} (from
 * the system properties the demo passes) as {@link GlobalOpenTelemetry}, which a node uses when its
 * builder is given none, then runs {@code neptune node} ({@link NeptuneCli}) with the same arguments.
 * The SDK is closed, so its last spans are written, when the JVM exits: after the node stopped on
 * SIGTERM, or along with it when the demo's process ended.
 */
public final class DemoNodeMain {
    private DemoNodeMain() {}

    /** Installs the demo's SDK, if the demo passed its settings, and runs {@link NeptuneCli#main}. */
    public static void main(String[] args) {
        DemoTracing.fromSystemProperties().ifPresent(tracing -> {
            OpenTelemetrySdk sdk = tracing.openSdk();
            GlobalOpenTelemetry.set(sdk);
            Runtime.getRuntime().addShutdownHook(new Thread(sdk::close, "neptune-demo-tracing-shutdown"));
        });
        NeptuneCli.main(args);
    }
}
