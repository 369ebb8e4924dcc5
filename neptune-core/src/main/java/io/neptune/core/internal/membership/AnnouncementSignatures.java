package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import io.neptune.core.Principal;
import io.neptune.core.internal.membership.SignedAnnouncementCodec.SignedAnnouncement;
import io.neptune.core.internal.tls.PemKeyMaterial;
import io.neptune.core.internal.tls.ReloadingKeyMaterial;
import io.neptune.core.internal.tls.TlsContext;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * Signs this node's announcements with its certificate's key, and verifies the others': the
 * certificate chain must lead to a trusted authority (PKIX, the {@code trust} file as it is now)
 * and the signature must verify with the certificate's key. What a chain proves (its principal and
 * key) is cached by the chain's SHA-256, so a peer's chain is validated once, again only when the
 * trust file changed or a certificate of it expired. The signed bytes are a fixed prefix, the
 * cluster's name and the announcement's JSON, so a signature made for another cluster or purpose
 * does not verify here (docs/protocols/wire.md, "Signed announcements").
 *
 * <p>Thread-safety: thread-safe.
 */
public final class AnnouncementSignatures {
    private static final byte[] PURPOSE = "neptune-announcement\0".getBytes(StandardCharsets.US_ASCII);
    /** Chains remembered as verified; one per node certificate in the cluster is enough. */
    static final int CACHE_SIZE = 1024;

    private final ReloadingKeyMaterial material;
    private final byte[] cluster;
    private final LongSupplier currentTimeMillis;
    /** Verified chains by fingerprint, least recently used first; guarded by itself. */
    private final Map<String, Trusted> verified = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Trusted> eldest) {
            return size() > CACHE_SIZE;
        }
    };
    private final AtomicLong chainValidations = new AtomicLong();
    private volatile @Nullable Own own;

    /** What a validated chain proves, and until when. */
    private record Trusted(PemKeyMaterial checkedWith, @Nullable Principal principal, PublicKey key,
            long notAfterMillis) {}

    /** This node's chain as sent, for the material it was encoded from. */
    private record Own(PemKeyMaterial material, List<byte[]> chain) {}

    /** The outcome of {@link #verify}. */
    public sealed interface Verdict permits Accepted, Refused {}

    /**
     * A signed announcement whose chain and signature verified.
     *
     * @param announcement the announcement's JSON, as signed
     * @param signer the principal the signer's certificate names
     */
    public record Accepted(byte[] announcement, Principal signer) implements Verdict {
        /** Validates the fields. */
        public Accepted {
            requireNonNull(announcement, "announcement");
            requireNonNull(signer, "signer");
        }
    }

    /**
     * A frame to drop.
     *
     * @param refusal why
     * @param detail what, for the log line
     */
    public record Refused(Refusal refusal, String detail) implements Verdict {
        /** Validates the fields. */
        public Refused {
            requireNonNull(refusal, "refusal");
            requireNonNull(detail, "detail");
        }
    }

    /**
     * Creates the signatures of cluster {@code cluster} with {@code material}'s key and authorities.
     *
     * @param currentTimeMillis the wall clock certificates' validity is compared with
     */
    public AnnouncementSignatures(ReloadingKeyMaterial material, String cluster, LongSupplier currentTimeMillis) {
        this.material = requireNonNull(material, "material");
        this.cluster = requireNonNull(cluster, "cluster").getBytes(StandardCharsets.UTF_8);
        this.currentTimeMillis = requireNonNull(currentTimeMillis, "currentTimeMillis");
    }

    /** The frame of {@code announcement} (its JSON) signed with this node's current key. */
    public byte[] sign(byte[] announcement) {
        PemKeyMaterial current = material.current();
        PrivateKey key = current.key();
        try {
            Signature signature = Signature.getInstance(PemKeyMaterial.signatureAlgorithm(key.getAlgorithm()));
            signature.initSign(key);
            signature.update(PURPOSE);
            signature.update(cluster);
            signature.update((byte) 0);
            signature.update(announcement);
            return SignedAnnouncementCodec.encode(new SignedAnnouncement(ownChain(current), signature.sign(),
                    announcement));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign with the " + key.getAlgorithm() + " key of "
                    + current.certificate().getSubjectX500Principal(), e);
        }
    }

    /**
     * The certificates sent with a signature: the node's, then those that issued it, leaving out
     * self-signed ones (a root is in every receiver's trust file, or it would not be trusted anyway).
     */
    private List<byte[]> ownChain(PemKeyMaterial current) throws CertificateEncodingException {
        Own cached = own;
        if (cached != null && cached.material() == current) {
            return cached.chain();
        }
        List<byte[]> chain = new ArrayList<>();
        for (X509Certificate certificate : current.chain()) {
            if (chain.isEmpty() || !certificate.getSubjectX500Principal().equals(certificate.getIssuerX500Principal())) {
                chain.add(certificate.getEncoded());
            }
        }
        own = new Own(current, List.copyOf(chain));
        return chain;
    }

    /** Checks the signed frame in {@code frame[offset, offset + length)}. */
    public Verdict verify(byte[] frame, int offset, int length) {
        Optional<SignedAnnouncement> decoded = SignedAnnouncementCodec.decode(frame, offset, length);
        if (decoded.isEmpty()) {
            boolean plain = length > 0 && frame[offset] == '{';
            return new Refused(Refusal.UNSIGNED, plain ? "an unsigned announcement (plain JSON)"
                    : "a malformed signed frame of " + length + " bytes");
        }
        SignedAnnouncement signed = decoded.get();
        Trusted trusted;
        try {
            trusted = trusted(signed.chain());
        } catch (CertificateException e) {
            return new Refused(Refusal.UNTRUSTED_CERTIFICATE, String.valueOf(e.getMessage()));
        }
        Principal signer = trusted.principal();
        if (signer == null || signer.role() != Principal.Role.NODE) {
            return new Refused(Refusal.OTHER_NODE, "the certificate names " + (signer == null ? "no neptune:// principal"
                    : signer + ", not a node"));
        }
        try {
            Signature signature = Signature.getInstance(PemKeyMaterial.signatureAlgorithm(trusted.key().getAlgorithm()));
            signature.initVerify(trusted.key());
            signature.update(PURPOSE);
            signature.update(cluster);
            signature.update((byte) 0);
            signature.update(signed.announcement());
            if (!signature.verify(signed.signature())) {
                return new Refused(Refusal.BAD_SIGNATURE, "signed as " + signer);
            }
        } catch (GeneralSecurityException e) {
            return new Refused(Refusal.BAD_SIGNATURE, "signed as " + signer + ": " + e);
        }
        return new Accepted(signed.announcement(), signer);
    }

    private Trusted trusted(List<byte[]> chain) throws CertificateException {
        PemKeyMaterial current = material.current();
        long now = currentTimeMillis.getAsLong();
        String fingerprint = fingerprint(chain);
        synchronized (verified) {
            Trusted known = verified.get(fingerprint);
            if (known != null && known.checkedWith() == current && now <= known.notAfterMillis()) {
                return known;
            }
        }
        CertificateFactory factory = CertificateFactory.getInstance("X.509");
        X509Certificate[] certificates = new X509Certificate[chain.size()];
        long notAfter = Long.MAX_VALUE;
        for (int i = 0; i < certificates.length; i++) {
            certificates[i] = (X509Certificate) factory.generateCertificate(new ByteArrayInputStream(chain.get(i)));
            notAfter = Math.min(notAfter, certificates[i].getNotAfter().getTime());
        }
        PublicKey key = certificates[0].getPublicKey();
        chainValidations.incrementAndGet();
        current.trustManager().checkClientTrusted(certificates, key.getAlgorithm()); // PKIX, validity now
        Trusted trusted = new Trusted(current, TlsContext.principal(certificates[0]).orElse(null), key, notAfter);
        synchronized (verified) {
            verified.put(fingerprint, trusted);
        }
        return trusted;
    }

    private static String fingerprint(List<byte[]> chain) {
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK offers no SHA-256", e);
        }
        for (byte[] certificate : chain) {
            digest.update((byte) (certificate.length >>> 8));
            digest.update((byte) certificate.length);
            digest.update(certificate);
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    /** How many certificate chains were validated (not found in the cache) since this object was created. */
    public long chainValidations() {
        return chainValidations.get();
    }
}
