package io.neptune.core.internal.wire;

import static java.util.Objects.requireNonNull;

import io.neptune.core.AccessMode;
import io.neptune.core.ServiceClass;

/**
 * A call of one service method on one partition.
 *
 * @param requestId correlation id, unique per connection
 * @param service service name
 * @param partition partition id
 * @param method method name
 * @param mode the access mode the caller expects the method to have
 * @param timeoutMillis time left until the caller gives up; the server drops the request when it passes
 * @param minVersion the lowest partition version the caller accepts (0: any)
 * @param id the client's request id, kept across retries of a write; {@link RequestId#NONE} for reads
 * @param payload the Jackson-encoded request object
 * @param serviceClass the {@link io.neptune.core.ServiceClass} the request belongs to;
 *     {@value io.neptune.core.ServiceClass#DEFAULT_NAME} when the caller named none
 * @param streaming whether the request opens a stream, and of which kind
 * @param resumeFrom for a stream resumed on another replica, the items the client already has: the
 *     server skips that many of the method's output (wire flag {@code 0x08}); 0 otherwise
 * @param metadata what travels with the call across hops (a trace context, baggage); wire version 2,
 *     flag {@code 0x10}; {@link Metadata#NONE} for none
 */
public record RequestMessage(
        long requestId,
        String service,
        int partition,
        String method,
        AccessMode mode,
        int timeoutMillis,
        long minVersion,
        RequestId id,
        byte[] payload,
        String serviceClass,
        Streaming streaming,
        long resumeFrom,
        Metadata metadata)
        implements Message {
    /** Whether a request opens a stream (wire flags {@code 0x02} and {@code 0x04}). */
    public enum Streaming {
        /** An ordinary call: one RESPONSE. */
        NONE,
        /** A stream of the server's output: DATA frames, then the RESPONSE. */
        OUTPUT,
        /** A bidirectional stream: the client's input goes as DATA frames too; the payload is empty. */
        BIDIRECTIONAL
    }

    /** Validates the fields. */
    public RequestMessage {
        requireNonNull(service, "service");
        requireNonNull(serviceClass, "serviceClass");
        requireNonNull(method, "method");
        requireNonNull(mode, "mode");
        requireNonNull(id, "id");
        requireNonNull(payload, "payload");
        requireNonNull(streaming, "streaming");
        requireNonNull(metadata, "metadata");
        if (streaming == Streaming.BIDIRECTIONAL && payload.length != 0) {
            throw new IllegalArgumentException("payload: " + payload.length
                    + " bytes (expected: 0 for a bidirectional stream, whose input comes as DATA frames)");
        }
        if (timeoutMillis < 1) {
            throw new IllegalArgumentException("timeoutMillis: " + timeoutMillis + " (expected: >= 1)");
        }
        if (resumeFrom < 0 || resumeFrom > 0 && streaming != Streaming.OUTPUT) {
            throw new IllegalArgumentException("resumeFrom: " + resumeFrom + " (expected: >= 0, and 0 unless the"
                    + " request opens an output stream)");
        }
    }

    /** A request without metadata. */
    public RequestMessage(long requestId, String service, int partition, String method, AccessMode mode,
            int timeoutMillis, long minVersion, RequestId id, byte[] payload, String serviceClass,
            Streaming streaming, long resumeFrom) {
        this(requestId, service, partition, method, mode, timeoutMillis, minVersion, id, payload, serviceClass,
                streaming, resumeFrom, Metadata.NONE);
    }

    /** A request that resumes no stream. */
    public RequestMessage(long requestId, String service, int partition, String method, AccessMode mode,
            int timeoutMillis, long minVersion, RequestId id, byte[] payload, String serviceClass,
            Streaming streaming) {
        this(requestId, service, partition, method, mode, timeoutMillis, minVersion, id, payload, serviceClass,
                streaming, 0);
    }

    /** An ordinary (not streaming) request. */
    public RequestMessage(long requestId, String service, int partition, String method, AccessMode mode,
            int timeoutMillis, long minVersion, RequestId id, byte[] payload, String serviceClass) {
        this(requestId, service, partition, method, mode, timeoutMillis, minVersion, id, payload, serviceClass,
                Streaming.NONE);
    }

    /** A request of the default service class. */
    public RequestMessage(long requestId, String service, int partition, String method, AccessMode mode,
            int timeoutMillis, long minVersion, RequestId id, byte[] payload) {
        this(requestId, service, partition, method, mode, timeoutMillis, minVersion, id, payload,
                ServiceClass.DEFAULT_NAME);
    }

    /** Returns a copy with another correlation id and time left, for a retry or a forward. */
    public RequestMessage withRequestId(long newRequestId, int newTimeoutMillis) {
        return new RequestMessage(newRequestId, service, partition, method, mode, newTimeoutMillis, minVersion, id,
                payload, serviceClass, streaming, resumeFrom, metadata);
    }

    /** Returns a copy that opens a stream of kind {@code newStreaming}. */
    public RequestMessage withStreaming(Streaming newStreaming) {
        return new RequestMessage(requestId, service, partition, method, mode, timeoutMillis, minVersion, id,
                payload, serviceClass, newStreaming, resumeFrom, metadata);
    }

    /** Returns a copy that resumes its output stream after the {@code items} the client already has. */
    public RequestMessage resumingFrom(long items) {
        return new RequestMessage(requestId, service, partition, method, mode, timeoutMillis, minVersion, id,
                payload, serviceClass, streaming, items, metadata);
    }

    /** Returns a copy that carries {@code newMetadata}. */
    public RequestMessage withMetadata(Metadata newMetadata) {
        return new RequestMessage(requestId, service, partition, method, mode, timeoutMillis, minVersion, id,
                payload, serviceClass, streaming, resumeFrom, newMetadata);
    }

    /** Whether the request opens a stream. */
    public boolean isStream() {
        return streaming != Streaming.NONE;
    }

    /** Returns a copy in another service class. */
    public RequestMessage withServiceClass(String newServiceClass) {
        return new RequestMessage(requestId, service, partition, method, mode, timeoutMillis, minVersion, id,
                payload, newServiceClass, streaming, resumeFrom, metadata);
    }

    /** Whether the request names a class other than the default (the wire then carries its name). */
    public boolean hasServiceClass() {
        return !serviceClass.equals(ServiceClass.DEFAULT_NAME);
    }

    /** Returns {@code service#partition.method}, the form used in logs and errors. */
    public String target() {
        return service + "#" + partition + "." + method;
    }

    @Override
    public String toString() {
        return "Request[" + requestId + " " + mode + " " + target() + (isStream() ? " " + streaming : "") + (resumeFrom > 0 ? " from " + resumeFrom : "") + ", " + payload.length + " bytes]";
    }
}
