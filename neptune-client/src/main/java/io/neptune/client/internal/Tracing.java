package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.Metadata;
import io.neptune.core.internal.wire.RequestMessage;
import io.opentelemetry.api.GlobalOpenTelemetry;
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
    static final AttributeKey<Long> LSN = AttributeKey.longKey("neptune.lsn");
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

    /** A single {@code traceparent} value as its carrier. */
    private static final TextMapGetter<String> FROM_VALUE = new TextMapGetter<>() {
        @Override
        @SuppressWarnings("deprecation") // still abstract in the API; the W3C propagators only call get()
        public Iterable<String> keys(String carrier) {
            return java.util.List.of(TRACEPARENT);
        }

        @Override
        public @Nullable String get(@Nullable String carrier, String key) {
            return TRACEPARENT.equals(key) ? carrier : null;
        }
    };

    private final Tracer tracer;

    /**
     * Spans of {@link GlobalOpenTelemetry}'s tracer provider: an agent's, or the SDK the application
     * installed before this was called; the no-op implementation when there is none.
     */
    public static Tracing global() {
        return new Tracing(GlobalOpenTelemetry.get());
    }

    /** Spans of {@code openTelemetry}'s tracer provider. */
    public Tracing(OpenTelemetry openTelemetry) {
        this.tracer = requireNonNull(openTelemetry, "openTelemetry").getTracer(SCOPE);
    }

    /**
     * A CLIENT span for {@code message}, a child of the current context, or null when tracing is off
     * and there is no trace to continue.
     */
    @Nullable Span clientSpan(NodeId client, RequestMessage message) {
        return clientSpan(client, message, Context.current());
    }

    /** A CLIENT span for {@code message}, a child of {@code parent}, or null when that is not traced and tracing is off. */
    @Nullable Span clientSpan(NodeId client, RequestMessage message, Context parent) {
        Span span = spanOf(message, SpanKind.CLIENT, parent).setAttribute(NODE, client.value()).startSpan();
        return span.getSpanContext().isValid() ? span : null;
    }

    /** {@code message} carrying {@code span}'s context (and the current baggage) in its metadata. */
    public static RequestMessage carrying(Span span, RequestMessage message) {
        return carrying(span, message, Context.current());
    }

    /** {@code message} carrying {@code span}'s context (and {@code context}'s baggage) in its metadata. */
    static RequestMessage carrying(Span span, RequestMessage message, Context context) {
        Map<String, String> carrier = new LinkedHashMap<>(message.metadata().entries());
        PROPAGATOR.inject(context.with(span), carrier, (map, key, value) -> {
            if (map != null) {
                map.put(key, value);
            }
        });
        try {
            return message.withMetadata(new Metadata(carrier));
        } catch (IllegalArgumentException e) { // baggage over the metadata's limits: the trace context alone
            Map<String, String> traceOnly = new LinkedHashMap<>();
            W3CTraceContextPropagator.getInstance().inject(context.with(span), traceOnly, Map::put);
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
        endWith(span, status);
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
     * An INTERNAL span named {@code replicate}, a child of the current context (the write's SERVER
     * span): from when the replication engine takes {@code message}, a write of a replicated service,
     * until it answers it (committed, or not). Null when the current context has no valid span.
     */
    public @Nullable Span replicateSpan(NodeId node, RequestMessage message) {
        if (!Span.current().getSpanContext().isValid()) {
            return null;
        }
        return spanOf("replicate", message.service(), message.partition(), SpanKind.INTERNAL, Context.current())
                .setAttribute(METHOD, message.method()).setAttribute(NODE, node.value()).startSpan();
    }

    /**
     * A SERVER span named {@code replicate} on a replica that received record {@code lsn} of
     * {@code service#partition} from its primary, continuing the trace of {@code traceparent} (the
     * primary's {@link #replicateSpan}); null when tracing is off or the value is no valid context.
     */
    public @Nullable Span followerSpan(NodeId node, String service, int partition, long lsn, String traceparent) {
        Context parent = W3CTraceContextPropagator.getInstance().extract(Context.root(), traceparent, FROM_VALUE);
        if (!Span.fromContext(parent).getSpanContext().isValid()) {
            return null;
        }
        Span span = spanOf("replicate", service, partition, SpanKind.SERVER, parent).setAttribute(LSN, lsn)
                .setAttribute(NODE, node.value()).startSpan();
        return span.getSpanContext().isValid() ? span : null;
    }

    /** Ends {@code span} with {@code outcome} (OK, or why not), an error unless OK. */
    public static void endWith(Span span, String outcome) {
        span.setAttribute(OUTCOME, outcome);
        if (!outcome.equals("OK")) {
            span.setStatus(StatusCode.ERROR, outcome);
        }
        span.end();
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
        return spanOf(message.service() + "/" + message.method(), message.service(), message.partition(), kind, parent)
                .setAttribute(RPC_SYSTEM, "neptune").setAttribute(METHOD, message.method())
                .setAttribute(CLASS, message.serviceClass());
    }

    private SpanBuilder spanOf(String name, String service, int partition, SpanKind kind, Context parent) {
        return tracer.spanBuilder(name).setSpanKind(kind).setParent(parent).setAttribute(SERVICE, service)
                .setAttribute(PARTITION, (long) partition);
    }
}
