package io.neptune.core.internal.wire;

import static java.util.Objects.requireNonNull;

/**
 * One item of a stream: sent by the server for its output, by the client for its input of a
 * bidirectional stream. A sender never sends more of them than the receiver's credit allows.
 *
 * @param requestId the id of the REQUEST that opened the stream
 * @param payload the Jackson-encoded item
 * @param resumable whether the stream's method is resumable (wire flag {@code 0x01}): the same
 *     request yields the same items in the same order on every replica
 * @param raw whether {@code payload} is a {@code byte[]} item's own bytes (wire flag {@code 0x02})
 *     rather than the item's JSON
 */
public record StreamData(long requestId, byte[] payload, boolean resumable, boolean raw) implements Message {
    /** Validates the fields. */
    public StreamData {
        requireNonNull(payload, "payload");
    }

    /** A JSON item of a stream that is not resumable. */
    public StreamData(long requestId, byte[] payload) {
        this(requestId, payload, false, false);
    }

    /** A JSON item. */
    public StreamData(long requestId, byte[] payload, boolean resumable) {
        this(requestId, payload, resumable, false);
    }

    @Override
    public String toString() {
        return "StreamData[" + requestId + ", " + payload.length + " bytes]";
    }
}
