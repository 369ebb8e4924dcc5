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
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
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
 * No provider beyond the JDK's is needed. Immutable.
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
    private static final String ALIAS = "neptune";
    private static final char[] NO_PASSWORD = new char[0];

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
     * Reads the three files.
     *
     * @throws ConfigException naming {@code security.certificate}, {@code security.key} or
     *     {@code security.trust} if a file cannot be read or does not hold what it should
     */
    public static PemKeyMaterial read(Path certificate, Path key, Path trust) {
        List<X509Certificate> chain = certificates("security.certificate", certificate);
        List<X509Certificate> authorities = certificates("security.trust", trust);
        PrivateKey privateKey = privateKey(key, chain.get(0));
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
