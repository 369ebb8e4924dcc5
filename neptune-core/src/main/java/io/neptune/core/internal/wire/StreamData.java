package io.neptune.core.internal.wire;

import static java.util.Objects.requireNonNull;

/**
 * One item of a stream: sent by the server for its output, by the client for its input of a
 * bidirectional stream. A sender never sends more of them than the receiver's credit allows.
 *
 * @param requestId the id of the REQUEST that opened the stream
 * @param payload the Jackson-encoded item
 */
public record StreamData(long requestId, byte[] payload) implements Message {
    /** Validates the fields. */
    public StreamData {
        requireNonNull(payload, "payload");
    }

    @Override
    public String toString() {
        return "StreamData[" + requestId + ", " + payload.length + " bytes]";
    }
}
