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
     * The frame length {@link #encode} writes for {@code msg}, not counting the 4-byte length
     * prefix: what a receiver compares with its {@code max-frame-size}.
     */
    public static long frameLength(Message msg) {
        long header = 2 + 1 + 1 + 8 + 1; // magic, version, type, request id, flags
        if (msg instanceof RequestMessage request) {
            return header + 2 + WireFormat.nameBytes(request.service()) + 4 + 2 + WireFormat.nameBytes(request.method())
                    + 1 + 4 + 8 + 16 + (request.hasServiceClass() ? 2 + WireFormat.nameBytes(request.serviceClass()) : 0)
                    + 4 + request.payload().length;
        }
        ResponseMessage response = (ResponseMessage) msg;
        return header + 1 + 8 + 4 + response.payload().length;
    }

    /** Writes {@code msg} as one complete frame, length prefix included. */
    public static void encode(Message msg, ByteBuf out) {
        int lengthIndex = out.writerIndex();
        out.writeInt(0);
        out.writeShort(WireFormat.MAGIC);
        out.writeByte(WireFormat.VERSION);
        if (msg instanceof RequestMessage request) {
            out.writeByte(WireFormat.TYPE_REQUEST);
            out.writeLong(request.requestId());
            out.writeByte(request.hasServiceClass() ? WireFormat.FLAG_SERVICE_CLASS : 0);
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
            out.writeInt(request.payload().length);
            out.writeBytes(request.payload());
        } else if (msg instanceof ResponseMessage response) {
            out.writeByte(WireFormat.TYPE_RESPONSE);
            out.writeLong(response.requestId());
            out.writeByte(0);
            out.writeByte(response.status().code());
            out.writeLong(response.version());
            out.writeInt(response.payload().length);
            out.writeBytes(response.payload());
        }
        out.setInt(lengthIndex, out.writerIndex() - lengthIndex - 4);
    }
}
