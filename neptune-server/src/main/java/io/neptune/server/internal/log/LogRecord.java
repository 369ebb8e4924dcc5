package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNull;

import io.neptune.core.internal.wire.RequestId;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One entry of a partition's {@link RedoLog}. Immutable except for {@code payload}, which is not
 * copied: do not modify the array after creating the record.
 *
 * @param lsn log sequence number, {@code >= 1}; each append takes the previous record's LSN plus one
 * @param epoch the epoch of the primary that assigned the LSN, {@code >= 0}; never lower than the
 *     previous record's
 * @param kind what the record holds
 * @param requestId the client's id of the request, for recognizing retries
 * @param origin the node that first executed the write (level-1 write-anywhere replication), or the
 *     empty string where the level does not track it
 * @param originSeq the write's sequence number at {@code origin}, {@code >= 0}
 * @param method the service method to re-execute
 * @param payload the encoded request
 */
public record LogRecord(
        long lsn,
        long epoch,
        RecordKind kind,
        RequestId requestId,
        String origin,
        long originSeq,
        String method,
        byte[] payload) {
    /** Validates the fields. */
    public LogRecord {
        if (lsn < 1) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: >= 1)");
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch: " + epoch + " (expected: >= 0)");
        }
        requireNonNull(kind, "kind");
        requireNonNull(requestId, "requestId");
        requireNonNull(origin, "origin");
        if (originSeq < 0) {
            throw new IllegalArgumentException("originSeq: " + originSeq + " (expected: >= 0)");
        }
        requireNonNull(method, "method");
        requireNonNull(payload, "payload");
    }

    /** Compares every field, the payload by content. */
    @Override
    public boolean equals(@Nullable Object o) {
        return o instanceof LogRecord that
                && lsn == that.lsn
                && epoch == that.epoch
                && kind == that.kind
                && requestId.equals(that.requestId)
                && origin.equals(that.origin)
                && originSeq == that.originSeq
                && method.equals(that.method)
                && Arrays.equals(payload, that.payload);
    }

    @Override
    public int hashCode() {
        return Objects.hash(lsn, epoch, kind, requestId, origin, originSeq, method, Arrays.hashCode(payload));
    }

    @Override
    public String toString() {
        return "LogRecord[" + lsn + "@" + epoch + " " + kind + " " + method + " " + requestId
                + (origin.isEmpty() ? "" : " from " + origin + "#" + originSeq) + ", " + payload.length + " bytes]";
    }
}
