package io.neptune.core.internal.tls;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConfigException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.NoSuchAlgorithmException;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * The PEM files of a {@code SecurityConfig} read into JDK types: the holder's certificate chain, its
 * PKCS#8 private key (EC, RSA or EdDSA: the algorithm of the certificate's public key), and the
 * authorities it trusts, with the key and trust managers of the JDK's TLS built from them (PKIX).
 * The key must be the certificate's ({@code NEP-SEC-003}): files caught between the renames that
 * replace them do not load. No provider beyond the JDK's is needed. Immutable.
 *
 * @param chain the holder's certificate first, then the certificates that issued it, as the file lists them
 * @param key the private key of {@code chain.get(0)}
 * @param authorities the trusted certificates
 * @param keyManager presents {@code chain} and signs with {@code key} in TLS handshakes
 * @param trustManager accepts the chains that lead to one of {@code authorities}
 */
public record PemKeyMaterial(List<X509Certificate> chain, PrivateKey key, List<X509Certificate> authorities,
        X509ExtendedKeyManager keyManager, X509ExtendedTrustManager trustManager) {

    private static final Pattern PRIVATE_KEY = Pattern.compile(
            "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    /** The alias of the holder's key and chain in {@link #keyManager()}. */
    static final String ALIAS = "neptune";
    private static final char[] NO_PASSWORD = new char[0];
    private static final byte[] PROBE = "neptune: is this the certificate's key".getBytes(StandardCharsets.US_ASCII);

    /** Validates the fields. */
    public PemKeyMaterial {
        chain = List.copyOf(chain);
        if (chain.isEmpty()) {
            throw new IllegalArgumentException("chain: empty (expected: at least the holder's certificate)");
        }
        requireNonNull(key, "key");
        authorities = List.copyOf(authorities);
        requireNonNull(keyManager, "keyManager");
        requireNonNull(trustManager, "trustManager");
    }

    /** The holder's own certificate, the first of {@link #chain()}. */
    public X509Certificate certificate() {
        return chain.get(0);
    }

    /**
     * The holder's certificate as logs name it: its serial in hexadecimal (as {@code openssl x509
     * -serial} and {@code ./neptune certs issue} print it) and its issuer.
     */
    public String summary() {
        return "serial " + certificate().getSerialNumber().toString(16).toUpperCase(Locale.ROOT) + " of '"
                + certificate().getIssuerX500Principal().getName() + "'";
    }

    /**
     * Reads the three files.
     *
     * @throws ConfigException naming {@code security.certificate}, {@code security.key} or
     *     {@code security.trust} if a file cannot be read or does not hold what it should, or
     *     {@code security.key} if the key is not the certificate's
     */
    public static PemKeyMaterial read(Path certificate, Path key, Path trust) {
        List<X509Certificate> chain = certificates("security.certificate", certificate);
        List<X509Certificate> authorities = certificates("security.trust", trust);
        PrivateKey privateKey = privateKey(key, chain.get(0));
        requireKeyOf(chain.get(0), privateKey, certificate, key);
        try {
            KeyStore keys = KeyStore.getInstance("PKCS12");
            keys.load(null, null);
            keys.setKeyEntry(ALIAS, privateKey, NO_PASSWORD, chain.toArray(new Certificate[0]));
            KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            keyManagers.init(keys, NO_PASSWORD);
            KeyStore trusted = KeyStore.getInstance("PKCS12");
            trusted.load(null, null);
            for (int i = 0; i < authorities.size(); i++) {
                trusted.setCertificateEntry("authority-" + i, authorities.get(i));
            }
            TrustManagerFactory trustManagers = TrustManagerFactory.getInstance("PKIX");
            trustManagers.init(trusted);
            return new PemKeyMaterial(chain, privateKey, authorities, only(keyManagers.getKeyManagers()),
                    only(trustManagers.getTrustManagers()));
        } catch (GeneralSecurityException | IOException e) {
            throw new ConfigException("security", "cannot build key and trust stores from '" + certificate + "', '"
                    + key + "' and '" + trust + "': " + e);
        }
    }

    /** The three files by the config keys that name them, in the order certificate, key, trust. */
    static Map<String, Path> files(Path certificate, Path key, Path trust) {
        Map<String, Path> files = new LinkedHashMap<>();
        files.put("security.certificate", certificate);
        files.put("security.key", key);
        files.put("security.trust", trust);
        return files;
    }

    private static X509ExtendedKeyManager only(KeyManager[] managers) {
        for (KeyManager manager : managers) {
            if (manager instanceof X509ExtendedKeyManager x509) {
                return x509;
            }
        }
        throw new IllegalStateException("the JDK's KeyManagerFactory made no X509ExtendedKeyManager");
    }

    private static X509ExtendedTrustManager only(TrustManager[] managers) {
        for (TrustManager manager : managers) {
            if (manager instanceof X509ExtendedTrustManager x509) {
                return x509;
            }
        }
        throw new IllegalStateException("the JDK's TrustManagerFactory made no X509ExtendedTrustManager");
    }

    private static List<X509Certificate> certificates(String key, Path file) {
        byte[] bytes = readAll(key, file);
        List<X509Certificate> certificates = new ArrayList<>();
        try (InputStream in = new ByteArrayInputStream(bytes)) {
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                certificates.add((X509Certificate) c);
            }
        } catch (GeneralSecurityException | IOException | ClassCastException e) {
            throw new ConfigException(key, "'" + file + "' holds no readable certificate (expected: PEM"
                    + " certificates): " + e.getMessage());
        }
        if (certificates.isEmpty()) {
            throw new ConfigException(key, "'" + file + "' holds no certificate (expected: PEM certificates)");
        }
        return certificates;
    }

    private static PrivateKey privateKey(Path file, X509Certificate certificate) {
        String text = new String(readAll("security.key", file), StandardCharsets.US_ASCII);
        Matcher pem = PRIVATE_KEY.matcher(text);
        if (!pem.find()) {
            throw new ConfigException("security.key", "'" + file + "' holds no PKCS#8 key (expected: a PEM block"
                    + " -----BEGIN PRIVATE KEY-----; convert others with openssl pkcs8 -topk8 -nocrypt)");
        }
        String algorithm = certificate.getPublicKey().getAlgorithm();
        try {
            byte[] der = Base64.getMimeDecoder().decode(pem.group(1));
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new ConfigException("security.key", "'" + file + "' holds no " + algorithm + " key (expected: the"
                    + " PKCS#8 private key of the certificate's " + algorithm + " public key): " + e.getMessage());
        }
    }

    /**
     * Throws {@code NEP-SEC-003} unless {@code key} is the private key of {@code certificate}: a
     * signature made with the one verifies with the other. Keys of an algorithm
     * {@link #signatureAlgorithm} does not know are not checked (the TLS handshake tells).
     */
    private static void requireKeyOf(X509Certificate certificate, PrivateKey key, Path certificateFile, Path keyFile) {
        Signature signature;
        try {
            signature = Signature.getInstance(signatureAlgorithm(key.getAlgorithm()));
        } catch (NoSuchAlgorithmException e) {
            return;
        }
        try {
            signature.initSign(key);
            signature.update(PROBE);
            byte[] signed = signature.sign();
            signature.initVerify(certificate.getPublicKey());
            signature.update(PROBE);
            if (signature.verify(signed)) {
                return;
            }
        } catch (GeneralSecurityException e) {
            // a key the certificate's public key cannot verify: not its key either
        }
        throw new ConfigException("security.key", "NEP-SEC-003 '" + keyFile + "' is not the private key of the"
                + " certificate in '" + certificateFile + "' (expected: the key that certificate was issued for; when"
                + " both files are replaced, the new pair is taken once both are in place)");
    }

    /**
     * The signature algorithm for a key of {@code keyAlgorithm}: SHA-256 with ECDSA or RSA, or EdDSA.
     *
     * @throws NoSuchAlgorithmException for other key algorithms
     */
    public static String signatureAlgorithm(String keyAlgorithm) throws NoSuchAlgorithmException {
        return switch (keyAlgorithm) {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
            default -> throw new NoSuchAlgorithmException("key algorithm: " + keyAlgorithm
                    + " (expected: EC, RSA or EdDSA)");
        };
    }

    private static byte[] readAll(String key, Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new ConfigException(key, "'" + file + "' cannot be read (" + e.getClass().getSimpleName() + ": "
                    + e.getMessage() + ")");
        }
    }

    @Override
    public String toString() {
        return "PemKeyMaterial[" + certificate().getSubjectX500Principal() + ", " + authorities.size()
                + " authorities]";
    }
}
