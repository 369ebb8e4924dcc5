package io.neptune.server.internal.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.Principal;
import io.neptune.core.Principal.Role;
import io.neptune.core.SecurityConfig;
import io.neptune.core.SecurityConfig.TlsMode;
import io.neptune.core.SecurityConfig.TlsProvider;
import io.neptune.core.internal.tls.TlsContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The development CA: what its certificates hold, that the JDK and Netty read its PEM files, and
 * that a real TLS handshake between two of its certificates gives each side the other's principal.
 */
class CertificateAuthorityTest {
    private static final Principal NODE = new Principal(Role.NODE, "node-1");
    private static final Principal OPERATOR = new Principal(Role.OPERATOR, "alice");

    @TempDir
    Path dir;

    private final LoopbackTls tls = new LoopbackTls();

    @AfterEach
    void close() {
        tls.close();
    }

    @Test
    void aNewCaIsASelfSignedCaCertificateAndAnOwnerOnlyKey() throws Exception {
        Path caDir = dir.resolve("ca");
        CertificateAuthority ca = CertificateAuthority.create(caDir, "Neptune dev CA", Duration.ofDays(365));

        assertThat(ca.certificate()).isEqualTo(caDir.resolve("ca.pem"));
        X509Certificate cert = read(ca.certificate()).get(0);
        cert.verify(cert.getPublicKey());
        assertThat(cert.getSubjectX500Principal().getName()).isEqualTo("CN=Neptune dev CA");
        assertThat(cert.getBasicConstraints()).isGreaterThanOrEqualTo(0);
        assertThat(cert.getKeyUsage()[5]).as("keyCertSign").isTrue();
        assertThat(cert.getKeyUsage()[6]).as("cRLSign").isTrue();
        assertThat(cert.getCriticalExtensionOIDs()).contains("2.5.29.19", "2.5.29.15");
        assertThat(cert.getNonCriticalExtensionOIDs()).contains("2.5.29.14"); // subject key identifier
        assertThat(cert.getPublicKey().getAlgorithm()).isEqualTo("EC");
        assertThat(cert.getNotAfter().toInstant())
                .isBetween(Instant.now().plus(Duration.ofDays(364)), Instant.now().plus(Duration.ofDays(366)));
        assertThat(Files.readString(caDir.resolve("ca-key.pem"))).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(caDir.resolve("ca-key.pem"))))
                .isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(caDir))).isEqualTo("rwx------");
    }

    @Test
    void anIssuedCertificateCarriesThePrincipalAndIsSignedByTheCa() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(dir, "dev", Duration.ofDays(365));
        Instant before = Instant.now();

        CertificateAuthority.Issued issued = ca.issue(NODE, dir.resolve("out"), Duration.ofDays(90));

        assertThat(issued.certificate()).isEqualTo(dir.resolve("out/node-node-1.pem"));
        assertThat(issued.key()).isEqualTo(dir.resolve("out/node-node-1-key.pem"));
        List<X509Certificate> chain = read(issued.certificate());
        X509Certificate caCert = read(ca.certificate()).get(0);
        assertThat(chain).hasSize(2);
        assertThat(chain.get(1)).isEqualTo(caCert);
        X509Certificate leaf = chain.get(0);
        leaf.verify(caCert.getPublicKey());
        assertThat(TlsContext.principal(leaf)).contains(NODE);
        assertThat(leaf.getSubjectX500Principal().getName()).isEqualTo("CN=node-1");
        assertThat(leaf.getIssuerX500Principal()).isEqualTo(caCert.getSubjectX500Principal());
        assertThat(leaf.getSerialNumber()).isEqualTo(issued.serial());
        assertThat(issued.serial().signum()).isPositive();
        assertThat(issued.serial().bitLength()).isEqualTo(128);
        assertThat(leaf.getSubjectAlternativeNames()).containsExactlyInAnyOrder(
                List.of(6, "neptune://node/node-1"), List.of(2, "localhost"), List.of(7, "127.0.0.1"),
                List.of(7, "0:0:0:0:0:0:0:1"));
        assertThat(leaf.getKeyUsage()[0]).as("digitalSignature").isTrue();
        assertThat(leaf.getCriticalExtensionOIDs()).contains("2.5.29.15");
        assertThat(leaf.getExtendedKeyUsage()).containsExactly("1.3.6.1.5.5.7.3.1", "1.3.6.1.5.5.7.3.2");
        assertThat(leaf.getNonCriticalExtensionOIDs()).contains("2.5.29.35"); // authority key identifier
        assertThat(leaf.getBasicConstraints()).isEqualTo(-1);
        assertThat(leaf.getNotBefore().toInstant()).isBefore(before.minusSeconds(59));
        assertThat(leaf.getNotAfter().toInstant()).isEqualTo(issued.notAfter())
                .isBetween(before.plus(Duration.ofDays(90)).minusSeconds(1), Instant.now().plus(Duration.ofDays(90)));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(issued.key()))).isEqualTo("rw-------");

        CertificateAuthority.Issued operator = ca.issue(OPERATOR, dir.resolve("out"), Duration.ofDays(90));
        assertThat(operator.certificate().getFileName()).hasToString("operator-alice.pem");
        assertThat(TlsContext.principal(read(operator.certificate()).get(0))).contains(OPERATOR);
        assertThat(operator.serial()).isNotEqualTo(issued.serial());
    }

    @Test
    void noIssuedCertificateOutlivesItsCa() {
        CertificateAuthority ca = CertificateAuthority.create(dir, "dev", Duration.ofDays(30));

        CertificateAuthority.Issued issued = ca.issue(NODE, dir, Duration.ofDays(90));

        assertThat(issued.notAfter()).isEqualTo(ca.notAfter());
    }

    @Test
    void aLoadedCaIssuesCertificatesTheOriginalCertificateVerifies() throws Exception {
        CertificateAuthority created = CertificateAuthority.create(dir, "dev", Duration.ofDays(365));

        CertificateAuthority loaded = CertificateAuthority.load(dir);
        CertificateAuthority.Issued issued = loaded.issue(new Principal(Role.CLIENT, "shop"), dir, Duration.ofDays(1));

        assertThat(loaded.certificate()).isEqualTo(created.certificate());
        read(issued.certificate()).get(0).verify(read(created.certificate()).get(0).getPublicKey());
    }

    @Test
    void issuingAgainReplacesTheFilesWithANewKeyAndSerial() throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(dir, "dev", Duration.ofDays(365));
        CertificateAuthority.Issued first = ca.issue(NODE, dir, Duration.ofDays(1));
        String firstKey = Files.readString(first.key());

        CertificateAuthority.Issued second = ca.issue(NODE, dir, Duration.ofDays(1));

        assertThat(second.certificate()).isEqualTo(first.certificate());
        assertThat(read(second.certificate()).get(0).getSerialNumber()).isEqualTo(second.serial())
                .isNotEqualTo(first.serial());
        assertThat(Files.readString(second.key())).isNotEqualTo(firstKey);
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(second.key()))).isEqualTo("rw-------");
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .containsExactlyInAnyOrder("ca.pem", "ca-key.pem", "node-node-1.pem", "node-node-1-key.pem");
        }
    }

    @Test
    void createRefusesToOverwriteACaAndNamesTheFile() throws Exception {
        CertificateAuthority.create(dir, "dev", Duration.ofDays(365));
        String before = Files.readString(dir.resolve("ca.pem"));

        assertThatThrownBy(() -> CertificateAuthority.create(dir, "other", Duration.ofDays(365)))
                .isInstanceOf(CertificateFileException.class)
                .hasMessageContaining(dir.resolve("ca.pem").toString())
                .hasMessageContaining("exists");
        assertThat(Files.readString(dir.resolve("ca.pem"))).isEqualTo(before);
    }

    @Test
    void loadNamesTheFileThatIsMissingOrMalformed() throws Exception {
        assertThatThrownBy(() -> CertificateAuthority.load(dir))
                .isInstanceOf(CertificateFileException.class)
                .hasMessageStartingWith(dir.resolve("ca.pem") + ": missing");

        CertificateAuthority.create(dir, "dev", Duration.ofDays(365));
        Files.writeString(dir.resolve("ca-key.pem"),
                "-----BEGIN PRIVATE KEY-----\nnot base64!\n-----END PRIVATE KEY-----\n");
        assertThatThrownBy(() -> CertificateAuthority.load(dir))
                .isInstanceOf(CertificateFileException.class)
                .hasMessageStartingWith(dir.resolve("ca-key.pem") + ": ");

        Files.writeString(dir.resolve("ca.pem"), "hello");
        assertThatThrownBy(() -> CertificateAuthority.load(dir))
                .isInstanceOf(CertificateFileException.class)
                .hasMessageStartingWith(dir.resolve("ca.pem") + ": no certificate");
    }

    @Test
    void loadRefusesAKeyThatIsNotTheCertificates() throws Exception {
        CertificateAuthority.create(dir.resolve("a"), "a", Duration.ofDays(365));
        CertificateAuthority.create(dir.resolve("b"), "b", Duration.ofDays(365));
        Files.copy(dir.resolve("b/ca-key.pem"), dir.resolve("a/ca-key.pem"), StandardCopyOption.REPLACE_EXISTING);

        assertThatThrownBy(() -> CertificateAuthority.load(dir.resolve("a")))
                .isInstanceOf(CertificateFileException.class)
                .hasMessageContaining("not the key of");
    }

    /** Each side's TLS provider: OpenSSL and the JDK's speak to each other as to themselves. */
    @ParameterizedTest(name = "server {0}, client {1}")
    @CsvSource({"JDK, JDK", "OPENSSL, OPENSSL", "OPENSSL, JDK", "JDK, OPENSSL"})
    void aTlsHandshakeBetweenTwoIssuedCertificatesGivesEachSideTheOthersPrincipal(TlsProvider serverProvider,
            TlsProvider clientProvider) throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(dir.resolve("ca"), "dev", Duration.ofDays(365));
        SecurityConfig node = config(ca.issue(NODE, dir, Duration.ofDays(1)), ca.certificate(), serverProvider);
        SecurityConfig operator = config(ca.issue(OPERATOR, dir, Duration.ofDays(1)), ca.certificate(),
                clientProvider);

        LoopbackTls.Handshake handshake = tls.handshake(node, operator);

        assertThat(handshake.server().handshakeFuture().isSuccess()).as("server handshake").isTrue();
        assertThat(handshake.client().handshakeFuture().isSuccess()).as("client handshake").isTrue();
        assertThat(TlsContext.peer(handshake.server())).contains(OPERATOR);
        assertThat(TlsContext.peer(handshake.client())).contains(NODE);
        assertThat(handshake.server().engine() instanceof ReferenceCountedOpenSslEngine).as("the server runs OpenSSL")
                .isEqualTo(serverProvider == TlsProvider.OPENSSL);
        assertThat(handshake.client().engine() instanceof ReferenceCountedOpenSslEngine).as("the client runs OpenSSL")
                .isEqualTo(clientProvider == TlsProvider.OPENSSL);
    }

    @Test
    void theDefaultProviderIsOpenSslWhereItLoads() {
        assertThat(OpenSsl.isAvailable()).as("netty-tcnative-boringssl-static loads on this platform (%s)",
                OpenSsl.unavailabilityCause()).isTrue();
        assertThat(SecurityConfig.builder().build().provider()).isEqualTo(TlsProvider.AUTO);
    }

    @ParameterizedTest(name = "server {0}")
    @EnumSource(value = TlsProvider.class, names = {"JDK", "OPENSSL"})
    void aServerRefusesAClientWhoseCertificateAnotherCaIssued(TlsProvider provider) throws Exception {
        CertificateAuthority ca = CertificateAuthority.create(dir.resolve("ca"), "dev", Duration.ofDays(365));
        CertificateAuthority other = CertificateAuthority.create(dir.resolve("other"), "dev", Duration.ofDays(365));
        SecurityConfig node = config(ca.issue(NODE, dir.resolve("ours"), Duration.ofDays(1)), ca.certificate(),
                provider);
        // The stranger trusts our CA, so only the server's check of the client's certificate can refuse it.
        SecurityConfig stranger = config(other.issue(OPERATOR, dir.resolve("theirs"), Duration.ofDays(1)),
                ca.certificate(), TlsProvider.JDK);

        LoopbackTls.Handshake handshake = tls.handshake(node, stranger);

        assertThat(handshake.server().handshakeFuture().isSuccess()).as("server handshake").isFalse();
        assertThat(TlsContext.peer(handshake.server())).isEqualTo(Optional.empty());
    }

    private static SecurityConfig config(CertificateAuthority.Issued issued, Path trust, TlsProvider provider) {
        return SecurityConfig.builder().tls(TlsMode.REQUIRED).identity(issued.certificate(), issued.key()).trust(trust)
                .provider(provider).build();
    }

    @SuppressWarnings("unchecked")
    private static List<X509Certificate> read(Path pem) throws Exception {
        try (InputStream in = Files.newInputStream(pem)) {
            return List.copyOf((java.util.Collection<X509Certificate>) CertificateFactory.getInstance("X.509")
                    .generateCertificates(in));
        }
    }
}
