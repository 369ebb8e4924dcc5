package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ConfigException;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.tls.ReloadingKeyMaterial;
import java.net.InetAddress;
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
 * Membership when {@code security.tls} is {@code required}: the JGroups TCP transport runs TLS with
 * client authentication over the node's PEM files (so only holders of a certificate of a trusted
 * authority join), or on the udp stack every message is encrypted with a group key that only
 * holders of a node certificate of a trusted authority obtain ({@link GroupKeyExchange}), announcements are signed and verified ({@link AnnouncementSignatures}), an
 * announcement is taken only from the node its certificate names and only with an (incarnation,
 * sequence) above the last one taken from that node, and every refusal is counted and logged
 * ({@link Refusals}). With TLS {@code permissive} or {@code disabled} there is none of this:
 * a JGroups transport cannot accept TLS and plaintext at once, and {@code permissive} is the
 * request port's migration step (docs/SECURITY.md, "Membership").
 *
 * <p>Thread-safety: thread-safe.
 */
public final class MembershipSecurity {
    private static final String[] PROTOCOLS = {"TLSv1.3", "TLSv1.2"};
    /** Nodes whose last accepted (incarnation, sequence) is remembered; the eldest is forgotten beyond. */
    static final int MAX_REMEMBERED_NODES = 10_000;

    private final ReloadingKeyMaterial material;
    private final AnnouncementSignatures signatures;
    private final Refusals refusals;
    /** The last (incarnation, sequence) taken from each node; guarded by itself. */
    private final Map<NodeId, long[]> highest = new LinkedHashMap<>(16, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<NodeId, long[]> eldest) {
            return size() > MAX_REMEMBERED_NODES;
        }
    };

    private MembershipSecurity(NodeId self, MembershipConfig membership, SecurityConfig security) {
        this.material = ReloadingKeyMaterial.of(security);
        this.signatures = new AnnouncementSignatures(material, membership.cluster(), System::currentTimeMillis);
        this.refusals = new Refusals(self, System::nanoTime);
    }

    /**
     * The membership security of node {@code self} for {@code security}: present only when its TLS
     * is {@code required}.
     *
     * @throws ConfigException if a PEM file does not load
     */
    public static Optional<MembershipSecurity> of(NodeId self, MembershipConfig membership, SecurityConfig security) {
        requireNonNull(self, "self");
        requireNonNull(membership, "membership");
        if (security.tls() != SecurityConfig.TlsMode.REQUIRED) {
            return Optional.empty();
        }
        return Optional.of(new MembershipSecurity(self, membership, security));
    }

    /**
     * A JGroups socket factory whose TCP sockets are TLS 1.3/1.2 with the current certificate, and
     * whose server sockets need the peer's certificate; a peer refused for its certificate is
     * recorded as {@link Refusal#UNTRUSTED_PEER}.
     */
    SocketFactory socketFactory() {
        SSLContext context = material.sslContext((peer, e) -> refusals.record(Refusal.UNTRUSTED_PEER,
                peer + ": " + e.getMessage()));
        DefaultSocketFactory factory = new DefaultSocketFactory(context);
        factory.setSocketConfigurator(socket -> {
            if (socket instanceof SSLSocket ssl) {
                SSLParameters parameters = ssl.getSSLParameters();
                parameters.setProtocols(PROTOCOLS);
                ssl.setSSLParameters(parameters);
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
