package io.neptune.core.internal.wire;

import static java.util.Objects.requireNonNull;

/**
 * The sender wants no more items of a stream. From the client it ends the whole stream (the server
 * cancels its producer and its input and sends nothing more); from the server it cancels only the
 * client's input of a bidirectional stream.
 *
 * @param requestId the id of the REQUEST that opened the stream
 * @param reason why, for logs (UTF-8, at most {@link WireFormat#MAX_NAME_BYTES} bytes)
 */
public record StreamCancel(long requestId, String reason) implements Message {
    /** Validates the fields. */
    public StreamCancel {
        requireNonNull(reason, "reason");
    }

    /** A cancel whose reason is cut to 80 characters, so that it always fits its wire field. */
    public static StreamCancel of(long requestId, String reason) {
        return new StreamCancel(requestId, reason.length() <= 80 ? reason : reason.substring(0, 80));
    }
}
