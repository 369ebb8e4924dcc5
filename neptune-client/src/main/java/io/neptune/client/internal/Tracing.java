package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.Metadata;
import io.neptune.core.internal.wire.RequestMessage;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.baggage.propagation.W3CBaggagePropagator;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * Neptune's OpenTelemetry spans and their W3C trace context on the wire. A call gets a CLIENT span
 * whose context travels in the request's metadata ({@code traceparent}, {@code tracestate},
 * {@code baggage}; wire version 2); the node that serves it continues the trace with a SERVER span,
 * current while the method runs so its inner calls are its children, and a span for the time the
 * request waited in the queue. With the API's no-op implementation (no SDK installed), no span is
 * valid and nothing is added to a request: tracing off costs a check per call.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class Tracing {
    /** Tracing off: the no-op implementation. */
    public static final Tracing OFF = new Tracing(OpenTelemetry.noop());

    /** The instrumentation scope of Neptune's spans. */
    public static final String SCOPE = "io.neptune";
    static final AttributeKey<String> SERVICE = AttributeKey.stringKey("neptune.service");
    static final AttributeKey<Long> PARTITION = AttributeKey.longKey("neptune.partition");
    static final AttributeKey<String> METHOD = AttributeKey.stringKey("neptune.method");
    static final AttributeKey<String> CLASS = AttributeKey.stringKey("neptune.class");
    static final AttributeKey<String> NODE = AttributeKey.stringKey("neptune.node");
    static final AttributeKey<String> RPC_SYSTEM = AttributeKey.stringKey("rpc.system");
    static final AttributeKey<String> OUTCOME = AttributeKey.stringKey("neptune.outcome");
    static final AttributeKey<String> URL_PATH = AttributeKey.stringKey("url.path");
    static final AttributeKey<Long> HTTP_STATUS = AttributeKey.longKey("http.response.status_code");
    /** The header (and metadata key) of the W3C trace context. */
    public static final String TRACEPARENT = "traceparent";

    private static final TextMapPropagator PROPAGATOR = TextMapPropagator.composite(
            W3CTraceContextPropagator.getInstance(), W3CBaggagePropagator.getInstance());
    private static final TextMapGetter<Metadata> FROM_METADATA = new TextMapGetter<>() {
        @Override
        @SuppressWarnings("deprecation") // still abstract in the API; the W3C propagators only call get()
        public Iterable<String> keys(Metadata carrier) {
            return carrier.entries().keySet();
        }

        @Override
        public @Nullable String get(@Nullable Metadata carrier, String key) {
            return carrier == null ? null : carrier.entries().get(key);
        }
    };

    private static final TextMapGetter<Function<String, @Nullable String>> FROM_HEADERS = new TextMapGetter<>() {
        @Override
        @SuppressWarnings("deprecation") // still abstract in the API; the W3C propagators only call get()
        public Iterable<String> keys(Function<String, @Nullable String> carrier) {
            return java.util.List.of();
        }

        @Override
        public @Nullable String get(@Nullable Function<String, @Nullable String> carrier, String key) {
            return carrier == null ? null : carrier.apply(key);
        }
    };

    private final Tracer tracer;

    /** Spans of {@code openTelemetry}'s tracer provider. */
    public Tracing(OpenTelemetry openTelemetry) {
        this.tracer = requireNonNull(openTelemetry, "openTelemetry").getTracer(SCOPE);
    }

    /**
     * A CLIENT span for {@code message}, a child of the current context, or null when tracing is off
     * and there is no trace to continue.
     */
    @Nullable Span clientSpan(NodeId client, RequestMessage message) {
        Span span = spanOf(message, SpanKind.CLIENT, Context.current()).setAttribute(NODE, client.value()).startSpan();
        return span.getSpanContext().isValid() ? span : null;
    }

    /** {@code message} carrying {@code span}'s context (and the current baggage) in its metadata. */
    static RequestMessage carrying(Span span, RequestMessage message) {
        Map<String, String> carrier = new LinkedHashMap<>(message.metadata().entries());
        PROPAGATOR.inject(Context.current().with(span), carrier, (map, key, value) -> {
            if (map != null) {
                map.put(key, value);
            }
        });
        try {
            return message.withMetadata(new Metadata(carrier));
        } catch (IllegalArgumentException e) { // baggage over the metadata's limits: the trace context alone
            Map<String, String> traceOnly = new LinkedHashMap<>();
            W3CTraceContextPropagator.getInstance().inject(Context.current().with(span), traceOnly, Map::put);
            return message.withMetadata(new Metadata(traceOnly));
        }
    }

    /** Ends {@code span}, an error if {@code failure} is not null. */
    static void end(Span span, @Nullable Throwable failure) {
        if (failure != null) {
            span.setStatus(StatusCode.ERROR, failure.getClass().getSimpleName() + ": " + failure.getMessage());
            span.setAttribute(OUTCOME, failure.getClass().getSimpleName());
        } else {
            span.setAttribute(OUTCOME, "OK");
        }
        span.end();
    }

    /**
     * A SERVER span for {@code message} served by {@code node}, continuing the trace its metadata
     * carries; or null when tracing is off and the request carries no trace.
     */
    public @Nullable Span serverSpan(NodeId node, RequestMessage message) {
        Context parent = message.metadata().isEmpty() ? Context.root()
                : PROPAGATOR.extract(Context.root(), message.metadata(), FROM_METADATA);
        Span span = spanOf(message, SpanKind.SERVER, parent).setAttribute(NODE, node.value()).startSpan();
        return span.getSpanContext().isValid() ? span : null;
    }

    /** Ends a server span with the status its answer had ({@code status}: OK or the error's name). */
    public static void endServer(Span span, String status) {
        span.setAttribute(OUTCOME, status);
        if (!status.equals("OK")) {
            span.setStatus(StatusCode.ERROR, status);
        }
        span.end();
    }

    /**
     * Records, as a child of the span current in {@code context}, the time a request waited in its
     * service's queue: from {@code arrivalNanos} to now ({@link System#nanoTime()} both).
     */
    public void queued(Context context, long arrivalNanos) {
        if (!Span.fromContext(context).getSpanContext().isValid()) {
            return;
        }
        long now = System.nanoTime();
        Instant end = Instant.now();
        Instant start = end.minusNanos(Math.max(0, now - arrivalNanos));
        tracer.spanBuilder("queue").setParent(context).setSpanKind(SpanKind.INTERNAL)
                .setStartTimestamp(start.getEpochSecond() * 1_000_000_000L + start.getNano(), TimeUnit.NANOSECONDS)
                .startSpan().end(end.getEpochSecond() * 1_000_000_000L + end.getNano(), TimeUnit.NANOSECONDS);
    }

    /**
     * A SERVER span for an HTTP request a gateway serves, named {@code name} (its method and route),
     * continuing the trace of its {@code traceparent} header when it has one; or null when tracing is
     * off and none came in.
     */
    public @Nullable Span httpSpan(String name, String path, Function<String, @Nullable String> headers) {
        Context parent = PROPAGATOR.extract(Context.root(), headers, FROM_HEADERS);
        Span span = tracer.spanBuilder(name).setSpanKind(SpanKind.SERVER).setParent(parent)
                .setAttribute(URL_PATH, path).startSpan();
        return span.getSpanContext().isValid() ? span : null;
    }

    /** Ends an HTTP span with the answer's {@code status}: an error from 500 on, as OpenTelemetry's conventions say. */
    public static void endHttp(Span span, int status) {
        span.setAttribute(HTTP_STATUS, (long) status);
        if (status >= 500) {
            span.setStatus(StatusCode.ERROR);
        }
        span.end();
    }

    /** The W3C {@code traceparent} of {@code span}, for a response header. */
    public static String traceparent(Span span) {
        Map<String, String> carrier = new LinkedHashMap<>();
        W3CTraceContextPropagator.getInstance().inject(Context.root().with(span), carrier, Map::put);
        return carrier.getOrDefault(TRACEPARENT, "");
    }

    private SpanBuilder spanOf(RequestMessage message, SpanKind kind, Context parent) {
        return tracer.spanBuilder(message.service() + "/" + message.method()).setSpanKind(kind).setParent(parent)
                .setAttribute(RPC_SYSTEM, "neptune").setAttribute(SERVICE, message.service())
                .setAttribute(PARTITION, (long) message.partition()).setAttribute(METHOD, message.method())
                .setAttribute(CLASS, message.serviceClass());
    }
}
