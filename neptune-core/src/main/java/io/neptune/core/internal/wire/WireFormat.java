package io.neptune.core.internal.wire;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.CorruptedFrameException;
import java.nio.charset.StandardCharsets;

/**
 * Constants and primitive field codecs of the wire format ({@code docs/protocols/wire.md}).
 *
 * <pre>
 * TCP frame: length:int32 | magic:int16 | version:int8 | type:int8 | requestId:int64 | flags:int8 | body
 * UDP poll:  magic:int16 | version:int8 | type:int8 | pollId:int64 | body
 * </pre>
 */
public final class WireFormat {
    /** {@code 'N' 'P'}: the first two bytes after the length of every frame and datagram. */
    public static final short MAGIC = 0x4E50;
    /** The version of frames that use nothing newer (most frames), and of every load poll. */
    public static final byte VERSION_1 = 1;
    /** The version of a REQUEST frame that carries {@link Metadata} ({@link #FLAG_METADATA}). */
    public static final byte VERSION_2 = 2;
    /** The highest version this build speaks, which a node answers to a {@link #HELLO_SERVICE} hello. */
    public static final byte LATEST = VERSION_2;
    /**
     * The reserved service a client calls, method {@link #HELLO_METHOD}, as the first request on a new
     * connection: a node that speaks version 2 or later answers OK with its highest version as the
     * response's version; an older one answers UNKNOWN_SERVICE, and the connection stays at version 1.
     */
    public static final String HELLO_SERVICE = "$wire";
    /** The method of the hello. */
    public static final String HELLO_METHOD = "hello";
    /** Bytes of the header after the length prefix. */
    public static final int HEADER_BYTES = 2 + 1 + 1 + 8 + 1;
    /** Longest service or method name on the wire, in UTF-8 bytes. */
    public static final int MAX_NAME_BYTES = 256;

    /** Frame type of a {@link RequestMessage}. */
    public static final byte TYPE_REQUEST = 1;
    /** Frame type of a {@link ResponseMessage}. */
    public static final byte TYPE_RESPONSE = 2;
    /** Frame type of a {@link StreamData}: one item of a stream. */
    public static final byte TYPE_STREAM_DATA = 3;
    /** Frame type of a {@link StreamCredit}: the receiver may take more items. */
    public static final byte TYPE_STREAM_CREDIT = 4;
    /** Frame type of a {@link StreamEnd}: the client's input stream is complete or failed. */
    public static final byte TYPE_STREAM_END = 5;
    /** Frame type of a {@link StreamCancel}: the sender wants no more items. */
    public static final byte TYPE_STREAM_CANCEL = 6;
    /** Request flag: a service class name follows the request id (absent: the default class). */
    public static final int FLAG_SERVICE_CLASS = 0x01;
    /** Request flag: the request opens a stream; the server answers with DATA frames, then the RESPONSE. */
    public static final int FLAG_STREAM = 0x02;
    /**
     * Request flag, only with {@link #FLAG_STREAM}: the client streams its input as DATA frames (a
     * bidirectional stream); the request's payload is then empty.
     */
    public static final int FLAG_STREAM_INPUT = 0x04;
    /**
     * Request flag, only with {@link #FLAG_STREAM} and without {@link #FLAG_STREAM_INPUT}: the
     * request resumes a stream another replica broke off; an 8-byte count follows the service class
     * (or the request id): the items the client already has, which the server skips.
     */
    public static final int FLAG_RESUME = 0x08;
    /**
     * Request flag, version-2 frames only: a metadata section ({@link Metadata}) follows the resume
     * count (or the service class, or the request id): {@code count:int8} (1..16), then each key and
     * value as a name ({@code length:int16} and UTF-8).
     */
    public static final int FLAG_METADATA = 0x10;
    /** RESPONSE flag: the serving node's load ({@code load:int32}) follows the version. */
    public static final int FLAG_LOAD = 0x01;
    /**
     * DATA flag: the item is a {@code byte[]} sent as its bytes, not as JSON (which would be base64);
     * only a receiver whose items are {@code byte[]} accepts it.
     */
    public static final int FLAG_RAW = 0x02;
    /** DATA flag: the stream's method is resumable, so the client may continue it on another replica. */
    public static final int FLAG_RESUMABLE = 0x01;
    /** Datagram type of a load poll. */
    public static final byte TYPE_POLL = 10;
    /** Datagram type of a load poll reply. */
    public static final byte TYPE_POLL_REPLY = 11;
    /** Datagram type of a load poll with a nonce, asking for a reply with a MAC. */
    public static final byte TYPE_MAC_POLL = 12;
    /** Datagram type of a load poll reply with a MAC. */
    public static final byte TYPE_MAC_POLL_REPLY = 13;

    private WireFormat() {}

    /** The UTF-8 length of {@code name}; {@link #writeName} refuses more than {@link #MAX_NAME_BYTES}. */
    public static int nameBytes(String name) {
        return ByteBufUtil.utf8Bytes(name);
    }

    /** Writes a short-length-prefixed UTF-8 name, encoding it straight into {@code out}. */
    static void writeName(ByteBuf out, String name) {
        writeName(out, name, MAX_NAME_BYTES);
    }

    /** Reads a name written by {@link #writeName}, rejecting over-long or truncated ones. */
    static String readName(ByteBuf in, String field) {
        return readName(in, field, MAX_NAME_BYTES);
    }

    /**
     * {@link #readName}, for the names a node sees again and again (services, methods, service
     * classes): a name decoded lately is returned as the same string, without decoding it again.
     */
    static String readKnownName(ByteBuf in, String field) {
        int length = nameLength(in, field);
        String value = KnownNames.read(in, in.readerIndex(), length);
        in.skipBytes(length);
        return value;
    }

    private static int nameLength(ByteBuf in, String field) {
        int length = readableCheck(in, 2, field).readUnsignedShort();
        if (length > MAX_NAME_BYTES) {
            throw new CorruptedFrameException(field + ": " + length + " bytes (expected: <= " + MAX_NAME_BYTES + ")");
        }
        readableCheck(in, length, field);
        return length;
    }

    /**
     * The names decoded lately, in a small table indexed by a hash of their bytes. Shared by all
     * threads without locks: an entry is immutable (its bytes are filled before it is published
     * through a final field), and a lost or overwritten entry only costs decoding that name again.
     */
    private static final class KnownNames {
        private static final int SLOTS = 256;
        private static final Entry[] ENTRIES = new Entry[SLOTS];

        private record Entry(byte[] bytes, String name) {}

        static String read(ByteBuf in, int index, int length) {
            int hash = 1;
            for (int i = 0; i < length; i++) {
                hash = 31 * hash + in.getByte(index + i);
            }
            int slot = (hash ^ hash >>> 16) & (SLOTS - 1);
            Entry entry = ENTRIES[slot];
            if (entry != null && matches(entry.bytes(), in, index, length)) {
                return entry.name();
            }
            byte[] bytes = new byte[length];
            in.getBytes(index, bytes);
            String name = new String(bytes, StandardCharsets.UTF_8);
            ENTRIES[slot] = new Entry(bytes, name);
            return name;
        }

        private static boolean matches(byte[] bytes, ByteBuf in, int index, int length) {
            if (bytes.length != length) {
                return false;
            }
            for (int i = 0; i < length; i++) {
                if (bytes[i] != in.getByte(index + i)) {
                    return false;
                }
            }
            return true;
        }
    }

    /** Reads an int32-length-prefixed byte array, rejecting lengths beyond the readable bytes. */
    static byte[] readBytes(ByteBuf in, String field) {
        int length = readableCheck(in, 4, field).readInt();
        if (length < 0 || length > in.readableBytes()) {
            throw new CorruptedFrameException(field + " length: " + length + " (expected: 0.." + in.readableBytes() + ")");
        }
        byte[] bytes = new byte[length];
        in.readBytes(bytes);
        return bytes;
    }

    /** Throws a {@link CorruptedFrameException} naming {@code field} if fewer than {@code n} bytes remain. */
    static ByteBuf readableCheck(ByteBuf in, int n, String field) {
        if (in.readableBytes() < n) {
            throw new CorruptedFrameException("truncated frame at " + field + ": " + in.readableBytes()
                    + " bytes left (expected: >= " + n + ")");
        }
        return in;
    }

    /**
     * Checks magic and version at the reader index, throwing a clear error on mismatch; returns the
     * version, 1 to {@code maxVersion}.
     */
    static int readPreamble(ByteBuf in, int maxVersion) {
        readableCheck(in, 4, "header");
        short magic = in.readShort();
        if (magic != MAGIC) {
            throw new CorruptedFrameException(String.format("magic: 0x%04x (expected: 0x%04x)", magic & 0xffff, MAGIC));
        }
        byte version = in.readByte();
        if (version < VERSION_1 || version > maxVersion) {
            throw new CorruptedFrameException("protocol version: " + version + " (expected: " + VERSION_1
                    + (maxVersion > VERSION_1 ? ".." + maxVersion : "") + ")");
        }
        return version;
    }

    /** Writes a name of up to {@code maxBytes} UTF-8 bytes. */
    static void writeName(ByteBuf out, String name, int maxBytes) {
        int length = ByteBufUtil.utf8Bytes(name);
        if (length > maxBytes) {
            throw new IllegalArgumentException("name: " + length + " bytes (expected: <= " + maxBytes + ")");
        }
        out.writeShort(length);
        ByteBufUtil.writeUtf8(out, name);
    }

    /** Reads a name of up to {@code maxBytes} UTF-8 bytes, rejecting over-long or truncated ones. */
    static String readName(ByteBuf in, String field, int maxBytes) {
        int length = readableCheck(in, 2, field).readUnsignedShort();
        if (length > maxBytes) {
            throw new CorruptedFrameException(field + ": " + length + " bytes (expected: <= " + maxBytes + ")");
        }
        readableCheck(in, length, field);
        String value = in.toString(in.readerIndex(), length, StandardCharsets.UTF_8);
        in.skipBytes(length);
        return value;
    }
}
