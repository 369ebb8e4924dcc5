package io.neptune.examples.demo;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConfigException;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SdkTracerProviderBuilder;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The demo's tracing (docs/OPERATIONS.md, Tracing): every process of the demo, its own JVM (the
 * gateway's node, whose client makes the workload's calls) and each node process, records its spans
 * with an OpenTelemetry SDK. Sampling is parent-based always-on: every trace is kept. A
 * {@link BatchSpanProcessor} writes them to the traces file, {@code DIR/traces.jsonl} (OTLP JSON, a
 * line per batch, {@link OtlpJsonFileSpanExporter}), and another one sends them to an OTLP endpoint
 * over HTTP/protobuf when one is configured ({@code --otlp-endpoint} or {@code OTEL_EXPORTER_OTLP_ENDPOINT});
 * nothing is sent anywhere otherwise.
 *
 * <p>The demo's own nodes take the SDK from {@link #openSdk()}; a node process gets these settings as
 * the system properties of {@link #nodeJvmOptions()} and installs its SDK in {@link DemoNodeMain}.
 *
 * <p>Thread-safety: immutable.
 */
public final class DemoTracing {
    /** The traces file's name in the demo's data directory. */
    public static final String FILE = "traces.jsonl";
    /** The environment variable of OpenTelemetry's exporters naming the OTLP endpoint (a base URL). */
    public static final String ENDPOINT_VARIABLE = "OTEL_EXPORTER_OTLP_ENDPOINT";
    /** The {@code service.name} of every process's spans. */
    public static final String SERVICE_NAME = "neptune-demo";

    /** System properties of a node process: not under {@code neptune.}, where a node reads config overrides. */
    static final String FILE_PROPERTY = "demo.tracing.file";
    static final String ENDPOINT_PROPERTY = "demo.tracing.otlp-endpoint";
    /** How long a batch waits before it is written: the file follows the demo within a second. */
    private static final Duration EXPORT_DELAY = Duration.ofSeconds(1);
    private static final String TRACES_PATH = "/v1/traces";

    private final Path file;
    private final @Nullable String endpoint;

    private DemoTracing(Path file, @Nullable String endpoint) {
        this.file = file.toAbsolutePath();
        this.endpoint = endpoint;
    }

    /**
     * The demo's tracing for the data directory {@code data}: spans to {@code data/traces.jsonl}, and to
     * {@code endpointOption} if given, else to {@code environment}'s {@value #ENDPOINT_VARIABLE} if set.
     *
     * @param endpointOption an OTLP/HTTP base URL such as {@code http://127.0.0.1:4318}, or null
     * @throws ConfigException if the endpoint is not an http or https URL
     */
    public static DemoTracing of(Path data, @Nullable String endpointOption, Map<String, String> environment) {
        if (endpointOption != null) {
            return new DemoTracing(data.resolve(FILE), validEndpoint("--otlp-endpoint", endpointOption));
        }
        String fromEnvironment = environment.get(ENDPOINT_VARIABLE);
        if (fromEnvironment == null || fromEnvironment.isBlank()) {
            return new DemoTracing(data.resolve(FILE), null);
        }
        return new DemoTracing(data.resolve(FILE), validEndpoint(ENDPOINT_VARIABLE, fromEnvironment.strip()));
    }

    /** The settings {@link #nodeJvmOptions()} handed to this node process, or empty if it was given none. */
    static Optional<DemoTracing> fromSystemProperties() {
        String file = System.getProperty(FILE_PROPERTY);
        if (file == null) {
            return Optional.empty();
        }
        String endpoint = System.getProperty(ENDPOINT_PROPERTY);
        return Optional.of(new DemoTracing(Path.of(file), endpoint));
    }

    private static String validEndpoint(String setting, String endpoint) {
        ConfigException invalid = new ConfigException(setting, endpoint
                + " (expected: an http or https URL, e.g. http://127.0.0.1:4318)");
        URI uri;
        try {
            uri = new URI(endpoint);
        } catch (URISyntaxException e) {
            throw invalid;
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        boolean http = scheme.equals("http") || scheme.equals("https");
        if (!http || uri.getHost() == null) {
            throw invalid;
        }
        return endpoint;
    }

    /** The traces file, absolute. */
    public Path file() {
        return file;
    }

    /** The OTLP endpoint's base URL, if one is configured. */
    public Optional<String> endpoint() {
        return Optional.ofNullable(endpoint);
    }

    /**
     * Where the spans are sent: {@link #endpoint()} with OTLP/HTTP's {@code /v1/traces} appended, as
     * {@value #ENDPOINT_VARIABLE} is read by OpenTelemetry's exporters.
     */
    public Optional<String> tracesUrl() {
        if (endpoint == null) {
            return Optional.empty();
        }
        String base = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        return Optional.of(base + TRACES_PATH);
    }

    /** One line for the demo's output: where the traces go. */
    public String description() {
        String sent = tracesUrl().map(url -> " and to " + url + " (OTLP/HTTP)").orElse("");
        return "every process's spans to " + file + " (OTLP JSON, a line per batch)" + sent
                + "; --no-tracing turns them off";
    }

    /** Deletes the traces file of an earlier run: the file holds this run's traces only. */
    public void clearFile() {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the traces file " + file, e);
        }
    }

    /** {@link io.neptune.server.cli.LocalCluster#NODE_JVM_OPTIONS} plus these settings, for {@link DemoNodeMain}. */
    public List<String> nodeJvmOptions() {
        List<String> options = new ArrayList<>(io.neptune.server.cli.LocalCluster.NODE_JVM_OPTIONS);
        options.add("-D" + FILE_PROPERTY + "=" + file);
        if (endpoint != null) {
            options.add("-D" + ENDPOINT_PROPERTY + "=" + endpoint);
        }
        return options;
    }

    /**
     * A new SDK recording every trace (parent-based always-on) and exporting it in batches to the file
     * and the endpoint; close it to flush what is buffered.
     *
     * @throws UncheckedIOException if the traces file cannot be opened
     */
    public OpenTelemetrySdk openSdk() {
        OtlpJsonFileSpanExporter toFile;
        try {
            Files.createDirectories(requireNonNull(file.getParent(), "the traces file's directory"));
            toFile = new OtlpJsonFileSpanExporter(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the traces file " + file, e);
        }
        SdkTracerProviderBuilder tracerProvider = SdkTracerProvider.builder()
                .setResource(Resource.getDefault().merge(Resource.create(
                        Attributes.of(AttributeKey.stringKey("service.name"), SERVICE_NAME))))
                .setSampler(Sampler.parentBased(Sampler.alwaysOn()))
                .addSpanProcessor(BatchSpanProcessor.builder(toFile).setScheduleDelay(EXPORT_DELAY).build());
        tracesUrl().ifPresent(url -> tracerProvider.addSpanProcessor(BatchSpanProcessor.builder(
                OtlpHttpSpanExporter.builder().setEndpoint(url).build()).setScheduleDelay(EXPORT_DELAY).build()));
        return OpenTelemetrySdk.builder().setTracerProvider(tracerProvider.build()).build();
    }
}
