package io.neptune.server.internal.log;

import io.neptune.core.internal.wire.RequestId;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * Encodes {@link LogRecord}s as frames and decodes them, checking everything that can be checked.
 * Integers are big-endian. A frame is
 *
 * <pre>
 * length:int32 | crc32c:int32 | body            length = body bytes; crc32c over the body
 * body = lsn:int64 | epoch:int64 | kind:int8 | requestId.high:int64 | requestId.low:int64
 *      | originSeq:int64 | originLength:uint16 | origin:UTF-8 | methodLength:uint16 | method:UTF-8
 *      | payloadLength:int32 | payload
 * </pre>
 *
 * <p>Thread-safety: stateless.
 */
final class RecordCodec {
    /** Bytes before the body: length and CRC. */
    static final int FRAME_HEADER_BYTES = 8;
    /** The smallest body: every fixed field, empty strings and payload. */
    static final int MIN_BODY_BYTES = 8 + 8 + 1 + 16 + 8 + 2 + 2 + 4;
    /** The largest body; a larger length field is corruption, not a reason to allocate. */
    static final int MAX_BODY_BYTES = 64 * 1024 * 1024;
    /** The largest origin or method, in UTF-8 bytes. */
    static final int MAX_TEXT_BYTES = 0xFFFF;

    private RecordCodec() {}

    /** Returns the frame of {@code record}, or throws if a field is too large for the format. */
    static byte[] encode(LogRecord record) {
        byte[] origin = utf8("origin", record.origin());
        byte[] method = utf8("method", record.method());
        byte[] payload = record.payload();
        long bodyBytes = (long) MIN_BODY_BYTES + origin.length + method.length + payload.length;
        if (bodyBytes > MAX_BODY_BYTES) {
            throw new IllegalArgumentException(
                    "record " + record.lsn() + ": " + bodyBytes + " bytes (expected: <= " + MAX_BODY_BYTES + ")");
        }
        ByteBuffer frame = ByteBuffer.allocate(FRAME_HEADER_BYTES + (int) bodyBytes);
        frame.putInt((int) bodyBytes).putInt(0);
        frame.putLong(record.lsn()).putLong(record.epoch()).put(record.kind().code());
        frame.putLong(record.requestId().high()).putLong(record.requestId().low()).putLong(record.originSeq());
        frame.putShort((short) origin.length).put(origin);
        frame.putShort((short) method.length).put(method);
        frame.putInt(payload.length).put(payload);
        frame.putInt(4, crc(frame.array(), FRAME_HEADER_BYTES, (int) bodyBytes));
        return frame.array();
    }

    /** Checks a frame's length field; returns what is wrong with it, or the empty string. */
    static String checkLength(int bodyBytes) {
        if (bodyBytes < MIN_BODY_BYTES || bodyBytes > MAX_BODY_BYTES) {
            return "length: " + bodyBytes + " (expected: " + MIN_BODY_BYTES + ".." + MAX_BODY_BYTES + ")";
        }
        return "";
    }

    /**
     * Decodes the frame at {@code frames}' position and advances past it; throws
     * {@link IllegalArgumentException} saying what is wrong if the frame is not intact or its LSN is
     * not {@code expectedLsn}.
     */
    static LogRecord decodeFrame(ByteBuffer frames, long expectedLsn) {
        if (frames.remaining() < FRAME_HEADER_BYTES) {
            throw new IllegalArgumentException("frame: " + frames.remaining() + " bytes (expected: >= 8)");
        }
        int bodyBytes = frames.getInt();
        int crc = frames.getInt();
        String problem = checkLength(bodyBytes);
        if (!problem.isEmpty()) {
            throw new IllegalArgumentException(problem);
        }
        if (bodyBytes > frames.remaining()) {
            throw new IllegalArgumentException(
                    "length: " + bodyBytes + " (expected: <= " + frames.remaining() + ", the bytes left)");
        }
        ByteBuffer body = frames.slice(frames.position(), bodyBytes);
        frames.position(frames.position() + bodyBytes);
        LogRecord record = decodeBody(body, crc);
        if (record.lsn() != expectedLsn) {
            throw new IllegalArgumentException("lsn: " + record.lsn() + " (expected: " + expectedLsn + ")");
        }
        return record;
    }

    /**
     * Decodes a whole frame body whose frame header carried {@code crc}; throws
     * {@link IllegalArgumentException} saying what is wrong if it is not intact.
     */
    static LogRecord decodeBody(ByteBuffer body, int crc) {
        int actual = crc(body.duplicate());
        if (actual != crc) {
            throw new IllegalArgumentException("crc32c: " + Integer.toHexString(actual) + " (expected: "
                    + Integer.toHexString(crc) + ", from the frame header)");
        }
        try {
            long lsn = body.getLong();
            long epoch = body.getLong();
            RecordKind kind = RecordKind.ofCode(body.get());
            RequestId requestId = new RequestId(body.getLong(), body.getLong());
            long originSeq = body.getLong();
            String origin = text(body);
            String method = text(body);
            int payloadBytes = body.getInt();
            if (payloadBytes != body.remaining()) {
                throw new IllegalArgumentException(
                        "payload length: " + payloadBytes + " (expected: " + body.remaining() + ", the bytes left)");
            }
            byte[] payload = new byte[payloadBytes];
            body.get(payload);
            return new LogRecord(lsn, epoch, kind, requestId, origin, originSeq, method, payload);
        } catch (BufferUnderflowException e) {
            throw new IllegalArgumentException("body: ends inside a field (expected: every field complete)", e);
        }
    }

    private static String text(ByteBuffer body) {
        int length = Short.toUnsignedInt(body.getShort());
        byte[] bytes = new byte[length];
        body.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String name, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_TEXT_BYTES) {
            throw new IllegalArgumentException(
                    name + ": " + bytes.length + " UTF-8 bytes (expected: <= " + MAX_TEXT_BYTES + ")");
        }
        return bytes;
    }

    private static int crc(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }

    private static int crc(ByteBuffer bytes) {
        CRC32C crc = new CRC32C();
        crc.update(bytes);
        return (int) crc.getValue();
    }
}
