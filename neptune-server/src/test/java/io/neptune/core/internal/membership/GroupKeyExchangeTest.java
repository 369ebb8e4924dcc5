package io.neptune.core.internal.membership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.tls.ReloadingKeyMaterial;
import io.neptune.server.TestCertificates;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import org.jgroups.protocols.ASYM_ENCRYPT;
import org.jgroups.protocols.SSL_KEY_EXCHANGE;
import org.jgroups.stack.Protocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The udp stack's group-key exchange: its protocols, and its session verifier on real TLS
 * handshakes over loopback with certificates of a throwaway authority (here, in neptune-server's
 * tests, because the authority needs BouncyCastle).
 */
class GroupKeyExchangeTest {
    private static final NodeId SELF = NodeId.of("node-1");

    @TempDir
    Path directory;

    private final ExecutorService executor = Executors.newSingleThreadExecutor();

    @AfterEach
    void stopExecutor() throws InterruptedException {
        executor.shutdownNow();
        assertThat(executor.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    private static SSLContext context(SecurityConfig security) {
        return ReloadingKeyMaterial.of(security).sslContext((peer, e) -> { });
    }

    @Test
    void encryptionSitsOnTheKeyExchangeWhichNeedsClientCertificatesAndANodeVerifier() throws Exception {
        TestCertificates ca = TestCertificates.create(directory.resolve("ca"), "cluster");
        List<Protocol> protocols = GroupKeyExchange.protocols(context(ca.node("node-1")),
                new Refusals(SELF, System::nanoTime), InetAddress.getLoopbackAddress(), 45588);

        assertThat(protocols).hasSize(2);
        SSL_KEY_EXCHANGE exchange = (SSL_KEY_EXCHANGE) protocols.get(0);
        assertThat(exchange.getPort()).as("the TCP port after the multicast port").isEqualTo(45589);
        assertThat(exchange.getRequireClientAuthentication()).isTrue();
        assertThat(exchange.getSessionVerifier()).isInstanceOf(GroupKeyExchange.NodeVerifier.class);
        ASYM_ENCRYPT encrypt = (ASYM_ENCRYPT) protocols.get(1);
        assertThat(encrypt.getUseExternalKeyExchange()).isTrue();
        assertThat(encrypt.getChangeKeyOnLeave()).isTrue();
        assertThat(GroupKeyExchange.port(65_535)).as("below the multicast port at the top of the range")
                .isEqualTo(65_524);
    }

    @Test
    void aNodeCertificateIsAccepted() throws Exception {
        TestCertificates ca = TestCertificates.create(directory.resolve("ca"), "cluster");
        Refusals refusals = new Refusals(SELF, System::nanoTime);

        SSLSession session = handshake(context(ca.node("node-1")), context(ca.node("node-2")));
        new GroupKeyExchange.NodeVerifier(refusals).verify(session);

        assertThat(refusals.count(Refusal.NOT_A_NODE)).isZero();
    }

    @Test
    void aTrustedCertificateThatNamesNoNodeIsRefused() throws Exception {
        TestCertificates ca = TestCertificates.create(directory.resolve("ca"), "cluster");
        Refusals refusals = new Refusals(SELF, System::nanoTime);
        SecurityConfig client = ca.required(new Principal(Principal.Role.CLIENT, "app"));

        SSLSession session = handshake(context(ca.node("node-1")), context(client));

        assertThatThrownBy(() -> new GroupKeyExchange.NodeVerifier(refusals).verify(session))
                .isInstanceOf(SecurityException.class).hasMessageStartingWith("NEP-SEC-036 ")
                .hasMessageContaining("neptune://client/app").hasMessageEndingWith("(expected: a node certificate)");
        assertThat(refusals.count(Refusal.NOT_A_NODE)).isEqualTo(1);
    }

    /** A TLS handshake over loopback with client authentication: the server's session. */
    private SSLSession handshake(SSLContext server, SSLContext client) throws Exception {
        try (SSLServerSocket listener = (SSLServerSocket) server.getServerSocketFactory().createServerSocket(0, 1,
                InetAddress.getLoopbackAddress())) {
            listener.setNeedClientAuth(true);
            Future<SSLSession> accepted = executor.submit(() -> {
                try (SSLSocket socket = (SSLSocket) listener.accept()) {
                    socket.setSoTimeout(10_000);
                    socket.startHandshake();
                    SSLSession session = socket.getSession();
                    socket.getOutputStream().write(1); // the client's read completes its handshake
                    socket.getOutputStream().flush();
                    return session;
                }
            });
            try (SSLSocket socket = (SSLSocket) client.getSocketFactory().createSocket(InetAddress.getLoopbackAddress(),
                    listener.getLocalPort())) {
                socket.setSoTimeout(10_000);
                socket.startHandshake();
                assertThat(socket.getInputStream().read()).isEqualTo(1);
            }
            return accepted.get(10, TimeUnit.SECONDS);
        }
    }
}
