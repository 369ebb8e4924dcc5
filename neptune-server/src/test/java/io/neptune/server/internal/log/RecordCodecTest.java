package io.neptune.server.internal.log;

import static io.neptune.server.internal.log.TestRecords.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.internal.wire.RequestId;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class RecordCodecTest {
    @Test
    void roundTrip() {
        LogRecord original = new LogRecord(7, 3, RecordKind.WRITE, RequestId.random(), "node-ä", 42, "put",
                new byte[] {1, 2, 3});
        byte[] frame = RecordCodec.encode(original);
        assertThat(frame).hasSize(RecordCodec.FRAME_HEADER_BYTES + RecordCodec.MIN_BODY_BYTES + 7 + 3 + 3);
        ByteBuffer buffer = ByteBuffer.wrap(frame);
        assertThat(RecordCodec.decodeFrame(buffer, 7)).isEqualTo(original);
        assertThat(buffer.hasRemaining()).isFalse();
    }

    @Test
    void everyKindRoundTrips() {
        for (RecordKind kind : RecordKind.values()) {
            LogRecord original = new LogRecord(2, 0, kind, RequestId.random(), "node-1", 5, "add", new byte[] {9});
            assertThat(RecordCodec.decodeFrame(ByteBuffer.wrap(RecordCodec.encode(original)), 2)).isEqualTo(original);
        }
    }

    @Test
    void emptyStringsAndPayload() {
        LogRecord empty = new LogRecord(1, 0, RecordKind.WRITE, new RequestId(0, 0), "", 0, "", new byte[0]);
        assertThat(RecordCodec.decodeFrame(ByteBuffer.wrap(RecordCodec.encode(empty)), 1)).isEqualTo(empty);
    }

    @Test
    void rejectsWhatTheFormatCannotHold() {
        LogRecord longMethod = new LogRecord(1, 0, RecordKind.WRITE, new RequestId(0, 0), "", 0, "m".repeat(70_000),
                new byte[0]);
        assertThatThrownBy(() -> RecordCodec.encode(longMethod)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("method: 70000 UTF-8 bytes (expected: <= 65535)");
        LogRecord bigPayload = new LogRecord(1, 0, RecordKind.WRITE, new RequestId(0, 0), "", 0, "",
                new byte[RecordCodec.MAX_BODY_BYTES]);
        assertThatThrownBy(() -> RecordCodec.encode(bigPayload)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("record 1: ");
    }

    @Test
    void namesWhatIsWrongWithABadFrame() {
        byte[] frame = RecordCodec.encode(record(5));
        assertThatThrownBy(() -> RecordCodec.decodeFrame(ByteBuffer.wrap(frame), 6)).hasMessage("lsn: 5 (expected: 6)");

        byte[] flipped = frame.clone();
        flipped[frame.length - 1] ^= 1;
        assertThatThrownBy(() -> RecordCodec.decodeFrame(ByteBuffer.wrap(flipped), 5))
                .hasMessageStartingWith("crc32c: ");

        byte[] unknownKind = frame.clone();
        unknownKind[RecordCodec.FRAME_HEADER_BYTES + 16] = 99;
        assertThatThrownBy(() -> RecordCodec.decodeFrame(ByteBuffer.wrap(recrc(unknownKind)), 5))
                .hasMessage("record kind: 99 (expected: a known kind code)");

        byte[] badPayloadLength = frame.clone();
        int payloadLengthAt = frame.length - record(5).payload().length - 4;
        ByteBuffer.wrap(badPayloadLength).putInt(payloadLengthAt, 1 << 20);
        assertThatThrownBy(() -> RecordCodec.decodeFrame(ByteBuffer.wrap(recrc(badPayloadLength)), 5))
                .hasMessageStartingWith("payload length: 1048576");

        assertThatThrownBy(() -> RecordCodec.decodeFrame(ByteBuffer.wrap(frame, 0, frame.length - 1), 5))
                .hasMessageStartingWith("length: ");
    }

    /** Recomputes the CRC so that only the parse check can catch the change. */
    private static byte[] recrc(byte[] frame) {
        CRC32C crc = new CRC32C();
        crc.update(frame, RecordCodec.FRAME_HEADER_BYTES, frame.length - RecordCodec.FRAME_HEADER_BYTES);
        ByteBuffer.wrap(frame).putInt(4, (int) crc.getValue());
        return frame;
    }
}
