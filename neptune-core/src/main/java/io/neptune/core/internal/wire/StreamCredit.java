package io.neptune.core.internal.wire;

/**
 * Credit for a stream: its sender may take {@code items} more DATA frames of that stream. Credits
 * add up.
 *
 * @param requestId the id of the REQUEST that opened the stream
 * @param items how many more items the receiver of this frame may send; at least 1
 */
public record StreamCredit(long requestId, int items) implements Message {
    /** Validates the fields. */
    public StreamCredit {
        if (items < 1) {
            throw new IllegalArgumentException("items: " + items + " (expected: >= 1)");
        }
    }
}
