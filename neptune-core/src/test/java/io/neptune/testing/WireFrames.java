package io.neptune.testing;

import io.neptune.core.internal.wire.Message;
import io.neptune.core.internal.wire.MessageEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/** Frames as the bytes a raw socket sends: for tests that speak the wire protocol by hand. */
public final class WireFrames {
    private WireFrames() {}

    /** The whole frame of {@code message}, length prefix included. */
    public static byte[] bytes(Message message) {
        ByteBuf buf = Unpooled.buffer();
        try {
            MessageEncoder.encode(message, buf);
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            return bytes;
        } finally {
            buf.release();
        }
    }
}
