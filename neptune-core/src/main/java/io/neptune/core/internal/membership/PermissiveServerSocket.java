package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.function.Consumer;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The JGroups TCP transport's server socket with TLS {@code permissive}: it accepts TLS and
 * plaintext on one port. {@link #accept()} reads the first byte a peer sends: a TLS handshake
 * record (0x16) makes the connection TLS in server mode, configured as with TLS {@code required}
 * (a peer must present a certificate of a trusted authority); any other byte (a plaintext JGroups
 * peer starts with its cookie, {@code "bela"}) leaves it plaintext. Either way the byte is read
 * again by whoever reads the socket next, so JGroups' {@code TcpConnection} sees the stream whole.
 *
 * <p>The first byte is awaited for at most the peek timeout: JGroups accepts on one thread and
 * builds each connection on it ({@code TcpServer.Acceptor.handleAccept}, which reads the peer's
 * address there too), so a peer that connects and stays silent holds the accept loop for that
 * long, then is closed and the loop goes on to the next connection.
 *
 * <p>Thread-safety: {@link #accept()} is called by JGroups' one acceptor thread; the rest is
 * {@link ServerSocket}'s.
 */
final class PermissiveServerSocket extends ServerSocket {
    private static final Logger logger = LoggerFactory.getLogger(PermissiveServerSocket.class);
    /** The first byte of a TLS record of type handshake: a ClientHello starts with it. */
    static final int TLS_HANDSHAKE_RECORD = 0x16;

    private final NodeId self;
    private final SSLSocketFactory tls;
    private final Consumer<SSLSocket> serverParameters;
    private final int peekTimeoutMillis;

    /**
     * An unbound server socket (JGroups binds it).
     *
     * @param tls makes the TLS side of an accepted connection
     * @param serverParameters sets protocols and client authentication on a TLS connection
     * @param peekTimeoutMillis how long to wait for a peer's first byte
     */
    PermissiveServerSocket(NodeId self, SSLSocketFactory tls, Consumer<SSLSocket> serverParameters,
            int peekTimeoutMillis) throws IOException {
        super();
        this.self = requireNonNull(self, "self");
        this.tls = requireNonNull(tls, "tls");
        this.serverParameters = requireNonNull(serverParameters, "serverParameters");
        if (peekTimeoutMillis <= 0) {
            throw new IllegalArgumentException("peekTimeoutMillis: " + peekTimeoutMillis + " (expected: > 0)");
        }
        this.peekTimeoutMillis = peekTimeoutMillis;
    }

    /**
     * Waits for the next peer that sends a first byte, and returns its connection: an
     * {@link SSLSocket} in server mode (handshake not yet done) if the byte starts a TLS handshake,
     * else the plaintext socket. Peers that close or stay silent before their first byte are closed
     * and skipped.
     *
     * @throws java.net.SocketException once this server socket is closed
     */
    @Override
    public Socket accept() throws IOException {
        while (true) {
            PeekedSocket socket = new PeekedSocket();
            implAccept(socket);
            Socket classified = classify(socket);
            if (classified != null) {
                return classified;
            }
        }
    }

    private @Nullable Socket classify(PeekedSocket socket) {
        int first;
        try {
            first = socket.peek(peekTimeoutMillis);
        } catch (IOException e) {
            logger.debug("{}: closed JGroups connection from {}: nothing read within {} ms ({})", self,
                    socket.getRemoteSocketAddress(), peekTimeoutMillis, e.toString());
            closeQuietly(socket);
            return null;
        }
        if (first < 0) {
            logger.debug("{}: JGroups connection from {} closed before its first byte", self,
                    socket.getRemoteSocketAddress());
            closeQuietly(socket);
            return null;
        }
        if (first != TLS_HANDSHAKE_RECORD) {
            return socket;
        }
        try {
            // The peeked byte is in the socket's own stream again, so nothing is passed as consumed.
            SSLSocket ssl = (SSLSocket) tls.createSocket(socket, null, true);
            serverParameters.accept(ssl);
            return ssl;
        } catch (IOException | RuntimeException e) {
            logger.debug("{}: cannot start TLS on the JGroups connection from {}: {}", self,
                    socket.getRemoteSocketAddress(), e.toString());
            closeQuietly(socket);
            return null;
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // closing a connection refused anyway
        }
    }

    /**
     * An accepted socket whose first byte has been read ahead and is returned again first by its
     * input stream.
     */
    private static final class PeekedSocket extends Socket {
        private volatile @Nullable InputStream peeked;

        /** Reads the first byte within {@code timeoutMillis} and keeps it for the stream; -1 at end of stream. */
        int peek(int timeoutMillis) throws IOException {
            int before = getSoTimeout();
            setSoTimeout(timeoutMillis);
            try {
                PushbackInputStream in = new PushbackInputStream(super.getInputStream(), 1);
                int first = in.read();
                if (first >= 0) {
                    in.unread(first);
                }
                peeked = in;
                return first;
            } finally {
                setSoTimeout(before);
            }
        }

        @Override
        public InputStream getInputStream() throws IOException {
            InputStream in = peeked;
            return in != null ? in : super.getInputStream();
        }
    }
}
