package io.neptune.core.internal.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;

/** Encodes {@link Message}s into length-prefixed frames. Stateless, hence {@link Sharable}. */
@Sharable
public final class MessageEncoder extends MessageToByteEncoder<Message> {
    /** The shared instance. */
    public static final MessageEncoder INSTANCE = new MessageEncoder();

    private MessageEncoder() {
        super(Message.class);
    }

    @Override
    protected void encode(ChannelHandlerContext ctx, Message msg, ByteBuf out) {
        encode(msg, out);
    }

    /**
     * The bytes {@code msg} takes on the wire, its 4-byte length prefix included: what a receiver's
     * {@code max-frame-size} limits (its frame decoder counts the prefix). Senders check this one;
     * checking {@link #frameLength} let frames 1 to 4 bytes over a receiver's limit through, and the
     * receiver then closed the connection with every other call on it.
     */
    public static long wireLength(Message msg) {
        return 4 + frameLength(msg);
    }

    /** The frame length {@link #encode} writes for {@code msg} in its length prefix, which it does not count. */
    public static long frameLength(Message msg) {
        long header = 2 + 1 + 1 + 8 + 1; // magic, version, type, request id, flags
        if (msg instanceof RequestMessage request) {
            return header + 2 + WireFormat.nameBytes(request.service()) + 4 + 2 + WireFormat.nameBytes(request.method())
                    + 1 + 4 + 8 + 16 + (request.hasServiceClass() ? 2 + WireFormat.nameBytes(request.serviceClass()) : 0)
                    + (request.resumeFrom() > 0 ? 8 : 0) + (request.metadata().isEmpty() ? 0 : request.metadata().wireBytes())
                    + 4 + request.payload().length;
        }
        if (msg instanceof StreamData data) {
            return header + 4 + data.payload().length;
        }
        if (msg instanceof StreamCredit) {
            return header + 4;
        }
        if (msg instanceof StreamEnd end) {
            return header + 1 + 4 + end.payload().length;
        }
        if (msg instanceof StreamCancel cancel) {
            return header + 2 + WireFormat.nameBytes(cancel.reason());
        }
        ResponseMessage response = (ResponseMessage) msg;
        return header + 1 + 8 + (response.load() >= 0 ? 4 : 0) + 4 + response.payload().length;
    }

    private static int flags(RequestMessage request) {
        int flags = (request.hasServiceClass() ? WireFormat.FLAG_SERVICE_CLASS : 0)
                | (request.resumeFrom() > 0 ? WireFormat.FLAG_RESUME : 0)
                | (request.metadata().isEmpty() ? 0 : WireFormat.FLAG_METADATA);
        return switch (request.streaming()) {
            case NONE -> flags;
            case OUTPUT -> flags | WireFormat.FLAG_STREAM;
            case BIDIRECTIONAL -> flags | WireFormat.FLAG_STREAM | WireFormat.FLAG_STREAM_INPUT;
        };
    }

    /**
     * Writes {@code msg} as one complete frame, length prefix included: a version-2 frame if it is a
     * request with metadata, else a version-1 frame, which every node reads.
     */
    public static void encode(Message msg, ByteBuf out) {
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        out.writeShort(WireFormat.MAGIC);
        boolean metadata = msg instanceof RequestMessage request && !request.metadata().isEmpty();
        out.writeByte(metadata ? WireFormat.VERSION_2 : WireFormat.VERSION_1);
        if (msg instanceof RequestMessage request) {
            out.writeByte(WireFormat.TYPE_REQUEST);
            out.writeLong(request.requestId());
            out.writeByte(flags(request));
            WireFormat.writeName(out, request.service());
            out.writeInt(request.partition());
            WireFormat.writeName(out, request.method());
            out.writeByte(request.mode().ordinal());
            out.writeInt(request.timeoutMillis());
            out.writeLong(request.minVersion());
            out.writeLong(request.id().high());
            out.writeLong(request.id().low());
            if (request.hasServiceClass()) {
                WireFormat.writeName(out, request.serviceClass());
            }
            if (request.resumeFrom() > 0) {
                out.writeLong(request.resumeFrom());
            }
            if (metadata) {
                writeMetadata(out, request.metadata());
            }
            out.writeInt(request.payload().length);
            out.writeBytes(request.payload());
        } else if (msg instanceof ResponseMessage response) {
            out.writeByte(WireFormat.TYPE_RESPONSE);
            out.writeLong(response.requestId());
            out.writeByte(response.load() >= 0 ? WireFormat.FLAG_LOAD : 0);
            out.writeByte(response.status().code());
            out.writeLong(response.version());
            if (response.load() >= 0) {
                out.writeInt(response.load());
            }
            out.writeInt(response.payload().length);
            out.writeBytes(response.payload());
        } else if (msg instanceof StreamData data) {
            header(out, WireFormat.TYPE_STREAM_DATA, data.requestId(),
                    (data.resumable() ? WireFormat.FLAG_RESUMABLE : 0) | (data.raw() ? WireFormat.FLAG_RAW : 0));
            out.writeInt(data.payload().length);
            out.writeBytes(data.payload());
        } else if (msg instanceof StreamCredit credit) {
            header(out, WireFormat.TYPE_STREAM_CREDIT, credit.requestId());
            out.writeInt(credit.items());
        } else if (msg instanceof StreamEnd end) {
            header(out, WireFormat.TYPE_STREAM_END, end.requestId());
            out.writeByte(end.status().code());
            out.writeInt(end.payload().length);
            out.writeBytes(end.payload());
        } else if (msg instanceof StreamCancel cancel) {
            header(out, WireFormat.TYPE_STREAM_CANCEL, cancel.requestId());
            WireFormat.writeName(out, cancel.reason());
        }
        out.setInt(lengthIndex, out.writerIndex() - lengthIndex - 4);
    }

    private static void writeMetadata(ByteBuf out, Metadata metadata) {
        out.writeByte(metadata.entries().size());
        metadata.entries().forEach((key, value) -> {
            WireFormat.writeName(out, key, Metadata.MAX_KEY_BYTES);
            WireFormat.writeName(out, value, Metadata.MAX_VALUE_BYTES);
        });
    }

    private static void header(ByteBuf out, byte type, long requestId) {
        header(out, type, requestId, 0);
    }

    private static void header(ByteBuf out, byte type, long requestId, int flags) {
        out.writeByte(type);
        out.writeLong(requestId);
        out.writeByte(flags);
    }
}
