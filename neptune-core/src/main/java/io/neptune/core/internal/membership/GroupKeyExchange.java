package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import io.neptune.core.Principal;
import io.neptune.core.internal.tls.TlsContext;
import java.net.InetAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import org.jgroups.protocols.ASYM_ENCRYPT;
import org.jgroups.protocols.SSL_KEY_EXCHANGE;
import org.jgroups.stack.Protocol;

/**
 * The udp stack's encryption when {@code security.tls} is {@code required}: JGroups' ASYM_ENCRYPT
 * encrypts every message above it with a group key, and SSL_KEY_EXCHANGE hands that key out. The
 * coordinator is the key server: it listens on a TCP port and gives the key over TLS 1.3/1.2 with
 * client authentication, from the node's PEM files ({@code ReloadingKeyMaterial}), and only to a
 * peer whose certificate names a node ({@code neptune://node/<id>}); the joiner checks the key
 * server's certificate the same way. So only holders of a node certificate of a trusted authority
 * read or write the group's messages. A new key is made when a member leaves.
 *
 * <p>The key server's port is {@link #port(int) the TCP port after the multicast port} (nodes of one
 * cluster share the multicast port, clusters on one host do not), or one of the ten above it if
 * that is taken on this host.
 *
 * <p>Thread-safety: the verifier is called from JGroups' key-exchange threads; it keeps no state
 * besides the thread-safe {@link Refusals}.
 */
final class GroupKeyExchange {
    /** Ports above the first that a key server tries if the first is taken, and a joiner tries in turn. */
    static final int PORT_RANGE = 10;

    private GroupKeyExchange() {}

    /**
     * The key-exchange and encryption protocols, in stack order (the first goes lower), for a node
     * bound to {@code bind} whose TLS context is {@code context}.
     */
    static List<Protocol> protocols(SSLContext context, Refusals refusals, InetAddress bind, int multicastPort) {
        requireNonNull(context, "context");
        requireNonNull(refusals, "refusals");
        SSL_KEY_EXCHANGE exchange = new SSL_KEY_EXCHANGE()
                .setBindAddress(bind)
                .setPort(port(multicastPort))
                .setPortRange(PORT_RANGE)
                .setServerSSLContext(context)
                .setClientSSLContext(context)
                .setRequireClientAuthentication(true)
                .setSessionVerifier(new NodeVerifier(refusals));
        ASYM_ENCRYPT encrypt = new ASYM_ENCRYPT().setUseExternalKeyExchange(true).setChangeKeyOnLeave(true)
                .setChangeKeyOnCoordLeave(true);
        return List.of(exchange, encrypt);
    }

    /** The key server's first port: the one after {@code multicastPort}, or below it at the top of the range. */
    static int port(int multicastPort) {
        return multicastPort + 1 + PORT_RANGE <= 65_535 ? multicastPort + 1 : multicastPort - 1 - PORT_RANGE;
    }

    /**
     * Accepts a key-exchange peer only if its certificate names a node; the trust manager has already
     * checked that it leads to a trusted authority.
     */
    static final class NodeVerifier implements SSL_KEY_EXCHANGE.SessionVerifier {
        private final Refusals refusals;

        NodeVerifier(Refusals refusals) {
            this.refusals = refusals;
        }

        @Override
        public void init(String argument) {
            // configured in code, never from a property
        }

        @Override
        public void verify(SSLSession session) {
            Optional<Principal> principal = principal(session);
            if (principal.isEmpty() || principal.get().role() != Principal.Role.NODE) {
                String peer = session.getPeerHost() + ": " + principal.map(Principal::toString)
                        .orElse("no neptune:// name");
                refusals.record(Refusal.NOT_A_NODE, peer);
                throw new SecurityException(Refusal.NOT_A_NODE.code() + " " + peer + " (expected: a node certificate)");
            }
        }

        private static Optional<Principal> principal(SSLSession session) {
            Certificate[] chain;
            try {
                chain = session.getPeerCertificates();
            } catch (SSLPeerUnverifiedException e) {
                return Optional.empty();
            }
            return chain.length > 0 && chain[0] instanceof X509Certificate leaf ? TlsContext.principal(leaf)
                    : Optional.empty();
        }
    }
}
