package io.neptune.benchmarks;

import java.nio.ByteBuffer;

/**
 * A request for a stream of {@code items} identical messages of {@code itemBytes} bytes each: the
 * request of the streams benchmark, sent as JSON to Neptune and as 8 bytes ({@link #encode()}) to
 * gRPC, so both servers send the same {@link #payload()}.
 *
 * @param items messages in the stream
 * @param itemBytes bytes of each message's payload
 */
public record StreamBurst(int items, int itemBytes) {
    /** Checks that both counts are positive. */
    public StreamBurst {
        if (items < 1) {
            throw new IllegalArgumentException("items: " + items + " (expected: >= 1)");
        }
        if (itemBytes < 1) {
            throw new IllegalArgumentException("itemBytes: " + itemBytes + " (expected: >= 1)");
        }
    }

    /** The payload every message carries: {@code itemBytes} bytes of a fixed printable pattern. */
    public byte[] payload() {
        byte[] payload = new byte[itemBytes];
        for (int i = 0; i < itemBytes; i++) {
            payload[i] = (byte) ('a' + i % 26);
        }
        return payload;
    }

    /** This request as 8 bytes, big-endian: items, then itemBytes. */
    byte[] encode() {
        return ByteBuffer.allocate(8).putInt(items).putInt(itemBytes).array();
    }

    /** The request {@link #encode()} wrote. */
    static StreamBurst decode(byte[] bytes) {
        if (bytes.length != 8) {
            throw new IllegalArgumentException("bytes: " + bytes.length + " (expected: 8)");
        }
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        return new StreamBurst(buffer.getInt(), buffer.getInt());
    }
}
