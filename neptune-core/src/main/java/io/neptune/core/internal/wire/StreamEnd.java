package io.neptune.core.internal.wire;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;

/**
 * The end of a client's input stream (client to server only): {@link Status#OK} when the input
 * completed, another status with a UTF-8 message when it failed.
 *
 * @param requestId the id of the REQUEST that opened the stream
 * @param status OK, or why the input failed
 * @param payload empty for OK, else a UTF-8 message
 */
public record StreamEnd(long requestId, Status status, byte[] payload) implements Message {
    /** Validates the fields. */
    public StreamEnd {
        requireNonNull(status, "status");
        requireNonNull(payload, "payload");
    }

    /** The input completed. */
    public static StreamEnd completed(long requestId) {
        return new StreamEnd(requestId, Status.OK, new byte[0]);
    }

    /** The input failed with {@code message}. */
    public static StreamEnd failed(long requestId, String message) {
        return new StreamEnd(requestId, Status.METHOD_FAILED, message.getBytes(StandardCharsets.UTF_8));
    }

    /** The payload read as a message. */
    public String message() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return "StreamEnd[" + requestId + " " + status + "]";
    }
}
