package io.neptune.core.internal.wire;

import static java.util.Objects.requireNonNull;

import io.neptune.core.AccessMode;

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
        byte[] payload)
        implements Message {
    /** Validates the fields. */
    public RequestMessage {
        requireNonNull(service, "service");
        requireNonNull(method, "method");
        requireNonNull(mode, "mode");
        requireNonNull(id, "id");
        requireNonNull(payload, "payload");
        if (timeoutMillis < 1) {
            throw new IllegalArgumentException("timeoutMillis: " + timeoutMillis + " (expected: >= 1)");
        }
    }

    /** Returns a copy with another correlation id and time left, for a retry or a forward. */
    public RequestMessage withRequestId(long newRequestId, int newTimeoutMillis) {
        return new RequestMessage(newRequestId, service, partition, method, mode, newTimeoutMillis, minVersion, id,
                payload);
    }

    /** Returns {@code service#partition.method}, the form used in logs and errors. */
    public String target() {
        return service + "#" + partition + "." + method;
    }

    @Override
    public String toString() {
        return "Request[" + requestId + " " + mode + " " + target() + ", " + payload.length + " bytes]";
    }
}
