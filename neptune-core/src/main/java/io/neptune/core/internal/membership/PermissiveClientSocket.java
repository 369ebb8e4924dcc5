package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.net.SocketException;
import java.net.SocketOption;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A JGroups TCP connection of a node with TLS {@code permissive}: TLS if the peer speaks it,
 * plaintext to a peer that does not (a node with TLS {@code disabled}). JGroups creates the socket
 * before it knows the peer ({@code TcpConnection} asks its socket factory for an unconnected
 * socket, sets its options, binds it and connects it), so the choice is made in
 * {@link #connect(SocketAddress, int)}: the TCP connection is opened, then a TLS handshake is made
 * over it (presenting this node's certificate, so a peer with TLS {@code required} takes it). A
 * plaintext JGroups peer reads the handshake's first four bytes as its cookie, finds them wrong and
 * closes the connection without a byte in answer; a TLS peer always answers a ClientHello, if only
 * with an alert. On that silent close the peer is remembered in {@link PlaintextPeers} and the
 * connection is opened again in plaintext, with the same options, within the same call. Any other
 * handshake failure (an untrusted certificate either way, a timeout) fails the connection: it is
 * never a reason to fall back to plaintext. A peer remembered as plaintext is forgotten as soon as
 * a plaintext connection to it shows it speaks TLS now (it ends the connection without a byte, or
 * answers with a TLS record), so the next connection tries TLS again.
 *
 * <p>Everything else is delegated to the underlying plain socket, or to the TLS socket over it for
 * the streams, {@code close} and the shutdowns.
 *
 * <p>Thread-safety: as {@link Socket}: options, {@code bind} and {@code connect} from the thread
 * that opens the connection (JGroups' sender, under its lock per destination); afterwards reads on
 * one thread, writes on another, and {@code close} from any.
 */
final class PermissiveClientSocket extends Socket {
    private static final Logger logger = LoggerFactory.getLogger(PermissiveClientSocket.class);

    /** An option set on this socket, kept to set again on the plain socket of a plaintext retry. */
    @FunctionalInterface
    private interface Setting {
        void applyTo(Socket socket) throws IOException;
    }

    private final NodeId self;
    private final SSLSocketFactory tlsFactory;
    private final Consumer<SSLSocket> clientParameters;
    private final int handshakeTimeoutMillis;
    private final PlaintextPeers plaintextPeers;
    /** Options in the order they were set; written before {@code connect} only. */
    private final List<Setting> settings = new ArrayList<>();
    private volatile @Nullable SocketAddress bindpoint;
    private volatile WatchedSocket raw = new WatchedSocket();
    private volatile @Nullable SSLSocket tls;

    /**
     * An unconnected socket.
     *
     * @param tlsFactory layers TLS over the connection
     * @param clientParameters sets the protocols on the TLS socket
     * @param handshakeTimeoutMillis how long the TLS handshake may take
     * @param plaintextPeers the peers found speaking plaintext, shared by this node's connections
     */
    PermissiveClientSocket(NodeId self, SSLSocketFactory tlsFactory, Consumer<SSLSocket> clientParameters,
            int handshakeTimeoutMillis, PlaintextPeers plaintextPeers) {
        this.self = requireNonNull(self, "self");
        this.tlsFactory = requireNonNull(tlsFactory, "tlsFactory");
        this.clientParameters = requireNonNull(clientParameters, "clientParameters");
        if (handshakeTimeoutMillis <= 0) {
            throw new IllegalArgumentException("handshakeTimeoutMillis: " + handshakeTimeoutMillis + " (expected: > 0)");
        }
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
        this.plaintextPeers = requireNonNull(plaintextPeers, "plaintextPeers");
    }

    /** Whether the connection is TLS (false before it is connected, and for a plaintext peer). */
    boolean isTls() {
        return tls != null;
    }

    @Override
    public void connect(SocketAddress endpoint) throws IOException {
        connect(endpoint, 0);
    }

    /**
     * Opens the connection to {@code endpoint}: TLS, or plaintext to a peer known or found to speak
     * plaintext (see the class comment).
     *
     * @throws IOException if the peer cannot be reached, or refuses or fails the TLS handshake
     */
    @Override
    public void connect(SocketAddress endpoint, int timeout) throws IOException {
        if (!(endpoint instanceof InetSocketAddress peer)) {
            throw new IllegalArgumentException("endpoint: " + endpoint + " (expected: an InetSocketAddress)");
        }
        WatchedSocket plain = raw;
        plain.connect(peer, timeout);
        if (plaintextPeers.contains(peer)) {
            plain.onTlsPeer(() -> plaintextPeers.remove(peer));
            return;
        }
        try {
            tls = handshake(plain, peer);
        } catch (IOException e) {
            boolean silent = plain.endedSilently();
            closeQuietly(plain);
            if (!silent) {
                throw e;
            }
            plaintextPeers.add(peer);
            logger.info("{}: JGroups peer {} closed the TLS handshake without a byte, as a plaintext peer (TLS"
                    + " disabled) does: plaintext to it for {}", self, peer, PlaintextPeers.MEMORY);
            reopenPlaintext(peer, timeout);
        }
    }

    private SSLSocket handshake(WatchedSocket plain, InetSocketAddress peer) throws IOException {
        SSLSocket ssl = (SSLSocket) tlsFactory.createSocket(plain, peer.getHostString(), peer.getPort(), true);
        try {
            ssl.setUseClientMode(true);
            clientParameters.accept(ssl);
            int before = plain.getSoTimeout();
            plain.setSoTimeout(handshakeTimeoutMillis);
            ssl.startHandshake();
            plain.setSoTimeout(before);
            // As JGroups does for its own TLS sockets (JGRP-2748): a close must not wait for a blocked writer.
            ssl.setSoLinger(true, 0);
            return ssl;
        } catch (IOException | RuntimeException e) {
            closeQuietly(ssl);
            throw e;
        }
    }

    private void reopenPlaintext(InetSocketAddress peer, int timeout) throws IOException {
        WatchedSocket plain = new WatchedSocket();
        try {
            for (Setting setting : settings) {
                setting.applyTo(plain);
            }
            SocketAddress local = bindpoint;
            if (local != null) {
                plain.bind(local);
            }
            plain.connect(peer, timeout);
        } catch (IOException | RuntimeException e) {
            closeQuietly(plain);
            throw e;
        }
        plain.onTlsPeer(() -> plaintextPeers.remove(peer));
        raw = plain;
    }

    private void set(Setting setting) throws SocketException {
        try {
            setting.applyTo(raw);
        } catch (SocketException e) {
            throw e;
        } catch (IOException e) {
            throw new SocketException(e.toString());
        }
        settings.add(setting);
    }

    /** The socket the streams are read from and written to: the TLS one, once there is one. */
    private Socket active() {
        SSLSocket ssl = tls;
        return ssl != null ? ssl : raw;
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // the connection is given up anyway
        }
    }

    @Override
    public void bind(@Nullable SocketAddress bindpoint) throws IOException {
        raw.bind(bindpoint);
        this.bindpoint = bindpoint;
    }

    @Override
    public InputStream getInputStream() throws IOException {
        return active().getInputStream();
    }

    @Override
    public OutputStream getOutputStream() throws IOException {
        return active().getOutputStream();
    }

    @Override
    public void close() throws IOException {
        WatchedSocket plain = raw;
        plain.closingLocally();
        SSLSocket ssl = tls;
        try {
            if (ssl != null) {
                ssl.close(); // closes the plain socket too
            }
        } finally {
            plain.close();
        }
    }

    @Override
    public void shutdownInput() throws IOException {
        active().shutdownInput();
    }

    @Override
    public void shutdownOutput() throws IOException {
        active().shutdownOutput();
    }

    @Override
    public boolean isInputShutdown() {
        return raw.isInputShutdown();
    }

    @Override
    public boolean isOutputShutdown() {
        return raw.isOutputShutdown();
    }

    @Override
    public boolean isConnected() {
        return raw.isConnected();
    }

    @Override
    public boolean isBound() {
        return raw.isBound();
    }

    @Override
    public boolean isClosed() {
        return raw.isClosed();
    }

    @Override
    public @Nullable InetAddress getInetAddress() {
        return raw.getInetAddress();
    }

    @Override
    public InetAddress getLocalAddress() {
        return raw.getLocalAddress();
    }

    @Override
    public int getPort() {
        return raw.getPort();
    }

    @Override
    public int getLocalPort() {
        return raw.getLocalPort();
    }

    @Override
    public @Nullable SocketAddress getRemoteSocketAddress() {
        return raw.getRemoteSocketAddress();
    }

    @Override
    public @Nullable SocketAddress getLocalSocketAddress() {
        return raw.getLocalSocketAddress();
    }

    @Override
    public @Nullable SocketChannel getChannel() {
        return null; // a stream socket, never a channel's
    }

    @Override
    public void setTcpNoDelay(boolean on) throws SocketException {
        set(s -> s.setTcpNoDelay(on));
    }

    @Override
    public boolean getTcpNoDelay() throws SocketException {
        return raw.getTcpNoDelay();
    }

    @Override
    public void setSoLinger(boolean on, int linger) throws SocketException {
        set(s -> s.setSoLinger(on, linger));
    }

    @Override
    public int getSoLinger() throws SocketException {
        return raw.getSoLinger();
    }

    @Override
    public void sendUrgentData(int data) throws IOException {
        active().sendUrgentData(data);
    }

    @Override
    public void setOOBInline(boolean on) throws SocketException {
        set(s -> s.setOOBInline(on));
    }

    @Override
    public boolean getOOBInline() throws SocketException {
        return raw.getOOBInline();
    }

    @Override
    public void setSoTimeout(int timeout) throws SocketException {
        set(s -> s.setSoTimeout(timeout));
    }

    @Override
    public int getSoTimeout() throws SocketException {
        return raw.getSoTimeout();
    }

    @Override
    public void setSendBufferSize(int size) throws SocketException {
        set(s -> s.setSendBufferSize(size));
    }

    @Override
    public int getSendBufferSize() throws SocketException {
        return raw.getSendBufferSize();
    }

    @Override
    public void setReceiveBufferSize(int size) throws SocketException {
        set(s -> s.setReceiveBufferSize(size));
    }

    @Override
    public int getReceiveBufferSize() throws SocketException {
        return raw.getReceiveBufferSize();
    }

    @Override
    public void setKeepAlive(boolean on) throws SocketException {
        set(s -> s.setKeepAlive(on));
    }

    @Override
    public boolean getKeepAlive() throws SocketException {
        return raw.getKeepAlive();
    }

    @Override
    public void setTrafficClass(int tc) throws SocketException {
        set(s -> s.setTrafficClass(tc));
    }

    @Override
    public int getTrafficClass() throws SocketException {
        return raw.getTrafficClass();
    }

    @Override
    public void setReuseAddress(boolean on) throws SocketException {
        set(s -> s.setReuseAddress(on));
    }

    @Override
    public boolean getReuseAddress() throws SocketException {
        return raw.getReuseAddress();
    }

    @Override
    public void setPerformancePreferences(int connectionTime, int latency, int bandwidth) {
        raw.setPerformancePreferences(connectionTime, latency, bandwidth);
        settings.add(s -> s.setPerformancePreferences(connectionTime, latency, bandwidth));
    }

    @Override
    public <T> Socket setOption(SocketOption<T> name, T value) throws IOException {
        raw.setOption(name, value);
        settings.add(s -> s.setOption(name, value));
        return this;
    }

    @Override
    public <T> T getOption(SocketOption<T> name) throws IOException {
        return raw.getOption(name);
    }

    @Override
    public Set<SocketOption<?>> supportedOptions() {
        return raw.supportedOptions();
    }

    @Override
    public String toString() {
        return "PermissiveClientSocket[" + (tls != null ? "tls" : "plaintext") + ", " + raw + "]";
    }
}
