package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConfigException;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.tls.ReloadingKeyMaterial;
import java.net.InetAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.jgroups.stack.Protocol;
import org.jgroups.util.DefaultSocketFactory;
import org.jgroups.util.SocketFactory;

/**
 * Membership with {@code security.tls} {@code permissive} or {@code required}.
 *
 * <p>With {@code required} the JGroups TCP transport runs TLS with client authentication over the
 * node's PEM files (so only holders of a certificate of a trusted authority join), or on the udp
 * stack every message is encrypted with a group key that only holders of a node certificate of a
 * trusted authority obtain ({@link GroupKeyExchange}), announcements
 * are signed and verified ({@link AnnouncementSignatures}), an announcement is taken only from the
 * node its certificate names and only with an (incarnation, sequence) above the last one taken from
 * that node, and every refusal is counted and logged ({@link Refusals}).
 *
 * <p>With {@code permissive}, the step of a rolling move between {@code disabled} and
 * {@code required}, the transport takes both: its port accepts TLS (with the same client
 * authentication) and plaintext, and it connects with TLS, or in plaintext to a peer that does not
 * speak TLS ({@link PermissiveSocketFactory}). Its announcements are signed, so nodes with
 * {@code required} take them; it takes signed announcements as {@code required} does (checked,
 * refusals counted) and unsigned ones unchecked, as {@code disabled} does. So a cluster moves from
 * {@code disabled} through {@code permissive} to {@code required} one node at a time without ever
 * splitting membership (docs/SECURITY.md, "Membership"). With {@code disabled} there is no
 * membership security at all.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class MembershipSecurity {
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    /**
     * The longest an accepted JGroups connection with TLS {@code permissive} may take to send its
     * first byte (less if the handshake timeout is shorter): JGroups' own bound for reading a peer's
     * address on its accept thread ({@code peer_addr_read_timeout}), so a silent peer holds that
     * thread no longer than with TLS {@code required}.
     */
    static final Duration MAX_PEEK_TIMEOUT = Duration.ofSeconds(1);
    /** Nodes whose last accepted (incarnation, sequence) is remembered; the eldest is forgotten beyond. */
    static final int MAX_REMEMBERED_NODES = 10_000;

    private final NodeId self;
    private final boolean permissive;
    /** Whether the stack is udp, whose messages are encrypted with a group key instead of TLS. */
    private final boolean groupKey;
    private final Duration handshakeTimeout;
    private final ReloadingKeyMaterial material;
    private final AnnouncementSignatures signatures;
    private final Refusals refusals;
    private final PlaintextPeers plaintextPeers = new PlaintextPeers(System::nanoTime);
    /** The last (incarnation, sequence) taken from each node; guarded by itself. */
    private final Map<NodeId, long[]> highest = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<NodeId, long[]> eldest) {
            return size() > MAX_REMEMBERED_NODES;
        }
    };

    private MembershipSecurity(NodeId self, MembershipConfig membership, SecurityConfig security) {
        this.self = self;
        this.permissive = security.tls() == SecurityConfig.TlsMode.PERMISSIVE;
        this.groupKey = membership.stack() == MembershipConfig.Stack.UDP;
        this.handshakeTimeout = security.handshakeTimeout();
        this.material = ReloadingKeyMaterial.of(security);
        this.signatures = new AnnouncementSignatures(material, membership.cluster(), System::currentTimeMillis);
        this.refusals = new Refusals(self, System::nanoTime);
    }

    /**
     * The membership security of node {@code self} for {@code security}: present when its TLS is
     * {@code permissive} or {@code required}.
     *
     * @throws ConfigException if a PEM file does not load
     */
    public static Optional<MembershipSecurity> of(NodeId self, MembershipConfig membership, SecurityConfig security) {
        requireNonNull(self, "self");
        requireNonNull(membership, "membership");
        if (!security.isEnabled()) {
            return Optional.empty();
        }
        return Optional.of(new MembershipSecurity(self, membership, security));
    }

    /**
     * Whether plaintext peers and unsigned announcements are still taken: TLS {@code permissive}.
     */
    boolean acceptsPlaintext() {
        return permissive;
    }

    /** How the transport and the announcements are secured, for the log line at start. */
    String describe() {
        return permissive ? "TLS and plaintext (permissive), signed announcements, unsigned ones taken"
                : groupKey ? "group-key encryption, signed announcements" : "TLS, signed announcements";
    }

    /**
     * A JGroups socket factory for the TCP transport. With TLS {@code required} its TCP sockets are
     * TLS 1.3/1.2 with the current certificate, and its server sockets need the peer's certificate;
     * with {@code permissive} it is a {@link PermissiveSocketFactory}, whose TLS connections are
     * configured the same way. A TLS peer refused for its certificate is recorded as
     * {@link Refusal#UNTRUSTED_PEER}.
     */
    SocketFactory socketFactory() {
        SSLContext context = material.sslContext((peer, e) -> refusals.record(Refusal.UNTRUSTED_PEER,
                peer + ": " + e.getMessage()));
        if (permissive) {
            Duration peek = handshakeTimeout.compareTo(MAX_PEEK_TIMEOUT) < 0 ? handshakeTimeout : MAX_PEEK_TIMEOUT;
            return new PermissiveSocketFactory(self, context, MembershipSecurity::clientParameters,
                    MembershipSecurity::serverParameters, peek, handshakeTimeout, plaintextPeers);
        }
        DefaultSocketFactory factory = new DefaultSocketFactory(context);
        factory.setSocketConfigurator(socket -> {
            if (socket instanceof SSLSocket ssl) {
                clientParameters(ssl);
            }
        });
        factory.setServerSocketConfigurator(socket -> {
            if (socket instanceof SSLServerSocket ssl) {
                SSLParameters parameters = ssl.getSSLParameters();
                parameters.setProtocols(PROTOCOLS);
                parameters.setNeedClientAuth(true);
                ssl.setSSLParameters(parameters);
            }
        });
        return factory;
    }

    /** TLS 1.3/1.2 on a connection this node opens. */
    private static void clientParameters(SSLSocket socket) {
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setProtocols(PROTOCOLS);
        socket.setSSLParameters(parameters);
    }

    /** TLS 1.3/1.2, and the peer's certificate needed, on a connection this node accepted. */
    private static void serverParameters(SSLSocket socket) {
        SSLParameters parameters = socket.getSSLParameters();
        parameters.setProtocols(PROTOCOLS);
        parameters.setNeedClientAuth(true);
        socket.setSSLParameters(parameters);
    }

    /**
     * The udp stack's key exchange and encryption protocols (lowest first), for a node bound to
     * {@code bind} in a group on {@code multicastPort}; a key-exchange peer refused for its
     * certificate is recorded as {@link Refusal#UNTRUSTED_PEER} or {@link Refusal#NOT_A_NODE}.
     */
    List<Protocol> groupEncryption(InetAddress bind, int multicastPort) {
        SSLContext context = material.sslContext((peer, e) -> refusals.record(Refusal.UNTRUSTED_PEER,
                "group key exchange with " + peer + ": " + e.getMessage()));
        return GroupKeyExchange.protocols(context, refusals, bind, multicastPort);
    }

    /** Signs an announcement's JSON: the frame to send. */
    byte[] sign(byte[] announcement) {
        return signatures.sign(announcement);
    }

    /** Checks a received frame's chain and signature. */
    AnnouncementSignatures.Verdict verify(byte[] frame, int offset, int length) {
        return signatures.verify(frame, offset, length);
    }

    /**
     * Takes {@code announcement}'s (incarnation, sequence) as the highest of its node if it is above
     * the last one taken; false (a replay) if not.
     */
    boolean advance(NodeId node, Announcement announcement) {
        synchronized (highest) {
            long[] last = highest.get(node);
            if (last != null && (announcement.incarnation() < last[0]
                    || announcement.incarnation() == last[0] && announcement.sequence() <= last[1])) {
                return false;
            }
            highest.put(node, new long[] {announcement.incarnation(), announcement.sequence()});
            return true;
        }
    }

    /** What was refused, by kind. */
    public Refusals refusals() {
        return refusals;
    }

    /** The announcement signatures, for their counters. */
    public AnnouncementSignatures signatures() {
        return signatures;
    }
}
