package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Bytes ↔ {@link SignedAnnouncement}: the frame a node sends on the JGroups channel when
 * membership is secured (docs/protocols/wire.md, "Signed announcements"). All lengths are unsigned
 * big-endian:
 *
 * <pre>
 * u8  format = 1               (a plain announcement is JSON and starts with '{')
 * u8  n, certificates          (1..{@value #MAX_CERTIFICATES}: the signer's, then those that issued it)
 * n × (u16 length, DER bytes)
 * u16 length, signature bytes
 * u32 length, announcement     (the JSON of an announcement, exactly the bytes signed)
 * </pre>
 *
 * <p>Thread-safety: stateless.
 */
public final class SignedAnnouncementCodec {
    /** The first byte of a signed frame. */
    static final int FORMAT = 1;
    /** The most certificates a frame may carry. */
    static final int MAX_CERTIFICATES = 8;
    private static final int MAX_U16 = 0xFFFF;

    private SignedAnnouncementCodec() {}

    /**
     * A signed announcement: the signer's certificate chain (DER), its signature and the announcement
     * bytes it signed. The arrays are not copied: the codec and its callers do not change them.
     *
     * @param chain the signer's certificate first, then the certificates that issued it
     * @param signature the signature of {@link AnnouncementSignatures#signedBytes} over {@code announcement}
     * @param announcement the announcement's JSON
     */
    public record SignedAnnouncement(List<byte[]> chain, byte[] signature, byte[] announcement) {
        /** Validates the fields. */
        public SignedAnnouncement {
            chain = List.copyOf(chain);
            if (chain.isEmpty() || chain.size() > MAX_CERTIFICATES) {
                throw new IllegalArgumentException("chain: " + chain.size() + " certificates (expected: 1.."
                        + MAX_CERTIFICATES + ")");
            }
            for (byte[] certificate : chain) {
                checkU16("certificate", certificate.length);
            }
            checkU16("signature", signature.length);
            requireNonNull(announcement, "announcement");
        }

        private static void checkU16(String name, int length) {
            if (length > MAX_U16) {
                throw new IllegalArgumentException(name + ": " + length + " bytes (expected: <= " + MAX_U16 + ")");
            }
        }
    }

    /** The frame of {@code signed}. */
    public static byte[] encode(SignedAnnouncement signed) {
        int size = 2 + 2 + signed.signature().length + 4 + signed.announcement().length;
        for (byte[] certificate : signed.chain()) {
            size += 2 + certificate.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size);
        out.put((byte) FORMAT).put((byte) signed.chain().size());
        for (byte[] certificate : signed.chain()) {
            out.putShort((short) certificate.length).put(certificate);
        }
        out.putShort((short) signed.signature().length).put(signed.signature());
        out.putInt(signed.announcement().length).put(signed.announcement());
        return out.array();
    }

    /** Whether {@code frame} is a plain announcement, unsigned: JSON, starting with '{'. */
    public static boolean isPlain(byte[] frame, int offset, int length) {
        return length > 0 && frame[offset] == '{';
    }

    /** The signed announcement in {@code frame}; empty if it is not one (a plain announcement, or malformed). */
    public static Optional<SignedAnnouncement> decode(byte[] frame, int offset, int length) {
        ByteBuffer in = ByteBuffer.wrap(frame, offset, length);
        try {
            if (in.get() != FORMAT) {
                return Optional.empty();
            }
            int count = Byte.toUnsignedInt(in.get());
            if (count == 0 || count > MAX_CERTIFICATES) {
                return Optional.empty();
            }
            List<byte[]> chain = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                chain.add(bytes(in, Short.toUnsignedInt(in.getShort())));
            }
            byte[] signature = bytes(in, Short.toUnsignedInt(in.getShort()));
            int size = in.getInt();
            if (size < 0 || size != in.remaining()) {
                return Optional.empty();
            }
            return Optional.of(new SignedAnnouncement(chain, signature, bytes(in, size)));
        } catch (BufferUnderflowException e) {
            return Optional.empty();
        }
    }

    private static byte[] bytes(ByteBuffer in, int length) {
        if (length > in.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] bytes = new byte[length];
        in.get(bytes);
        return bytes;
    }
}
