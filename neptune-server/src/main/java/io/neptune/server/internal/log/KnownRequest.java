package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNull;

import io.neptune.core.internal.wire.RequestId;
import java.io.DataOutput;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A write's request id and the LSN it was logged at: what a log remembers to recognise a retry
 * ({@link RedoLog#lsnOf}), and what a snapshot carries of the writes it holds.
 *
 * @param id the write's request id, not {@link RequestId#NONE}
 * @param lsn its LSN, {@code >= 1}
 */
public record KnownRequest(RequestId id, long lsn) {
    /** The bytes of one in the binary form {@link #writeTo} writes: the id's two halves and the LSN. */
    public static final int BYTES = 24;

    public KnownRequest {
        requireNonNull(id, "id");
        if (id.isNone()) {
            throw new IllegalArgumentException("id: none (expected: a write's request id)");
        }
        if (lsn < 1) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: >= 1)");
        }
    }

    /** Writes the binary form: {@link #BYTES} bytes. */
    public void writeTo(DataOutput out) throws IOException {
        out.writeLong(id.high());
        out.writeLong(id.low());
        out.writeLong(lsn);
    }

    /**
     * Reads the binary form {@link #writeTo} wrote from {@code in}'s position.
     *
     * @throws IllegalArgumentException if it is not a write's id and LSN
     * @throws java.nio.BufferUnderflowException if fewer than {@link #BYTES} bytes remain
     */
    public static KnownRequest readFrom(ByteBuffer in) {
        return new KnownRequest(new RequestId(in.getLong(), in.getLong()), in.getLong());
    }
}
