package io.neptune.server.internal.log;

import io.neptune.core.internal.wire.RequestId;
import java.util.SplittableRandom;

/** Records whose every field is derived from the LSN, so any copy of one can be checked. */
final class TestRecords {
    private TestRecords() {}

    /** Record {@code lsn} at epoch 1 with a payload of up to 2 KiB. */
    static LogRecord record(long lsn) {
        return record(lsn, 1, 2048);
    }

    /** Record {@code lsn} at {@code epoch} with a payload of 0 to {@code maxPayload - 1} bytes. */
    static LogRecord record(long lsn, long epoch, int maxPayload) {
        SplittableRandom random = new SplittableRandom(lsn * 0x9E3779B97F4A7C15L);
        byte[] payload = new byte[random.nextInt(maxPayload)];
        random.nextBytes(payload);
        return new LogRecord(lsn, epoch, RecordKind.WRITE, requestId(lsn), "n" + lsn % 3, lsn * 7,
                "put" + lsn % 5, payload);
    }

    /** The request id of {@link #record}{@code (lsn, ...)}. */
    static RequestId requestId(long lsn) {
        return new RequestId(lsn * 31, ~lsn);
    }
}
