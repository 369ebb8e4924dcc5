package io.neptune.core.internal.membership;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.core.SecurityConfig.TlsMode;
import io.neptune.core.internal.tls.ReloadingKeyMaterial;
import io.neptune.core.internal.tls.TlsContext;
import io.neptune.server.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.jgroups.util.SocketFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The JGroups sockets of TLS {@code permissive} with real sockets on 127.0.0.1 and certificates of
 * a throwaway authority (here, in neptune-server's tests, because the authority needs
 * BouncyCastle): one port takes TLS and plaintext peers, and a connection falls back to plaintext
 * only for a peer that closes the TLS handshake without a byte, as a plaintext JGroups peer does.
 */
class PermissiveSocketFactoryTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final byte[] COOKIE = {'b', 'e', 'l', 'a'};
    private static final int TIMEOUT_MILLIS = (int) Duration.ofSeconds(10).toMillis();

    @TempDir
    Path directory;

    private TestCertificates authority;
    private final ExecutorService peers = Executors.newCachedThreadPool();
    private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

    @BeforeEach
    void createAuthority() {
        authority = TestCertificates.create(directory.resolve("ca"), "cluster");
    }

    @AfterEach
    void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        peers.shutdownNow();
        assertThat(peers.awaitTermination(10, TimeUnit.SECONDS)).as("peer threads stopped").isTrue();
    }

    @Test
    void aPlaintextPeerIsServedWithItsFirstByteReadAgain() throws Exception {
        ServerSocket listening = listen(security(TlsMode.PERMISSIVE, "node-1").socketFactory());
        try (Socket peer = new Socket(LOOPBACK, listening.getLocalPort())) {
            peer.getOutputStream().write("bela and the rest".getBytes(US_ASCII));

            try (Socket accepted = listening.accept()) {
                accepted.setSoTimeout(TIMEOUT_MILLIS);
                assertThat(accepted).isNotInstanceOf(SSLSocket.class);
                assertThat(new String(accepted.getInputStream().readNBytes(17), US_ASCII)).isEqualTo("bela and the rest");
            }
        }
    }

    @Test
    void permissiveAndRequiredNodesTalkTlsToAPermissiveOneWithTheirCertificates() throws Exception {
        ServerSocket listening = listen(security(TlsMode.PERMISSIVE, "node-1").socketFactory());

        assertThat(exchange(listening, security(TlsMode.PERMISSIVE, "node-2").socketFactory()))
                .isEqualTo("hello from neptune://node/node-2");
        assertThat(exchange(listening, security(TlsMode.REQUIRED, "node-3").socketFactory()))
                .isEqualTo("hello from neptune://node/node-3");
    }

    @Test
    void aPermissiveNodeTalksTlsToARequiredOne() throws Exception {
        ServerSocket listening = listen(security(TlsMode.REQUIRED, "node-1").socketFactory());

        assertThat(exchange(listening, security(TlsMode.PERMISSIVE, "node-2").socketFactory()))
                .isEqualTo("hello from neptune://node/node-2");
    }

    @Test
    void aTlsPeerWithoutATrustedCertificateIsRefusedCountedAndNeverTakenForAPlaintextOne() throws Exception {
        TestCertificates foreign = TestCertificates.create(directory.resolve("foreign-ca"), "foreign");
        MembershipSecurity stranger = MembershipSecurity.of(NodeId.of("node-9"), MembershipConfig.defaults(),
                new CertificateFiles(foreign, "node-9").config()).orElseThrow();
        ServerSocket listening = listen(stranger.socketFactory());
        peers.submit(() -> {
            while (!listening.isClosed()) {
                Socket accepted = listening.accept();
                resources.add(accepted);
                accepted.setSoTimeout(TIMEOUT_MILLIS);
                try {
                    accepted.getInputStream().read();
                } catch (IOException expected) {
                    // the client gives the handshake up: it does not trust this certificate
                }
            }
            return null;
        });
        MembershipSecurity node = security(TlsMode.PERMISSIVE, "node-2");
        SocketFactory factory = node.socketFactory();

        for (int attempt = 1; attempt <= 2; attempt++) {
            try (Socket client = factory.createSocket("jgroups.tcp.sock")) {
                // a plaintext connection would open without a word; each attempt is a TLS handshake, and fails
                assertThatThrownBy(() -> client.connect(listening.getLocalSocketAddress(), TIMEOUT_MILLIS))
                        .as("attempt %d", attempt).isInstanceOf(SSLHandshakeException.class);
            }
        }
        assertThat(node.refusals().count(Refusal.UNTRUSTED_PEER)).as("refusals counted").isEqualTo(2);
    }

    @Test
    void aSilentPeerHoldsTheAcceptLoopOnlyUntilThePeekTimeout() throws Exception {
        ServerSocket listening = listen(security(TlsMode.PERMISSIVE, "node-1").socketFactory());
        try (Socket silent = new Socket(LOOPBACK, listening.getLocalPort());
                Socket talking = new Socket(LOOPBACK, listening.getLocalPort())) {
            talking.getOutputStream().write(COOKIE);

            long start = System.nanoTime();
            try (Socket accepted = listening.accept()) {
                assertThat(accepted.getPort()).as("the talking peer's connection").isEqualTo(talking.getLocalPort());
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
            silent.setSoTimeout(TIMEOUT_MILLIS);
            assertThat(readOrReset(silent.getInputStream())).as("the silent peer closed").isEqualTo(-1);
        }
    }

    @Test
    void aPlaintextPeerThatClosesTheTlsHandshakeIsReachedInPlaintextWithTheSameOptions() throws Exception {
        List<Integer> firstBytes = new CopyOnWriteArrayList<>();
        ServerSocket plaintextNode = plaintextJGroupsPeer(firstBytes);
        InetSocketAddress address = (InetSocketAddress) plaintextNode.getLocalSocketAddress();
        PlaintextPeers plaintext = new PlaintextPeers(System::nanoTime);

        PermissiveClientSocket first = client(new CertificateFiles(authority, "node-2").config(), plaintext);
        first.setTcpNoDelay(true);
        first.setSoTimeout(TIMEOUT_MILLIS);
        first.bind(new InetSocketAddress(LOOPBACK, 0));
        first.connect(address, TIMEOUT_MILLIS);

        assertThat(first.isTls()).isFalse();
        assertThat(first.getTcpNoDelay()).isTrue();
        assertThat(first.getSoTimeout()).isEqualTo(TIMEOUT_MILLIS);
        assertThat(talk(first)).isEqualTo("ok");
        assertThat(plaintext.contains(address)).as("remembered as plaintext").isTrue();

        PermissiveClientSocket second = client(new CertificateFiles(authority, "node-2").config(), plaintext);
        second.connect(address, TIMEOUT_MILLIS);
        assertThat(talk(second)).isEqualTo("ok");
        assertThat(firstBytes).as("first bytes: a ClientHello, then two cookies")
                .containsExactly(PermissiveServerSocket.TLS_HANDSHAKE_RECORD, (int) 'b', (int) 'b');
    }

    @Test
    void aPeerRememberedAsPlaintextIsForgottenWhenItRefusesAPlaintextConnection() throws Exception {
        ServerSocket required = listen(security(TlsMode.REQUIRED, "node-1").socketFactory());
        peers.submit(() -> {
            try (Socket accepted = required.accept()) {
                return accepted.getInputStream().read(); // the handshake fails on the cookie
            }
        });
        InetSocketAddress address = (InetSocketAddress) required.getLocalSocketAddress();
        PlaintextPeers plaintext = new PlaintextPeers(System::nanoTime);
        plaintext.add(address); // as if it spoke plaintext before a restart with TLS at the same address

        PermissiveClientSocket client = client(new CertificateFiles(authority, "node-2").config(), plaintext);
        client.setSoTimeout(TIMEOUT_MILLIS);
        client.connect(address, TIMEOUT_MILLIS);
        assertThat(client.isTls()).isFalse();
        client.getOutputStream().write("bela, a plaintext JGroups preamble".getBytes(US_ASCII));

        assertThat(readToEnd(client.getInputStream())).as("bytes before the end").isLessThanOrEqualTo(7); // an alert
        assertThat(plaintext.contains(address)).as("still remembered as plaintext").isFalse();
    }

    /** Connects with {@code clientFactory} as JGroups does, sends "hello"; what the server read and from whom. */
    private String exchange(ServerSocket listening, SocketFactory clientFactory) throws Exception {
        Future<String> received = peers.submit(() -> {
            try (Socket accepted = listening.accept()) {
                accepted.setSoTimeout(TIMEOUT_MILLIS);
                assertThat(accepted).isInstanceOf(SSLSocket.class);
                String text = new String(accepted.getInputStream().readNBytes(5), US_ASCII);
                X509Certificate peer = (X509Certificate) ((SSLSocket) accepted).getSession().getPeerCertificates()[0];
                accepted.getOutputStream().write("ok".getBytes(US_ASCII));
                return text + " from " + TlsContext.principal(peer).orElseThrow();
            }
        });
        try (Socket client = clientFactory.createSocket("jgroups.tcp.sock")) {
            client.setSoTimeout(TIMEOUT_MILLIS);
            client.connect(listening.getLocalSocketAddress(), TIMEOUT_MILLIS);
            if (client instanceof SSLSocket ssl) {
                ssl.startHandshake(); // what JGroups' TcpConnection does for a TLS socket
            } else {
                assertThat(((PermissiveClientSocket) client).isTls()).as("TLS").isTrue();
            }
            client.getOutputStream().write("hello".getBytes(US_ASCII));
            assertThat(new String(client.getInputStream().readNBytes(2), US_ASCII)).isEqualTo("ok");
        }
        return received.get(10, TimeUnit.SECONDS);
    }

    /**
     * A plaintext JGroups peer as far as the first bytes go: it reads a cookie and closes a
     * connection whose cookie is wrong (a ClientHello), else answers "ok".
     */
    private ServerSocket plaintextJGroupsPeer(List<Integer> firstBytes) throws IOException {
        ServerSocket listening = new ServerSocket(0, 50, LOOPBACK);
        resources.add(listening);
        peers.submit(() -> {
            while (!listening.isClosed()) {
                Socket accepted = listening.accept();
                resources.add(accepted);
                byte[] cookie = accepted.getInputStream().readNBytes(COOKIE.length);
                firstBytes.add(cookie[0] & 0xFF);
                if (Arrays.equals(cookie, COOKIE)) {
                    accepted.getOutputStream().write("ok".getBytes(US_ASCII));
                } else {
                    accepted.close();
                }
            }
            return null;
        });
        return listening;
    }

    private MembershipSecurity security(TlsMode mode, String node) {
        return MembershipSecurity.of(NodeId.of(node), MembershipConfig.defaults(), new CertificateFiles(authority, node)
                .config().toBuilder().tls(mode).build()).orElseThrow();
    }

    private ServerSocket listen(SocketFactory factory) throws IOException {
        ServerSocket listening = factory.createServerSocket("jgroups.tcp.server");
        resources.add(listening);
        listening.bind(new InetSocketAddress(LOOPBACK, 0));
        return listening;
    }

    private PermissiveClientSocket client(SecurityConfig security, PlaintextPeers plaintext) {
        SSLSocketFactory tls = ReloadingKeyMaterial.of(security).sslContext((peer, e) -> { }).getSocketFactory();
        PermissiveClientSocket client = new PermissiveClientSocket(NodeId.of("client"), tls, ssl -> { },
                TIMEOUT_MILLIS, plaintext);
        resources.add(client);
        return client;
    }

    /** Sends a cookie, reads two bytes. */
    private static String talk(Socket socket) throws IOException {
        socket.getOutputStream().write(COOKIE);
        return new String(socket.getInputStream().readNBytes(2), US_ASCII);
    }

    /** Reads one byte; -1 at the end of the stream or on a reset. */
    private static int readOrReset(InputStream in) throws IOException {
        try {
            return in.read();
        } catch (SocketException e) {
            return -1;
        }
    }

    /** Reads until the end of the stream or a reset; the bytes read. */
    private static int readToEnd(InputStream in) throws IOException {
        int total = 0;
        byte[] buffer = new byte[256];
        try {
            for (int n; (n = in.read(buffer)) >= 0; ) {
                total += n;
            }
        } catch (SocketException e) {
            // a reset ends it too
        }
        return total;
    }

    /** The certificate files of node {@code node}, issued by {@code issuer}. */
    private record CertificateFiles(TestCertificates issuer, String node) {
        SecurityConfig config() {
            return issuer.config(TlsMode.PERMISSIVE, Principal.node(NodeId.of(node)));
        }
    }
}
