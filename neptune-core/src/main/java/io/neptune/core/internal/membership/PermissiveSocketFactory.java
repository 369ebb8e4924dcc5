package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.MulticastSocket;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.time.Duration;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.jgroups.util.DefaultSocketFactory;
import org.jgroups.util.SocketFactory;
import org.jspecify.annotations.Nullable;

/**
 * The JGroups socket factory of a node with TLS {@code permissive}: its TCP transport accepts TLS
 * and plaintext on one port ({@link PermissiveServerSocket}) and connects with TLS, or in plaintext
 * to a peer that does not speak TLS ({@link PermissiveClientSocket}). So during a rolling move
 * from {@code disabled} to {@code permissive} to {@code required}, a permissive node talks to
 * every other node, whatever its setting, and membership never splits (docs/SECURITY.md,
 * "Membership"). Datagram sockets and NIO channels (FD_SOCK2's) are plain, as with TLS
 * {@code required}.
 *
 * <p>Thread-safety: thread-safe.
 */
final class PermissiveSocketFactory implements SocketFactory {
    private final NodeId self;
    private final SSLSocketFactory tls;
    private final Consumer<SSLSocket> clientParameters;
    private final Consumer<SSLSocket> serverParameters;
    private final int peekTimeoutMillis;
    private final int handshakeTimeoutMillis;
    private final PlaintextPeers plaintextPeers;
    private final DefaultSocketFactory plain = new DefaultSocketFactory();

    /**
     * Creates the factory.
     *
     * @param context the TLS context (this node's certificate, the trusted authorities)
     * @param clientParameters sets protocols on a connection this node opens
     * @param serverParameters sets protocols and client authentication on one it accepts
     * @param peekTimeout how long an accepted connection may take to send its first byte
     * @param handshakeTimeout how long a TLS handshake this node starts may take
     */
    PermissiveSocketFactory(NodeId self, SSLContext context, Consumer<SSLSocket> clientParameters,
            Consumer<SSLSocket> serverParameters, Duration peekTimeout, Duration handshakeTimeout,
            PlaintextPeers plaintextPeers) {
        this.self = requireNonNull(self, "self");
        this.tls = context.getSocketFactory();
        this.clientParameters = requireNonNull(clientParameters, "clientParameters");
        this.serverParameters = requireNonNull(serverParameters, "serverParameters");
        this.peekTimeoutMillis = millis("peekTimeout", peekTimeout);
        this.handshakeTimeoutMillis = millis("handshakeTimeout", handshakeTimeout);
        this.plaintextPeers = requireNonNull(plaintextPeers, "plaintextPeers");
    }

    private static int millis(String name, Duration timeout) {
        long millis = timeout.toMillis();
        if (millis < 1 || millis > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(name + ": " + timeout + " (expected: 1 ms to " + Integer.MAX_VALUE
                    + " ms)");
        }
        return (int) millis;
    }

    @Override
    public Socket createSocket(String serviceName) {
        return new PermissiveClientSocket(self, tls, clientParameters, handshakeTimeoutMillis, plaintextPeers);
    }

    @Override
    public Socket createSocket(String serviceName, String host, int port) throws IOException {
        return connected(serviceName, new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(String serviceName, InetAddress address, int port) throws IOException {
        return connected(serviceName, new InetSocketAddress(address, port), null);
    }

    @Override
    public Socket createSocket(String serviceName, String host, int port, InetAddress localAddr, int localPort)
            throws IOException {
        return connected(serviceName, new InetSocketAddress(host, port), new InetSocketAddress(localAddr, localPort));
    }

    @Override
    public Socket createSocket(String serviceName, InetAddress address, int port, InetAddress localAddr,
            int localPort) throws IOException {
        return connected(serviceName, new InetSocketAddress(address, port),
                new InetSocketAddress(localAddr, localPort));
    }

    private Socket connected(String serviceName, InetSocketAddress peer, @Nullable SocketAddress local)
            throws IOException {
        Socket socket = createSocket(serviceName);
        try {
            if (local != null) {
                socket.bind(local);
            }
            socket.connect(peer);
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    @Override
    public ServerSocket createServerSocket(String serviceName) throws IOException {
        return new PermissiveServerSocket(self, tls, serverParameters, peekTimeoutMillis);
    }

    @Override
    public ServerSocket createServerSocket(String serviceName, int port) throws IOException {
        return bound(serviceName, new InetSocketAddress(port), 50);
    }

    @Override
    public ServerSocket createServerSocket(String serviceName, int port, int backlog) throws IOException {
        return bound(serviceName, new InetSocketAddress(port), backlog);
    }

    @Override
    public ServerSocket createServerSocket(String serviceName, int port, int backlog, InetAddress bindAddr)
            throws IOException {
        return bound(serviceName, new InetSocketAddress(bindAddr, port), backlog);
    }

    private ServerSocket bound(String serviceName, InetSocketAddress address, int backlog) throws IOException {
        ServerSocket socket = createServerSocket(serviceName);
        try {
            socket.bind(address, backlog);
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }

    @Override
    public DatagramSocket createDatagramSocket(String serviceName) throws SocketException {
        return plain.createDatagramSocket(serviceName);
    }

    @Override
    public DatagramSocket createDatagramSocket(String serviceName, SocketAddress bindaddr) throws SocketException {
        return plain.createDatagramSocket(serviceName, bindaddr);
    }

    @Override
    public DatagramSocket createDatagramSocket(String serviceName, int port) throws SocketException {
        return plain.createDatagramSocket(serviceName, port);
    }

    @Override
    public DatagramSocket createDatagramSocket(String serviceName, int port, InetAddress laddr)
            throws SocketException {
        return plain.createDatagramSocket(serviceName, port, laddr);
    }

    @Override
    public MulticastSocket createMulticastSocket(String serviceName) throws IOException {
        return plain.createMulticastSocket(serviceName);
    }

    @Override
    public MulticastSocket createMulticastSocket(String serviceName, int port) throws IOException {
        return plain.createMulticastSocket(serviceName, port);
    }

    @Override
    public MulticastSocket createMulticastSocket(String serviceName, SocketAddress bindaddr) throws IOException {
        return plain.createMulticastSocket(serviceName, bindaddr);
    }

    @Override
    public void close(Socket socket) throws IOException {
        plain.close(socket);
    }

    @Override
    public void close(ServerSocket socket) throws IOException {
        plain.close(socket);
    }

    @Override
    public void close(DatagramSocket socket) {
        plain.close(socket);
    }
}
