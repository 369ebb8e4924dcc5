package io.neptune.core.internal.wire;

import io.neptune.core.ServiceClass;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;

/**
 * UDP load-poll datagrams: a client asks a node for the load index of one service partition; the
 * node answers with active + queued requests of that service and the partition's version. A poll
 * may name a service class (class-aware random polling, dissertation section 4.3); the reply then
 * also carries the load of that class. Both additions are trailing fields that only appear when a
 * class is named, so polls and replies without them are those of version 1 before classes.
 */
public final class Poll {
    private Poll() {}

    /**
     * A load inquiry.
     *
     * @param pollId correlates the reply
     * @param service service name
     * @param partition partition id
     * @param serviceClass the class whose load the caller asks for; {@value ServiceClass#DEFAULT_NAME} for none
     */
    public record Request(long pollId, String service, int partition, String serviceClass) {
        /** An inquiry that names no class. */
        public Request(long pollId, String service, int partition) {
            this(pollId, service, partition, ServiceClass.DEFAULT_NAME);
        }

        /** Whether the inquiry names a class (the datagram then carries it). */
        public boolean namesClass() {
            return !serviceClass.equals(ServiceClass.DEFAULT_NAME);
        }
    }

    /**
     * The answer to a load inquiry.
     *
     * @param pollId the inquiry's id
     * @param load active + queued requests of the service on the node, or -1 if not hosted
     * @param version the partition's version on the node
     * @param classLoad active + queued requests of the asked class; {@code load} when the inquiry named none
     */
    public record Reply(long pollId, int load, long version, int classLoad) {
        /** An answer to an inquiry that named no class. */
        public Reply(long pollId, int load, long version) {
            this(pollId, load, version, load);
        }
    }

    /** Writes a poll request datagram body. */
    public static void encode(Request request, ByteBuf out) {
        out.writeShort(WireFormat.MAGIC).writeByte(WireFormat.VERSION).writeByte(WireFormat.TYPE_POLL);
        out.writeLong(request.pollId());
        WireFormat.writeName(out, request.service());
        out.writeInt(request.partition());
        if (request.namesClass()) {
            WireFormat.writeName(out, request.serviceClass());
        }
    }

    /**
     * Writes a poll reply datagram body; {@code withClassLoad} when the inquiry named a class (a
     * client that names none may predate classes and would refuse the extra field).
     */
    public static void encode(Reply reply, boolean withClassLoad, ByteBuf out) {
        out.writeShort(WireFormat.MAGIC).writeByte(WireFormat.VERSION).writeByte(WireFormat.TYPE_POLL_REPLY);
        out.writeLong(reply.pollId()).writeInt(reply.load()).writeLong(reply.version());
        if (withClassLoad) {
            out.writeInt(reply.classLoad());
        }
    }

    /** Writes a poll reply datagram body without the class load. */
    public static void encode(Reply reply, ByteBuf out) {
        encode(reply, false, out);
    }

    /** Reads a poll request, throwing {@link CorruptedFrameException} on anything else. */
    public static Request decodeRequest(ByteBuf in) {
        expectType(in, WireFormat.TYPE_POLL);
        long pollId = WireFormat.readableCheck(in, 8, "pollId").readLong();
        String service = WireFormat.readName(in, "service");
        int partition = WireFormat.readableCheck(in, 4, "partition").readInt();
        String serviceClass = in.isReadable() ? WireFormat.readName(in, "service class") : ServiceClass.DEFAULT_NAME;
        noTrailingBytes(in);
        return new Request(pollId, service, partition, serviceClass);
    }

    /** Reads a poll reply, throwing {@link CorruptedFrameException} on anything else. */
    public static Reply decodeReply(ByteBuf in) {
        expectType(in, WireFormat.TYPE_POLL_REPLY);
        WireFormat.readableCheck(in, 8 + 4 + 8, "reply");
        long pollId = in.readLong();
        int load = in.readInt();
        long version = in.readLong();
        int classLoad = in.isReadable() ? WireFormat.readableCheck(in, 4, "class load").readInt() : load;
        noTrailingBytes(in);
        return new Reply(pollId, load, version, classLoad);
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
