package io.neptune.core.internal.wire;

import io.neptune.core.ServiceClass;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.CorruptedFrameException;
import java.security.SecureRandom;
import org.jspecify.annotations.Nullable;

/**
 * UDP load-poll datagrams: a client asks a node for the load index of one service partition; the
 * node answers with active + queued requests of that service and the partition's version. A poll
 * may name a service class (class-aware random polling, dissertation section 4.3); the reply then
 * also carries the load of that class. Both additions are trailing fields that only appear when a
 * class is named, so polls and replies without them are those of version 1 before classes.
 *
 * <p>A client with a cluster secret sends polls of another type that carry a nonce and ask for a
 * reply with a MAC ({@link PollMac}); nodes and clients without a secret never send them, so their
 * datagrams are unchanged. {@code docs/protocols/wire.md} (UDP load polls) has the layouts.
 */
public final class Poll {
    /** Bytes of a reply with a MAC after its type and before its MAC: pollId, load, version, classLoad. */
    private static final int MAC_REPLY_FIELD_BYTES = 8 + 4 + 8 + 4;

    private Poll() {}

    /**
     * A load inquiry.
     *
     * @param pollId correlates the reply
     * @param service service name
     * @param partition partition id
     * @param serviceClass the class whose load the caller asks for; {@value ServiceClass#DEFAULT_NAME} for none
     * @param nonce fresh for each poll of a client with a cluster secret, which then takes only a
     *     reply with a MAC over the poll; {@code null} for a poll that asks for no MAC
     */
    public record Request(long pollId, String service, int partition, String serviceClass, @Nullable Nonce nonce) {
        /** An inquiry that names no class. */
        public Request(long pollId, String service, int partition) {
            this(pollId, service, partition, ServiceClass.DEFAULT_NAME);
        }

        /** An inquiry that asks for no MAC. */
        public Request(long pollId, String service, int partition, String serviceClass) {
            this(pollId, service, partition, serviceClass, null);
        }

        /** Whether the inquiry carries a nonce and asks for a reply with a MAC ({@link PollMac}). */
        public boolean asksForMac() {
            return nonce != null;
        }

        /** Whether the inquiry names a class (the datagram then carries it). */
        public boolean namesClass() {
            return !serviceClass.equals(ServiceClass.DEFAULT_NAME);
        }
    }

    /**
     * The {@value #NONCE_BYTES}-byte nonce of a poll that asks for a MAC, as two longs (big-endian
     * on the wire: {@code high} first).
     *
     * @param high the first 8 bytes
     * @param low the last 8 bytes
     */
    public record Nonce(long high, long low) {
        /** A nonce drawn from {@code random}. */
        public static Nonce random(SecureRandom random) {
            return new Nonce(random.nextLong(), random.nextLong());
        }
    }

    /** Bytes of a {@link Nonce} on the wire. */
    public static final int NONCE_BYTES = 16;

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

    /**
     * Writes a poll request datagram body: of type {@link WireFormat#TYPE_MAC_POLL}, with the nonce
     * and always the class, if the request {@linkplain Request#asksForMac() asks for a MAC}.
     */
    public static void encode(Request request, ByteBuf out) {
        Nonce nonce = request.nonce();
        out.writeShort(WireFormat.MAGIC).writeByte(WireFormat.VERSION_1)
                .writeByte(nonce == null ? WireFormat.TYPE_POLL : WireFormat.TYPE_MAC_POLL);
        out.writeLong(request.pollId());
        if (nonce != null) {
            out.writeLong(nonce.high()).writeLong(nonce.low());
        }
        WireFormat.writeName(out, request.service());
        out.writeInt(request.partition());
        if (request.namesClass() || nonce != null) {
            WireFormat.writeName(out, request.serviceClass());
        }
    }

    /**
     * Writes a poll reply datagram body; {@code withClassLoad} when the inquiry named a class (a
     * client that names none may predate classes and would refuse the extra field).
     */
    public static void encode(Reply reply, boolean withClassLoad, ByteBuf out) {
        out.writeShort(WireFormat.MAGIC).writeByte(WireFormat.VERSION_1).writeByte(WireFormat.TYPE_POLL_REPLY);
        out.writeLong(reply.pollId()).writeInt(reply.load()).writeLong(reply.version());
        if (withClassLoad) {
            out.writeInt(reply.classLoad());
        }
    }

    /** Writes a poll reply datagram body without the class load. */
    public static void encode(Reply reply, ByteBuf out) {
        encode(reply, false, out);
    }

    /**
     * Reads a poll request, one that asks for a MAC too, throwing {@link CorruptedFrameException}
     * on anything else.
     */
    public static Request decodeRequest(ByteBuf in) {
        byte type = readType(in);
        if (type != WireFormat.TYPE_POLL && type != WireFormat.TYPE_MAC_POLL) {
            throw new CorruptedFrameException("datagram type: " + type + " (expected: " + WireFormat.TYPE_POLL
                    + " or " + WireFormat.TYPE_MAC_POLL + ")");
        }
        long pollId = WireFormat.readableCheck(in, 8, "pollId").readLong();
        Nonce nonce = null;
        if (type == WireFormat.TYPE_MAC_POLL) {
            WireFormat.readableCheck(in, NONCE_BYTES, "nonce");
            nonce = new Nonce(in.readLong(), in.readLong());
        }
        String service = WireFormat.readName(in, "service");
        int partition = WireFormat.readableCheck(in, 4, "partition").readInt();
        String serviceClass;
        if (nonce != null) {
            serviceClass = WireFormat.readName(in, "service class");
        } else {
            serviceClass = in.isReadable() ? WireFormat.readName(in, "service class") : ServiceClass.DEFAULT_NAME;
        }
        noTrailingBytes(in);
        return new Request(pollId, service, partition, serviceClass, nonce);
    }

    /** Whether {@code datagram} (not consumed) is a reply with a MAC, {@link WireFormat#TYPE_MAC_POLL_REPLY}. */
    public static boolean isMacReply(ByteBuf datagram) {
        int typeIndex = datagram.readerIndex() + 3;
        return datagram.readableBytes() > 3 && datagram.getByte(typeIndex) == WireFormat.TYPE_MAC_POLL_REPLY;
    }

    /**
     * Reads a reply with a MAC ({@link WireFormat#TYPE_MAC_POLL_REPLY}) and skips the MAC, throwing
     * {@link CorruptedFrameException} on anything else. The MAC is not checked here: trust the reply
     * only if {@link PollMac#verify} says so for the same bytes.
     */
    public static Reply decodeMacReply(ByteBuf in) {
        expectType(in, WireFormat.TYPE_MAC_POLL_REPLY);
        WireFormat.readableCheck(in, MAC_REPLY_FIELD_BYTES + PollMac.MAC_BYTES, "reply");
        Reply reply = new Reply(in.readLong(), in.readInt(), in.readLong(), in.readInt());
        in.skipBytes(PollMac.MAC_BYTES);
        noTrailingBytes(in);
        return reply;
    }

    /** Writes a reply of type {@link WireFormat#TYPE_MAC_POLL_REPLY} up to (without) its MAC. */
    static void encodeMacReplyFields(Reply reply, ByteBuf out) {
        out.writeShort(WireFormat.MAGIC).writeByte(WireFormat.VERSION_1).writeByte(WireFormat.TYPE_MAC_POLL_REPLY);
        out.writeLong(reply.pollId()).writeInt(reply.load()).writeLong(reply.version()).writeInt(reply.classLoad());
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

    private static byte readType(ByteBuf in) {
        WireFormat.readPreamble(in, WireFormat.VERSION_1);
        return WireFormat.readableCheck(in, 1, "type").readByte();
    }

    private static void expectType(ByteBuf in, byte expected) {
        byte type = readType(in);
        if (type != expected) {
            throw new CorruptedFrameException("datagram type: " + type + " (expected: " + expected + ")");
        }
    }
}
