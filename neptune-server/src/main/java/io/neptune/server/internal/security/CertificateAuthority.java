package io.neptune.server.internal.security;

import static java.util.Objects.requireNonNull;

import io.neptune.core.Principal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A development certificate authority: an EC P-256 key and a self-signed CA certificate kept as
 * {@value #CERTIFICATE_FILE} and {@value #KEY_FILE} in a directory, which issues the certificates
 * of nodes, operators and clients. Each issued certificate carries its {@link Principal} as a URI
 * subject alternative name ({@code neptune://node/node-1}), plus {@code localhost},
 * {@code 127.0.0.1} and {@code ::1}, and is good for TLS servers and clients alike. The files are
 * the PEM files a {@code SecurityConfig} names: the issued chain as {@code certificate}, its
 * PKCS#8 key as {@code key}, and {@link #certificate()} as {@code trust}.
 *
 * <p>For development and tests: the CA key sits unencrypted next to its certificate. docs/SECURITY.md
 * gives the production steps with {@code openssl}.
 *
 * <p>Thread-safety: thread-safe; two calls of {@link #issue} for the same principal and directory
 * race on its files.
 */
public final class CertificateAuthority {
    /** The file name of the CA certificate: the trust file of nodes and clients. */
    public static final String CERTIFICATE_FILE = "ca.pem";
    /** The file name of the CA's private key (PKCS#8 PEM, readable by its owner only). */
    public static final String KEY_FILE = "ca-key.pem";

    private static final String SIGNATURE_ALGORITHM = "SHA256withECDSA";
    /** How far before now a certificate starts to be valid, for peers whose clocks run a little behind. */
    private static final Duration BACKDATE = Duration.ofMinutes(1);
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path certificateFile;
    private final X509Certificate certificate;
    private final PrivateKey key;

    /**
     * Where {@link #issue} wrote a certificate.
     *
     * @param certificate the PEM chain: the issued certificate, then the CA's
     * @param key the PEM PKCS#8 private key of the issued certificate
     * @param serial the issued certificate's serial number
     * @param notAfter when the issued certificate expires
     */
    public record Issued(Path certificate, Path key, BigInteger serial, Instant notAfter) {
        /** Validates the fields. */
        public Issued {
            requireNonNull(certificate, "certificate");
            requireNonNull(key, "key");
            requireNonNull(serial, "serial");
            requireNonNull(notAfter, "notAfter");
        }
    }

    private CertificateAuthority(Path certificateFile, X509Certificate certificate, PrivateKey key) {
        this.certificateFile = certificateFile;
        this.certificate = certificate;
        this.key = key;
    }

    /**
     * Makes a new CA named {@code name} valid for {@code validity} in {@code directory} (created,
     * readable by its owner only, if missing).
     *
     * @throws CertificateFileException if {@code directory} already holds a CA, or a file cannot be written
     */
    public static CertificateAuthority create(Path directory, String name, Duration validity) {
        requireNonNull(directory, "directory");
        requireNonNull(name, "name");
        positive(validity);
        if (name.isBlank()) {
            throw new IllegalArgumentException("name: '" + name + "' (expected: not blank)");
        }
        Path certificateFile = directory.resolve(CERTIFICATE_FILE);
        Path keyFile = directory.resolve(KEY_FILE);
        for (Path file : List.of(certificateFile, keyFile)) {
            if (Files.exists(file)) {
                throw new CertificateFileException(file, "exists (expected: a directory without a CA; issue from"
                        + " this CA, or delete " + CERTIFICATE_FILE + " and " + KEY_FILE + " to make a new one)", null);
            }
        }
        KeyPair pair = newKeyPair();
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        X500Name subject = commonName(name);
        JcaX509ExtensionUtils extensions = extensionUtils();
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(subject, serial(),
                    Date.from(now.minus(BACKDATE)), Date.from(now.plus(validity)), subject, pair.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            extensions.createSubjectKeyIdentifier(pair.getPublic()));
            X509Certificate certificate = sign(builder, pair.getPrivate());
            PemFiles.createDirectory(directory);
            // The key first: a certificate file always has its key beside it.
            PemFiles.writeKey(keyFile, pair.getPrivate(), false);
            PemFiles.writeCertificates(certificateFile, List.of(certificate), false);
            return new CertificateAuthority(certificateFile, certificate, pair.getPrivate());
        } catch (CertIOException e) {
            throw new IllegalStateException("cannot encode the CA certificate's extensions", e);
        }
    }

    /**
     * The CA kept in {@code directory} by {@link #create}.
     *
     * @throws CertificateFileException if a file is missing or malformed, or the key is not the certificate's
     */
    public static CertificateAuthority load(Path directory) {
        requireNonNull(directory, "directory");
        Path certificateFile = directory.resolve(CERTIFICATE_FILE);
        Path keyFile = directory.resolve(KEY_FILE);
        X509Certificate certificate = PemFiles.readCertificates(certificateFile).get(0);
        if (certificate.getBasicConstraints() < 0) {
            throw new CertificateFileException(certificateFile, "'" + certificate.getSubjectX500Principal()
                    + "' is not a CA certificate (expected: basicConstraints CA:true)", null);
        }
        PrivateKey key = PemFiles.readKey(keyFile);
        if (!belongTogether(key, certificate.getPublicKey())) {
            throw new CertificateFileException(keyFile, "not the key of " + certificateFile
                    + " (expected: the EC private key of the CA certificate)", null);
        }
        return new CertificateAuthority(certificateFile, certificate, key);
    }

    /**
     * Issues a certificate for {@code principal} valid for {@code validity} (at most until the CA
     * expires) and writes {@code <role>-<name>.pem} (the chain) and {@code <role>-<name>-key.pem}
     * into {@code directory} (created, readable by its owner only, if missing), replacing earlier
     * ones: a node that reloads its TLS files picks the new pair up.
     *
     * @throws CertificateFileException if a file cannot be written
     */
    public Issued issue(Principal principal, Path directory, Duration validity) {
        requireNonNull(principal, "principal");
        requireNonNull(directory, "directory");
        positive(validity);
        KeyPair pair = newKeyPair();
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Instant caExpiry = certificate.getNotAfter().toInstant();
        Instant notAfter = now.plus(validity).isAfter(caExpiry) ? caExpiry : now.plus(validity);
        BigInteger serial = serial();
        JcaX509ExtensionUtils extensions = extensionUtils();
        GeneralNames names = new GeneralNames(new GeneralName[] {
            new GeneralName(GeneralName.uniformResourceIdentifier, principal.uri()),
            new GeneralName(GeneralName.dNSName, "localhost"),
            new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
            new GeneralName(GeneralName.iPAddress, "::1")
        });
        X509Certificate issued;
        try {
            X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(certificate, serial,
                    Date.from(now.minus(BACKDATE)), Date.from(notAfter), commonName(principal.name()),
                    pair.getPublic())
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature))
                    .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                            new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}))
                    .addExtension(Extension.subjectAlternativeName, false, names)
                    .addExtension(Extension.subjectKeyIdentifier, false,
                            extensions.createSubjectKeyIdentifier(pair.getPublic()))
                    .addExtension(Extension.authorityKeyIdentifier, false,
                            extensions.createAuthorityKeyIdentifier(certificate.getPublicKey()));
            issued = sign(builder, key);
        } catch (CertIOException e) {
            throw new IllegalStateException("cannot encode the extensions of " + principal + "'s certificate", e);
        }
        String base = principal.role().name().toLowerCase(Locale.ROOT) + "-" + principal.name();
        Path certificateFile = directory.resolve(base + ".pem");
        Path keyFile = directory.resolve(base + "-key.pem");
        PemFiles.createDirectory(directory);
        PemFiles.writeKey(keyFile, pair.getPrivate(), true);
        PemFiles.writeCertificates(certificateFile, List.of(issued, certificate), true);
        return new Issued(certificateFile, keyFile, serial, notAfter);
    }

    /** The CA certificate's file: what nodes and clients name as their {@code trust}. */
    public Path certificate() {
        return certificateFile;
    }

    /** When the CA certificate expires; no certificate it issues outlives it. */
    public Instant notAfter() {
        return certificate.getNotAfter().toInstant();
    }

    @Override
    public String toString() {
        return "CertificateAuthority{" + certificate.getSubjectX500Principal() + ", " + certificateFile + "}";
    }

    private static void positive(Duration validity) {
        requireNonNull(validity, "validity");
        if (validity.isNegative() || validity.isZero()) {
            throw new IllegalArgumentException("validity: " + validity + " (expected: > 0)");
        }
    }

    private static KeyPair newKeyPair() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
            return generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM cannot make EC P-256 keys", e);
        }
    }

    /** A random positive serial number of 128 bits (RFC 5280 allows up to 20 octets). */
    private static BigInteger serial() {
        return new BigInteger(128, RANDOM).setBit(127);
    }

    private static X500Name commonName(String name) {
        return new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.CN, name).build();
    }

    private static JcaX509ExtensionUtils extensionUtils() {
        try {
            return new JcaX509ExtensionUtils();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no SHA-1 for key identifiers", e);
        }
    }

    private static X509Certificate sign(X509v3CertificateBuilder builder, PrivateKey signer) {
        try {
            return new JcaX509CertificateConverter()
                    .getCertificate(builder.build(new JcaContentSignerBuilder(SIGNATURE_ALGORITHM).build(signer)));
        } catch (OperatorCreationException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot sign a certificate with " + SIGNATURE_ALGORITHM, e);
        }
    }

    /** Whether {@code key} is the private half of {@code publicKey}: a signature of one verifies with the other. */
    private static boolean belongTogether(PrivateKey key, PublicKey publicKey) {
        byte[] probe = "neptune certificate authority".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature signature = Signature.getInstance(SIGNATURE_ALGORITHM);
            signature.initSign(key);
            signature.update(probe);
            byte[] signed = signature.sign();
            signature.initVerify(publicKey);
            signature.update(probe);
            return signature.verify(signed);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }
}
