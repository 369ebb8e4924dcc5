package io.neptune.server;

import io.neptune.core.SecurityConfig;
import io.neptune.core.SecurityConfig.TlsMode;
import io.neptune.core.internal.tls.ReloadingKeyMaterial;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * One new TLS connection at a time to a node's port, made with the JDK's {@link SSLSocket} from a
 * holder's PEM files: which certificate the port presents, and whether it then lets the probe's
 * certificate in. With TLS 1.3 a server checks the client's certificate after the client finished
 * its handshake, so a refusal shows at the first read: an alert or the connection closed.
 */
final class TlsProbe {
    private static final int TIMEOUT_MILLIS = 10_000;
    /** How long {@link #refused} waits for a refusal after the handshake; a refusing port closes at once. */
    private static final int REFUSAL_MILLIS = 3_000;
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};

    private final SSLContext context;

    private TlsProbe(SSLContext context) {
        this.context = context;
    }

    /**
     * A probe presenting {@code certificate} (with {@code key}) and trusting the authorities in
     * {@code trust}, with the TLS context a node's membership uses: it presents its certificate
     * whichever authorities the port says it accepts, as a node that missed a roll-over would.
     */
    static TlsProbe of(Path certificate, Path key, Path trust) {
        SecurityConfig config = SecurityConfig.builder().tls(TlsMode.REQUIRED).identity(certificate, key).trust(trust)
                .build();
        return new TlsProbe(ReloadingKeyMaterial.of(config).sslContext((peer, refusal) -> {}));
    }

    /** The serial of the certificate {@code address} presents to a new connection. */
    BigInteger presentedSerial(InetSocketAddress address) throws IOException {
        try (SSLSocket socket = connect(address)) {
            socket.startHandshake();
            return ((X509Certificate) socket.getSession().getPeerCertificates()[0]).getSerialNumber();
        }
    }

    /** Whether the request port at {@code address} answers {@code frame} on a new connection (false: it closed it). */
    boolean answers(InetSocketAddress address, byte[] frame) throws IOException {
        try (SSLSocket socket = connect(address)) {
            socket.startHandshake();
            socket.getOutputStream().write(frame);
            socket.getOutputStream().flush();
            return socket.getInputStream().read() >= 0;
        } catch (SSLException | SocketException closed) {
            return false;
        }
    }

    /**
     * Whether {@code address} refuses a new connection for its certificate: the handshake fails, or
     * (TLS 1.3, where the server checks the client's certificate after the client is done) an alert
     * or a reset follows it. A port that let the probe in and then closes the connection cleanly,
     * as the JGroups port does to a peer silent for a second, did not refuse it; waiting for the
     * port to speak takes at most {@value #REFUSAL_MILLIS} ms.
     */
    boolean refused(InetSocketAddress address) throws IOException {
        try (SSLSocket socket = connect(address)) {
            socket.startHandshake();
            socket.setSoTimeout(REFUSAL_MILLIS);
            InputStream in = socket.getInputStream();
            in.read(); // -1: closed cleanly after letting the probe in
            return false;
        } catch (SocketTimeoutException open) {
            return false;
        } catch (SSLException | SocketException closed) {
            return true;
        }
    }

    private SSLSocket connect(InetSocketAddress address) throws IOException {
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket();
        try {
            socket.connect(address, TIMEOUT_MILLIS);
            socket.setSoTimeout(TIMEOUT_MILLIS);
            SSLParameters parameters = socket.getSSLParameters();
            parameters.setProtocols(PROTOCOLS);
            parameters.setEndpointIdentificationAlgorithm(null); // nodes are named by their principal, not address
            socket.setSSLParameters(parameters);
            return socket;
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
    }
}
