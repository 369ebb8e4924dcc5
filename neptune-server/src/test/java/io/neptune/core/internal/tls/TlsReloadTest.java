package io.neptune.core.internal.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.ConfigException;
import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.core.SecurityConfig.TlsMode;
import io.neptune.server.internal.security.CertificateAuthority;
import io.neptune.server.internal.security.CertificateAuthority.Issued;
import io.netty.handler.ssl.SslContext;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.X509ExtendedKeyManager;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reloading a node's TLS files while an operator replaces them one at a time, on a fake clock:
 * the certificate and key never arrive at the same instant (two renames), and nothing may ever use
 * one without the other. Here, in neptune-server's tests, because the authority needs BouncyCastle.
 */
class TlsReloadTest {
    private static final Duration VALIDITY = Duration.ofDays(2);
    private static final Principal NODE = Principal.node(NodeId.of("node-1"));
    /** Past the once-a-second look at the files. */
    private static final long LATER = TimeUnit.MILLISECONDS.toNanos(1_500);

    @TempDir
    Path directory;

    private final AtomicLong nanos = new AtomicLong();
    private CertificateAuthority authority;
    private Issued live;
    private SecurityConfig config;

    @BeforeEach
    void issue() {
        authority = CertificateAuthority.create(directory.resolve("ca"), "cluster", VALIDITY);
        live = authority.issue(NODE, directory.resolve("live"), VALIDITY);
        config = SecurityConfig.builder().tls(TlsMode.REQUIRED).identity(live.certificate(), live.key())
                .trust(authority.certificate()).build();
    }

    @Test
    void keyMaterialKeepsTheLoadedPairWhileOnlyTheNewKeyIsInPlace() throws Exception {
        ReloadingKeyMaterial material = ReloadingKeyMaterial.of(config, nanos::get);
        Issued next = authority.issue(NODE, directory.resolve("staged"), VALIDITY);

        replace(next.key(), live.key());
        nanos.addAndGet(LATER);
        assertPair(material.current(), live.serial());

        replace(next.certificate(), live.certificate());
        nanos.addAndGet(LATER);
        assertPair(material.current(), next.serial());
    }

    @Test
    void keyMaterialKeepsTheLoadedPairWhileOnlyTheNewCertificateIsInPlace() throws Exception {
        ReloadingKeyMaterial material = ReloadingKeyMaterial.of(config, nanos::get);
        Issued next = authority.issue(NODE, directory.resolve("staged"), VALIDITY);

        replace(next.certificate(), live.certificate());
        nanos.addAndGet(LATER);
        assertPair(material.current(), live.serial());

        replace(next.key(), live.key());
        nanos.addAndGet(LATER);
        assertPair(material.current(), next.serial());
    }

    @Test
    void aHandshakeThatSpansAReloadGetsTheChainAndKeyOfOnePair() throws Exception {
        ReloadingKeyMaterial material = ReloadingKeyMaterial.of(config, nanos::get);
        X509ExtendedKeyManager keys = material.keyManager();
        String alias = keys.chooseEngineServerAlias("EC", null, null);
        PrivateKey key = keys.getPrivateKey(alias); // the JDK asks for the key first, then the chain

        Issued next = authority.issue(NODE, directory.resolve("staged"), VALIDITY);
        replace(next.key(), live.key());
        replace(next.certificate(), live.certificate());
        nanos.addAndGet(LATER);
        X509Certificate[] chain = keys.getCertificateChain(alias);

        assertThat(belongTogether(key, chain[0].getPublicKey())).as("the key of the chain presented").isTrue();
        assertThat(material.current().certificate().getSerialNumber()).as("later handshakes").isEqualTo(next.serial());
    }

    @Test
    void theRequestPortKeepsItsContextWhileOnlyTheNewKeyIsInPlace() throws Exception {
        TlsContext tls = TlsContext.server(config, nanos::get);
        SslContext loaded = tls.current();
        Issued next = authority.issue(NODE, directory.resolve("staged"), VALIDITY);

        replace(next.key(), live.key());
        nanos.addAndGet(LATER);
        assertThat(tls.current()).as("the context of the old pair").isSameAs(loaded);

        replace(next.certificate(), live.certificate());
        nanos.addAndGet(LATER);
        assertThat(tls.current()).as("a context of the new pair").isNotSameAs(loaded);
    }

    @Test
    void theRequestPortKeepsItsContextWhileOnlyTheNewCertificateIsInPlace() throws Exception {
        TlsContext tls = TlsContext.server(config, nanos::get);
        SslContext loaded = tls.current();
        Issued next = authority.issue(NODE, directory.resolve("staged"), VALIDITY);

        replace(next.certificate(), live.certificate());
        nanos.addAndGet(LATER);
        assertThat(tls.current()).as("the context of the old pair").isSameAs(loaded);

        replace(next.key(), live.key());
        nanos.addAndGet(LATER);
        assertThat(tls.current()).as("a context of the new pair").isNotSameAs(loaded);
    }

    @Test
    void membershipPresentsItsCertificateWhicheverAuthoritiesThePeerAccepts() {
        CertificateAuthority successor = CertificateAuthority.create(directory.resolve("successor"), "successor",
                VALIDITY);
        X509ExtendedKeyManager keys = ReloadingKeyMaterial.of(config, nanos::get).keyManager();
        java.security.Principal[] onlyTheSuccessor = {
            PemKeyMaterial.read(live.certificate(), live.key(), successor.certificate()).authorities().get(0)
                    .getSubjectX500Principal()
        };

        String alias = keys.chooseEngineClientAlias(new String[] {"EC"}, onlyTheSuccessor, null);

        assertThat(alias).as("a certificate presented, for the peer to refuse by name").isNotNull();
        assertThat(keys.getCertificateChain(alias)[0].getSerialNumber()).isEqualTo(live.serial());
    }

    @Test
    void aKeyThatIsNotTheCertificatesIsRefusedAtStart() {
        Issued other = authority.issue(NODE, directory.resolve("other"), VALIDITY);
        SecurityConfig mismatched = config.toBuilder().identity(live.certificate(), other.key()).build();

        assertThatThrownBy(() -> TlsContext.server(mismatched)).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("security.key: NEP-SEC-003 '" + other.key() + "' is not the private key of the"
                        + " certificate in '" + live.certificate() + "'");
        assertThatThrownBy(() -> ReloadingKeyMaterial.of(mismatched)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("NEP-SEC-003");
    }

    /** What an operator does with one file: a rename over the one in use. */
    private static void replace(Path staged, Path inUse) throws Exception {
        Files.move(staged, inUse, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void assertPair(PemKeyMaterial material, BigInteger serial) throws GeneralSecurityException {
        assertThat(material.certificate().getSerialNumber()).as("the serial presented").isEqualTo(serial);
        assertThat(belongTogether(material.key(), material.certificate().getPublicKey()))
                .as("the key is the certificate's").isTrue();
    }

    private static boolean belongTogether(PrivateKey key, PublicKey publicKey) throws GeneralSecurityException {
        byte[] probe = "probe".getBytes(StandardCharsets.US_ASCII);
        Signature signature = Signature.getInstance("SHA256withECDSA");
        signature.initSign(key);
        signature.update(probe);
        byte[] signed = signature.sign();
        signature.initVerify(publicKey);
        signature.update(probe);
        return signature.verify(signed);
    }
}
