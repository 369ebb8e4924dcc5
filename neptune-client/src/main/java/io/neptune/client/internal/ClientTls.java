package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.Principal;
import io.neptune.core.SecurityConfig;
import io.neptune.core.SecurityConfig.TlsMode;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.Replica;
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

    /** Puts a TLS stage first in the pipeline of a new connection to {@code replica}, where one belongs. */
    void install(Channel channel, Replica replica) {
        TlsContext tls = context;
        if (tls == null || mode == TlsMode.PERMISSIVE && !announcesTls(replica)) {
            return;
        }
        InetSocketAddress address = replica.requestAddress();
        channel.pipeline().addFirst("tls", tls.newClientHandler(channel.alloc(), address.getHostString(),
                address.getPort()));
    }

    private boolean announcesTls(Replica replica) {
        return yellowPage.announcement(replica.node()).map(Announcement::tls).orElse(false);
    }

    /**
     * Why the finished handshake of {@code channel} does not reach {@code replica}'s node, or null if
     * it does (or the connection is plaintext): its certificate must name that node.
     */
    static @Nullable String wrongPeer(Channel channel, Replica replica) {
        SslHandler handler = channel.pipeline().get(SslHandler.class);
        if (handler == null) {
            return null;
        }
        Optional<Principal> peer = TlsContext.peer(handler);
        if (peer.isPresent() && peer.get().isNode(replica.node())) {
            return null;
        }
        return "NEP-SEC-012 " + replica + " presented " + peer.map(Principal::uri).orElse("a certificate naming no node")
                + " (expected: " + Principal.node(replica.node()).uri() + ")";
    }
}
