package io.neptune.core.internal.wire;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;

/**
 * UDP load-poll datagrams: a client asks a node for the load index of one service partition; the
 * node answers with active + queued requests of that service and the partition's version.
 */
public final class Poll {
    private Poll() {}

    /**
     * A load inquiry.
     *
     * @param pollId correlates the reply
     * @param service service name
     * @param partition partition id
     */
    public record Request(long pollId, String service, int partition) {}

    /**
     * The answer to a load inquiry.
     *
     * @param pollId the inquiry's id
     * @param load active + queued requests of the service on the node, or -1 if not hosted
     * @param version the partition's version on the node
     */
    public record Reply(long pollId, int load, long version) {}

    /** Writes a poll request datagram body. */
    public static void encode(Request request, ByteBuf out) {
        out.writeShort(WireFormat.MAGIC).writeByte(WireFormat.VERSION).writeByte(WireFormat.TYPE_POLL);
        out.writeLong(request.pollId());
        WireFormat.writeName(out, request.service());
        out.writeInt(request.partition());
    }

    /** Writes a poll reply datagram body. */
    public static void encode(Reply reply, ByteBuf out) {
        out.writeShort(WireFormat.MAGIC).writeByte(WireFormat.VERSION).writeByte(WireFormat.TYPE_POLL_REPLY);
        out.writeLong(reply.pollId()).writeInt(reply.load()).writeLong(reply.version());
    }

    /** Reads a poll request, throwing {@link CorruptedFrameException} on anything else. */
    public static Request decodeRequest(ByteBuf in) {
        expectType(in, WireFormat.TYPE_POLL);
        long pollId = WireFormat.readableCheck(in, 8, "pollId").readLong();
        String service = WireFormat.readName(in, "service");
        int partition = WireFormat.readableCheck(in, 4, "partition").readInt();
        noTrailingBytes(in);
        return new Request(pollId, service, partition);
    }

    /** Reads a poll reply, throwing {@link CorruptedFrameException} on anything else. */
    public static Reply decodeReply(ByteBuf in) {
        expectType(in, WireFormat.TYPE_POLL_REPLY);
        WireFormat.readableCheck(in, 8 + 4 + 8, "reply");
        Reply reply = new Reply(in.readLong(), in.readInt(), in.readLong());
        noTrailingBytes(in);
        return reply;
    }

    private static void noTrailingBytes(ByteBuf in) {
        if (in.isReadable()) {
            throw new CorruptedFrameException("datagram has " + in.readableBytes() + " trailing bytes (expected: 0)");
        }
    }

    private static void expectType(ByteBuf in, byte expected) {
        WireFormat.readPreamble(in);
        byte type = WireFormat.readableCheck(in, 1, "type").readByte();
        if (type != expected) {
            throw new CorruptedFrameException("datagram type: " + type + " (expected: " + expected + ")");
        }
    }
}
