package io.neptune.core.internal.wire;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.neptune.core.NodeId;
import io.neptune.core.internal.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * The answer to one request.
 *
 * @param requestId the request's correlation id (0 for a connection-level protocol error)
 * @param status the outcome
 * @param version the partition version the call was served at
 * @param payload the Jackson-encoded response object when {@link Status#OK}; for
 *     {@link Status#NOT_PRIMARY} a JSON object {@code {"message": ..., "primary": ...}}; else a UTF-8
 *     error message
 * @param load the serving node's load of the request's service (of its service class, if the
 *     request named one) when it answered, as a load poll reports it (wire flag {@code 0x01}); -1 if
 *     the response carries none
 */
public record ResponseMessage(long requestId, Status status, long version, byte[] payload, int load)
        implements Message {
    /** Validates the fields. */
    public ResponseMessage {
        requireNonNull(status, "status");
        requireNonNull(payload, "payload");
        if (load < -1) {
            throw new IllegalArgumentException("load: " + load + " (expected: >= 0, or -1 for none)");
        }
    }

    /** A response that carries no load. */
    public ResponseMessage(long requestId, Status status, long version, byte[] payload) {
        this(requestId, status, version, payload, -1);
    }

    /**
     * This error answer, or, when it is longer on the wire than {@code maxFrameBytes} (a frame over
     * the peer's limit closes the connection with every call on it), a copy whose message is cut to
     * fit and says how much was cut. An answer that is not an error is returned as it is.
     */
    public ResponseMessage fittingError(int maxFrameBytes) {
        long over = MessageEncoder.wireLength(this) - maxFrameBytes;
        if (over <= 0 || status == Status.OK || status == Status.NOT_PRIMARY) {
            return this;
        }
        String message = new String(payload, StandardCharsets.UTF_8);
        String note = " ... (" + message.length() + " characters in all; cut to fit max-frame-size)";
        // a character takes up to 3 bytes in UTF-8 (4 for a surrogate pair, which is 2 characters)
        int keep = (int) Math.max(0, (payload.length - over - 3L * note.length()) / 3);
        if (keep < message.length() && keep > 0 && Character.isHighSurrogate(message.charAt(keep - 1))) {
            keep--;
        }
        return new ResponseMessage(requestId, status, version,
                (message.substring(0, Math.min(keep, message.length())) + note).getBytes(StandardCharsets.UTF_8), load);
    }

    /** Returns a copy carrying {@code newLoad} (-1: none). */
    public ResponseMessage withLoad(int newLoad) {
        return new ResponseMessage(requestId, status, version, payload, newLoad);
    }

    /** Returns a successful response. */
    public static ResponseMessage ok(long requestId, long version, byte[] payload) {
        return new ResponseMessage(requestId, Status.OK, version, payload);
    }

    /** Returns an error response whose payload is {@code message}. */
    public static ResponseMessage error(long requestId, Status status, String message) {
        return new ResponseMessage(requestId, status, 0, message.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Returns a NOT_PRIMARY response naming the primary the replica knows of, so the caller can go
     * there without waiting for the yellow page to catch up.
     */
    public static ResponseMessage notPrimary(long requestId, String message, @Nullable NodeId primary) {
        ObjectNode body = Json.mapper().createObjectNode().put("message", message);
        if (primary != null) {
            body.put("primary", primary.value());
        }
        return new ResponseMessage(requestId, Status.NOT_PRIMARY, 0, body.toString().getBytes(StandardCharsets.UTF_8));
    }

    /** The payload read as an error message (for NOT_PRIMARY, its {@code message} field). */
    public String errorMessage() {
        String text = new String(payload, StandardCharsets.UTF_8);
        if (status == Status.NOT_PRIMARY) {
            JsonNode body = notPrimaryBody();
            if (body != null && body.path("message").isTextual()) {
                return body.get("message").asText();
            }
        }
        return text;
    }

    /**
     * For NOT_PRIMARY, the primary the replica named; null when it knew none, for other statuses,
     * and for a payload that is not the documented object (the status still holds: it did not run).
     */
    public @Nullable NodeId suggestedPrimary() {
        JsonNode body = status == Status.NOT_PRIMARY ? notPrimaryBody() : null;
        if (body == null || !body.path("primary").isTextual()) {
            return null;
        }
        try {
            return NodeId.of(body.get("primary").asText());
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private @Nullable JsonNode notPrimaryBody() {
        try {
            JsonNode body = Json.mapper().readTree(payload);
            return body != null && body.isObject() ? body : null;
        } catch (IOException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return "Response[" + requestId + " " + status + " v" + version + ", " + payload.length + " bytes]";
    }
}
