package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNull;

import io.neptune.client.internal.Tracing;
import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.Metadata;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.internal.replication.protocol.Ack;
import io.opentelemetry.api.trace.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * The spans of replication (docs/OPERATIONS.md, "Tracing"). On the primary, a traced write gets a
 * {@code replicate} span, a child of its SERVER span, from when the engine takes it until it is
 * answered (committed, or not); the write's log record keeps that span's context
 * ({@link LoggedTraces}) and the {@code replicate} messages carry it. On each other replica, every
 * traced record of a message gets a {@code replicate} span of its own, a child of the primary's, from
 * the message's arrival until the replica answers it (with its log forced, where the mode waits for
 * that). Level 1's gossip carries no trace context.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ReplicationTracing {
    private final NodeId self;
    private volatile Tracing tracing = Tracing.OFF;

    ReplicationTracing(NodeId self) {
        this.self = requireNonNull(self, "self");
    }

    /** Traces replication with {@code tracing} from now on; set once, before the node takes calls. */
    void traceWith(Tracing tracing) {
        this.tracing = requireNonNull(tracing, "tracing");
    }

    /**
     * Hands write {@code request} to {@code replica}; when the current context is traced, in a
     * {@code replicate} span that ends with the answer, its context in the request's metadata.
     */
    void write(RequestMessage request, Consumer<ResponseMessage> reply,
            BiConsumer<RequestMessage, Consumer<ResponseMessage>> replica) {
        Span span = tracing.replicateSpan(self, request);
        if (span == null) {
            replica.accept(request, reply);
            return;
        }
        replica.accept(Tracing.carrying(span, request), response -> {
            Tracing.endWith(span, response.status().name());
            reply.accept(response);
        });
    }

    /**
     * The answer to a {@code replicate} message of {@code service#partition} that came with
     * {@code metadata}: a span for each traced record it names, ended when {@code answer} is given.
     * A malformed key is skipped: tracing never refuses a message.
     */
    Consumer<Object> received(String service, int partition, Metadata metadata, Consumer<Object> answer) {
        if (metadata.isEmpty()) {
            return answer;
        }
        List<Span> spans = new ArrayList<>();
        for (Map.Entry<String, String> entry : metadata.entries().entrySet()) {
            long lsn = lsnOf(entry.getKey());
            Span span = lsn > 0 ? tracing.followerSpan(self, service, partition, lsn, entry.getValue()) : null;
            if (span != null) {
                spans.add(span);
            }
        }
        if (spans.isEmpty()) {
            return answer;
        }
        return reply -> {
            String outcome = reply instanceof Ack ack && !ack.accepted() ? "refused: " + ack.reason() : "OK";
            spans.forEach(span -> Tracing.endWith(span, outcome));
            answer.accept(reply);
        };
    }

    /** The LSN a metadata key names ({@link LoggedTraces#KEY_PREFIX}), or 0 when it names none. */
    private static long lsnOf(String key) {
        if (!key.startsWith(LoggedTraces.KEY_PREFIX)) {
            return 0;
        }
        try {
            return Long.parseLong(key.substring(LoggedTraces.KEY_PREFIX.length()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
