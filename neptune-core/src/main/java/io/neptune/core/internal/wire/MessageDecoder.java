package io.neptune.core.internal.wire;

import io.neptune.core.AccessMode;
import io.neptune.core.ServiceClass;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Decodes one frame (length prefix already stripped by the frame decoder) into a {@link Message}.
 * Any malformed, truncated or unknown frame raises a {@link CorruptedFrameException} naming the
 * field; the pipeline's error handler answers and closes the connection. Stateless, hence
 * {@link Sharable}; the frame buffer is released by the superclass on every path.
 */
@Sharable
public final class MessageDecoder extends MessageToMessageDecoder<ByteBuf> {
    /** The shared instance, which reads every version this build speaks. */
    public static final MessageDecoder INSTANCE = new MessageDecoder(WireFormat.LATEST);
    /** A decoder that reads version-1 frames only, as a node of a release before version 2 does. */
    public static final MessageDecoder VERSION_1_ONLY = new MessageDecoder(WireFormat.VERSION_1);

    private static final AccessMode[] MODES = AccessMode.values();

    private final int maxVersion;

    private MessageDecoder(int maxVersion) {
        super(ByteBuf.class);
        this.maxVersion = maxVersion;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        out.add(decode(frame, maxVersion));
    }

    /** Decodes one frame body (without length prefix) of any version this build speaks. */
    public static Message decode(ByteBuf frame) {
        return decode(frame, WireFormat.LATEST);
    }

    /**
     * Decodes one frame body (without length prefix) of version 1 to {@code maxVersion}; the frame must
     * hold exactly one message.
     */
    public static Message decode(ByteBuf frame, int maxVersion) {
        int version = WireFormat.readPreamble(frame, maxVersion);
        WireFormat.readableCheck(frame, 1 + 8 + 1, "header");
        byte type = frame.readByte();
        long requestId = frame.readLong();
        int flags = frame.readUnsignedByte();
        int known = switch (type) {
            case WireFormat.TYPE_REQUEST -> WireFormat.FLAG_SERVICE_CLASS | WireFormat.FLAG_STREAM
                    | WireFormat.FLAG_STREAM_INPUT | WireFormat.FLAG_RESUME
                    | (version >= WireFormat.VERSION_2 ? WireFormat.FLAG_METADATA : 0);
            case WireFormat.TYPE_RESPONSE -> WireFormat.FLAG_LOAD;
            case WireFormat.TYPE_STREAM_DATA -> WireFormat.FLAG_RESUMABLE | WireFormat.FLAG_RAW;
            default -> 0;
        };
        if ((flags & ~known) != 0) {
            throw new CorruptedFrameException("flags: 0x" + Integer.toHexString(flags) + " (expected: "
                    + (known == 0 ? "none" : "only 0x" + Integer.toHexString(known)) + " for message type " + type + ")");
        }
        Message message = switch (type) {
            case WireFormat.TYPE_REQUEST -> decodeRequest(frame, requestId, flags);
            case WireFormat.TYPE_RESPONSE -> decodeResponse(frame, requestId, flags);
            case WireFormat.TYPE_STREAM_DATA -> new StreamData(requestId, WireFormat.readBytes(frame, "item"),
                    (flags & WireFormat.FLAG_RESUMABLE) != 0, (flags & WireFormat.FLAG_RAW) != 0);
            case WireFormat.TYPE_STREAM_CREDIT -> decodeCredit(frame, requestId);
            case WireFormat.TYPE_STREAM_END -> decodeEnd(frame, requestId);
            case WireFormat.TYPE_STREAM_CANCEL -> new StreamCancel(requestId, WireFormat.readName(frame, "reason"));
            default -> throw new CorruptedFrameException("message type: " + type + " (expected: "
                    + WireFormat.TYPE_REQUEST + ".." + WireFormat.TYPE_STREAM_CANCEL + ")");
        };
        if (frame.isReadable()) {
            throw new CorruptedFrameException("frame has " + frame.readableBytes() + " trailing bytes (expected: 0)");
        }
        return message;
    }

    private static RequestMessage decodeRequest(ByteBuf in, long requestId, int flags) {
        String service = WireFormat.readKnownName(in, "service");
        int partition = WireFormat.readableCheck(in, 4, "partition").readInt();
        String method = WireFormat.readKnownName(in, "method");
        int mode = WireFormat.readableCheck(in, 1, "mode").readUnsignedByte();
        if (mode >= MODES.length) {
            throw new CorruptedFrameException("mode: " + mode + " (expected: 0.." + (MODES.length - 1) + ")");
        }
        int timeoutMillis = WireFormat.readableCheck(in, 4, "timeout").readInt();
        if (timeoutMillis < 1) {
            throw new CorruptedFrameException("timeout: " + timeoutMillis + " ms (expected: >= 1)");
        }
        long minVersion = WireFormat.readableCheck(in, 8, "minVersion").readLong();
        WireFormat.readableCheck(in, 16, "request id");
        long high = in.readLong();
        long low = in.readLong();
        RequestId id = high == 0 && low == 0 ? RequestId.NONE : new RequestId(high, low); // reads carry none
        String serviceClass = (flags & WireFormat.FLAG_SERVICE_CLASS) != 0 ? WireFormat.readKnownName(in, "service class")
                : ServiceClass.DEFAULT_NAME;
        long resumeFrom = 0;
        if ((flags & WireFormat.FLAG_RESUME) != 0) {
            if ((flags & (WireFormat.FLAG_STREAM | WireFormat.FLAG_STREAM_INPUT)) != WireFormat.FLAG_STREAM) {
                throw new CorruptedFrameException("flags: 0x" + Integer.toHexString(flags)
                        + " (expected: 0x08, resume, only with 0x02, stream, and without 0x04, stream input)");
            }
            resumeFrom = WireFormat.readableCheck(in, 8, "resume from").readLong();
            if (resumeFrom < 1) {
                throw new CorruptedFrameException("resume from: " + resumeFrom + " (expected: >= 1 with flag 0x08)");
            }
        }
        Metadata metadata = (flags & WireFormat.FLAG_METADATA) != 0 ? readMetadata(in) : Metadata.NONE;
        byte[] payload = WireFormat.readBytes(in, "payload");
        return new RequestMessage(requestId, service, partition, method, MODES[mode], timeoutMillis, minVersion, id,
                payload, serviceClass, streaming(flags, payload), resumeFrom, metadata);
    }

    private static Metadata readMetadata(ByteBuf in) {
        int count = WireFormat.readableCheck(in, 1, "metadata count").readUnsignedByte();
        if (count < 1 || count > Metadata.MAX_ENTRIES) {
            throw new CorruptedFrameException("metadata count: " + count + " (expected: 1.." + Metadata.MAX_ENTRIES
                    + " with flag 0x10)");
        }
        Map<String, String> entries = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            String key = WireFormat.readName(in, "metadata key", Metadata.MAX_KEY_BYTES);
            String value = WireFormat.readName(in, "metadata value", Metadata.MAX_VALUE_BYTES);
            if (entries.put(key, value) != null) {
                throw new CorruptedFrameException("metadata key '" + key + "' twice (expected: once)");
            }
        }
        try {
            return new Metadata(entries);
        } catch (IllegalArgumentException e) {
            throw new CorruptedFrameException(e.getMessage());
        }
    }

    private static RequestMessage.Streaming streaming(int flags, byte[] payload) {
        boolean stream = (flags & WireFormat.FLAG_STREAM) != 0;
        boolean input = (flags & WireFormat.FLAG_STREAM_INPUT) != 0;
        if (input && !stream) {
            throw new CorruptedFrameException("flags: 0x" + Integer.toHexString(flags)
                    + " (expected: 0x04, stream input, only with 0x02, stream)");
        }
        if (input && payload.length != 0) {
            throw new CorruptedFrameException("payload length: " + payload.length
                    + " (expected: 0 for a bidirectional stream, whose input comes as DATA frames)");
        }
        return input ? RequestMessage.Streaming.BIDIRECTIONAL
                : stream ? RequestMessage.Streaming.OUTPUT : RequestMessage.Streaming.NONE;
    }

    private static StreamCredit decodeCredit(ByteBuf in, long requestId) {
        int items = WireFormat.readableCheck(in, 4, "credit").readInt();
        if (items < 1) {
            throw new CorruptedFrameException("credit: " + items + " (expected: >= 1)");
        }
        return new StreamCredit(requestId, items);
    }

    private static StreamEnd decodeEnd(ByteBuf in, long requestId) {
        int code = WireFormat.readableCheck(in, 1, "status").readUnsignedByte();
        Status status = Status.of(code);
        if (status == null) {
            throw new CorruptedFrameException("status: " + code + " (expected: a known status code)");
        }
        return new StreamEnd(requestId, status, WireFormat.readBytes(in, "message"));
    }

    private static ResponseMessage decodeResponse(ByteBuf in, long requestId, int flags) {
        int code = WireFormat.readableCheck(in, 1, "status").readUnsignedByte();
        Status status = Status.of(code);
        if (status == null) {
            throw new CorruptedFrameException("status: " + code + " (expected: a known status code)");
        }
        long version = WireFormat.readableCheck(in, 8, "version").readLong();
        int load = -1;
        if ((flags & WireFormat.FLAG_LOAD) != 0) {
            load = WireFormat.readableCheck(in, 4, "load").readInt();
            if (load < 0) {
                throw new CorruptedFrameException("load: " + load + " (expected: >= 0 with flag 0x01)");
            }
        }
        byte[] payload = WireFormat.readBytes(in, "payload");
        return new ResponseMessage(requestId, status, version, payload, load);
    }
}
