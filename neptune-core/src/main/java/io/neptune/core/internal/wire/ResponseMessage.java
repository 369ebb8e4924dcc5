package io.neptune.core.internal.wire;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * The answer to one request.
 *
 * @param requestId the request's correlation id (0 for a connection-level protocol error)
 * @param status the outcome
 * @param version the partition version the call was served at
 * @param payload the Jackson-encoded response object when {@link Status#OK}, else a UTF-8 error message
 */
public record ResponseMessage(long requestId, Status status, long version, byte[] payload) implements Message {
    /** Validates the fields. */
    public ResponseMessage {
        requireNonNull(status, "status");
        requireNonNull(payload, "payload");
    }

    /** Returns a successful response. */
    public static ResponseMessage ok(long requestId, long version, byte[] payload) {
        return new ResponseMessage(requestId, Status.OK, version, payload);
    }

    /** Returns an error response whose payload is {@code message}. */
    public static ResponseMessage error(long requestId, Status status, String message) {
        return new ResponseMessage(requestId, status, 0, message.getBytes(StandardCharsets.UTF_8));
    }

    /** The payload read as an error message. */
    public String errorMessage() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "Response[" + requestId + " " + status + " v" + version + ", " + payload.length + " bytes]";
    }
}
