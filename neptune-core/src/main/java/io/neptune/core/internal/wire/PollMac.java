package io.neptune.core.internal.wire;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ClusterSecret;
import io.netty.buffer.ByteBuf;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.ShortBufferException;
import javax.crypto.spec.SecretKeySpec;

/**
 * The MAC of load-poll replies (issue 23, polls; {@code docs/protocols/wire.md}): HMAC-SHA256,
 * truncated to {@value #MAC_BYTES} bytes, keyed with a key derived from the cluster secret
 * ({@link ClusterSecret#deriveKey} with {@value #LABEL}), over the whole poll datagram as the node
 * received it (its type, id, nonce, service, partition and class) followed by the reply datagram up
 * to the MAC. A reply with a valid MAC thus answers exactly that poll: its numbers cannot be changed,
 * it cannot be moved to another poll (each poll's nonce is fresh), and nobody without the secret
 * can make one. A node signs with {@link #encodeReply}; a client checks with {@link #verify}.
 *
 * <p>Thread-safety: not thread-safe (it holds a {@link Mac}); confine each instance to one thread,
 * such as the event loop of the channel that uses it.
 */
public final class PollMac {
    /** The HKDF label of the key: a new version of the MAC takes a new label. */
    public static final String LABEL = "neptune poll mac v1";
    /** Bytes of the MAC at the end of a reply: the first half of the HMAC-SHA256. */
    public static final int MAC_BYTES = 16;

    private static final String HMAC = "HmacSHA256";

    private final Mac mac;
    private final byte[] computed = new byte[32];

    /** A MAC with the key of {@code secret}. */
    public PollMac(ClusterSecret secret) {
        requireNonNull(secret, "secret");
        byte[] key = secret.deriveKey(LABEL);
        try {
            mac = Mac.getInstance(HMAC);
            mac.init(new SecretKeySpec(key, HMAC));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(HMAC + ": unavailable (expected: in every Java runtime)", e);
        } finally {
            Arrays.fill(key, (byte) 0);
        }
    }

    /**
     * Writes the reply of type {@link WireFormat#TYPE_MAC_POLL_REPLY} to {@code poll} into {@code out}:
     * its fields, then the MAC over the poll and them.
     *
     * @param poll the poll datagram as received: its readable bytes (not consumed)
     */
    public void encodeReply(ByteBuf poll, Poll.Reply reply, ByteBuf out) {
        int start = out.writerIndex();
        Poll.encodeMacReplyFields(reply, out);
        mac.update(poll.nioBuffer(poll.readerIndex(), poll.readableBytes()));
        mac.update(out.nioBuffer(start, out.writerIndex() - start));
        doFinal();
        out.writeBytes(computed, 0, MAC_BYTES);
    }

    /**
     * Whether the MAC at the end of {@code reply} is the one for {@code poll} and the reply's other
     * bytes (compared in constant time). Only the length of {@code reply} is checked here; decode it
     * with {@link Poll#decodeMacReply}.
     *
     * @param poll the poll datagram as sent
     * @param reply the reply datagram as received: its readable bytes (not consumed)
     */
    public boolean verify(byte[] poll, ByteBuf reply) {
        int length = reply.readableBytes() - MAC_BYTES;
        if (length <= 0) {
            return false;
        }
        mac.update(poll);
        mac.update(reply.nioBuffer(reply.readerIndex(), length));
        doFinal();
        int macIndex = reply.readerIndex() + length;
        int difference = 0;
        for (int i = 0; i < MAC_BYTES; i++) { // constant time: no early exit on the first differing byte
            difference |= computed[i] ^ reply.getByte(macIndex + i);
        }
        return difference == 0;
    }

    private void doFinal() {
        try {
            mac.doFinal(computed, 0);
        } catch (ShortBufferException e) {
            throw new IllegalStateException("HMAC-SHA256 output: longer than 32 bytes (expected: 32)", e);
        }
    }

    /** Names the label, never the key. */
    @Override
    public String toString() {
        return "PollMac[" + LABEL + "]";
    }
}
