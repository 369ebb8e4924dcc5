package io.neptune.core.internal.wire;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.CorruptedFrameException;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.util.List;

/**
 * Splits the stream at the 4-byte length prefixes and strips them. Unlike Netty's
 * {@link LengthFieldBasedFrameDecoder}, which drops a partial frame silently when the input ends,
 * a stream that ends inside a frame raises a {@link CorruptedFrameException}, so the peer can be
 * told it sent a truncated frame. One instance per channel.
 */
final class FrameDecoder extends LengthFieldBasedFrameDecoder {
    FrameDecoder(int maxFrameBytes) {
        super(maxFrameBytes, 0, 4, 0, 4, true);
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        if (in.isReadable()) {
            int received = in.readableBytes();
            String expected = received >= 4 ? " of " + (in.getUnsignedInt(in.readerIndex()) + 4) : "";
            in.skipBytes(received);
            throw new CorruptedFrameException("truncated frame: the stream ended after " + received + expected
                    + " bytes");
        }
    }
}
