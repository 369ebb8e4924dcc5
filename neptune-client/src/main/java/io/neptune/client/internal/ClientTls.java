package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.core.SecurityConfig.TlsMode;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.tls.TlsContext;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The client side of the request port's TLS: which connections are TLS (all of them with TLS
 * {@code required}; with {@code permissive}, those to nodes that announce they accept it), and
 * that the node at the other end is the node the call meant, by its certificate.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ClientTls {
    private final TlsMode mode;
    private final @Nullable TlsContext context;
    private final YellowPage yellowPage;

    ClientTls(SecurityConfig config, YellowPage yellowPage) {
        this.mode = config.tls();
        this.context = TlsContext.client(config).orElse(null);
        this.yellowPage = requireNonNull(yellowPage, "yellowPage");
    }

    /** Puts a TLS stage first in the pipeline of a new connection to {@code node} at {@code address}, where one belongs. */
    void install(Channel channel, NodeId node, InetSocketAddress address) {
        TlsContext tls = context;
        if (tls == null || mode == TlsMode.PERMISSIVE && !announcesTls(node)) {
            return;
        }
        channel.pipeline().addFirst("tls", tls.newClientHandler(channel.alloc(), address.getHostString(),
                address.getPort()));
    }

    /**
     * Puts a TLS stage first in the pipeline of a new connection to {@code seed}, a thin client's seed
     * address, whenever this client has TLS: the node behind it is not known yet, so neither is what it
     * announces, and a node whose TLS is {@code permissive} or {@code required} takes TLS.
     */
    void installForSeed(Channel channel, InetSocketAddress seed) {
        TlsContext tls = context;
        if (tls != null) {
            channel.pipeline().addFirst("tls", tls.newClientHandler(channel.alloc(), seed.getHostString(),
                    seed.getPort()));
        }
    }

    private boolean announcesTls(NodeId node) {
        return yellowPage.announcement(node).map(Announcement::tls).orElse(false);
    }

    /**
     * Why the finished handshake of {@code channel}, a connection to {@code target}, does not reach
     * {@code node}, or null if it does (or the connection is plaintext): its certificate must name that node.
     */
    static @Nullable String wrongPeer(Channel channel, NodeId node, String target) {
        SslHandler handler = channel.pipeline().get(SslHandler.class);
        if (handler == null) {
            return null;
        }
        Optional<Principal> peer = TlsContext.peer(handler);
        if (peer.isPresent() && peer.get().isNode(node)) {
            return null;
        }
        return "NEP-SEC-012 " + target + " presented " + peer.map(Principal::uri).orElse("a certificate naming no node")
                + " (expected: " + Principal.node(node).uri() + ")";
    }

    /**
     * Why the finished handshake of {@code channel}, a connection to a seed address, does not reach a
     * node of the cluster, or null if it does (or the connection is plaintext): its certificate must
     * name a node, any node.
     */
    static @Nullable String notANode(Channel channel) {
        SslHandler handler = channel.pipeline().get(SslHandler.class);
        if (handler == null) {
            return null;
        }
        Optional<Principal> peer = TlsContext.peer(handler);
        if (peer.isPresent() && peer.get().role() == Principal.Role.NODE) {
            return null;
        }
        return "NEP-SEC-012 seed " + channel.remoteAddress() + " presented "
                + peer.map(Principal::uri).orElse("a certificate naming no node") + " (expected: a node, "
                + Principal.SCHEME + "://node/...)";
    }
}
