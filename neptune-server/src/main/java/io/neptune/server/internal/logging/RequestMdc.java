package io.neptune.server.internal.logging;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.MDC;

/**
 * The request a thread serves, in SLF4J's MDC: every line logged meanwhile, the service's own
 * included, carries {@value #NODE}, {@value #SERVICE}, {@value #PARTITION}, {@value #REQUEST_ID} and,
 * for a write, {@value #TRACE_ID} (docs/OPERATIONS.md, Logs). Open it with try-with-resources around
 * the work: {@link #close()} puts back the MDC the thread had before, so nothing of a request stays
 * on a worker, an event loop or an application's thread once it is served, not even a key the
 * service's method put there itself.
 *
 * <p>Thread-safety: confined to the thread that opened it; close it there.
 */
public final class RequestMdc implements AutoCloseable {
    /** The serving node's id. */
    public static final String NODE = "node";
    /** The service called. */
    public static final String SERVICE = "service";
    /** The partition called, in decimal. */
    public static final String PARTITION = "partition";
    /**
     * The call's correlation id on its connection, in decimal: the number in the node's
     * {@code Request[17 READ kv#3.get, ...]} lines. Unique per connection, not per node; absent
     * where no connection carried the request (a replicated write applied from the log).
     */
    public static final String REQUEST_ID = "requestId";
    /**
     * What joins the lines of one request across nodes and retries: the OpenTelemetry trace id (32 hex
     * digits) when the request is traced; otherwise a write's request id (32 hex digits too), drawn once
     * by the client, kept across its retries and stored with the write in every replica's log; absent
     * for untraced reads and peer messages.
     */
    public static final String TRACE_ID = "traceId";

    /** The keys above, in the order text lines show them. */
    public static final List<String> KEYS = List.of(NODE, SERVICE, PARTITION, REQUEST_ID, TRACE_ID);

    /** The thread's MDC before, or null if it had none. */
    private final @Nullable Map<String, String> previous;

    private RequestMdc(@Nullable Map<String, String> previous) {
        this.previous = previous;
    }

    /** Sets the keys of {@code request}, served by {@code node}, on this thread until {@link #close()}. */
    public static RequestMdc serving(NodeId node, RequestMessage request) {
        RequestMdc scope = new RequestMdc(MDC.getCopyOfContextMap());
        put(node, request.service(), request.partition(), request.id());
        MDC.put(REQUEST_ID, Long.toString(request.requestId()));
        traced();
        return scope;
    }

    /** Makes {@value #TRACE_ID} the trace of the span current on this thread, if there is one. */
    public static void traced() {
        SpanContext span = Span.current().getSpanContext();
        if (span.isValid()) {
            MDC.put(TRACE_ID, span.getTraceId());
        }
    }

    /**
     * Sets the keys of the replicated write {@code write} of {@code service}'s {@code partition}, applied
     * from the log by {@code node} (no connection: no {@value #REQUEST_ID}), until {@link #close()}.
     */
    public static RequestMdc applying(NodeId node, String service, int partition, RequestId write) {
        RequestMdc scope = new RequestMdc(MDC.getCopyOfContextMap());
        MDC.remove(REQUEST_ID); // an outer request's connection id is not this write's
        put(node, service, partition, write);
        return scope;
    }

    private static void put(NodeId node, String service, int partition, RequestId id) {
        MDC.put(NODE, requireNonNull(node, "node").value());
        MDC.put(SERVICE, requireNonNull(service, "service"));
        MDC.put(PARTITION, Integer.toString(partition));
        if (id.isNone()) {
            MDC.remove(TRACE_ID);
        } else {
            MDC.put(TRACE_ID, id.toString());
        }
    }

    /** Puts back the MDC this thread had when the scope opened. */
    @Override
    public void close() {
        if (previous == null) {
            MDC.clear();
        } else {
            MDC.setContextMap(previous);
        }
    }
}
