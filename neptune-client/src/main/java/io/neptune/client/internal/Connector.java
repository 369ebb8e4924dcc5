package io.neptune.client.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.Frames;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.jspecify.annotations.Nullable;

/**
 * Opens a connection to a node's request port as every client connection is opened: TCP, TLS
 * first in the pipeline where it belongs, frames, and a {@link ResponseHandler}; ready once the TLS
 * handshake (if any) found the node the connection was meant for.
 *
 * <p>Thread-safety: thread-safe.
 */
final class Connector {
    private final Bootstrap bootstrap;
    private final int maxFrameBytes;
    private final ClientTls tls;

    Connector(EventLoopGroup group, Duration connectTimeout, int maxFrameBytes, ClientTls tls) {
        this.tls = requireNonNull(tls, "tls");
        this.maxFrameBytes = maxFrameBytes;
        this.bootstrap = new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) connectTimeout.toMillis());
    }

    /** Connects to {@code replica}'s node; its certificate, if TLS, must name that node. */
    ChannelFuture connect(Replica replica) {
        return connect(replica.node(), replica.requestAddress(), replica.toString());
    }

    /**
     * Connects to {@code node}'s request port at {@code address}; its certificate, if TLS, must name
     * that node. {@code target} names the connection in messages.
     */
    ChannelFuture connect(NodeId node, InetSocketAddress address, String target) {
        return connect(address, target, channel -> tls.install(channel, node, address),
                channel -> ClientTls.wrongPeer(channel, node, target));
    }

    /**
     * Connects to {@code seed}, a request port of some node of the cluster (a thin client's seed
     * address); its certificate, if TLS, must name a node, any node.
     */
    ChannelFuture connect(InetSocketAddress seed) {
        return connect(seed, "seed " + seed.getHostString() + ":" + seed.getPort(), channel -> tls.installForSeed(channel,
                seed), ClientTls::notANode);
    }

    private ChannelFuture connect(InetSocketAddress address, String target, Consumer<Channel> install,
            Function<Channel, @Nullable String> wrongPeer) {
        ChannelFuture connect = bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                install.accept(ch);
                Frames.install(ch.pipeline(), maxFrameBytes);
                ch.pipeline().addLast("responses", new ResponseHandler(target));
            }
        }).connect(address);
        return handshaken(connect, wrongPeer);
    }

    /**
     * Completes when {@code connect} did and the TLS handshake that follows (if any) reached the peer
     * {@code wrongPeer} accepts; fails, closing the connection, when either did not.
     */
    private static ChannelFuture handshaken(ChannelFuture connect, Function<Channel, @Nullable String> wrongPeer) {
        ChannelPromise ready = connect.channel().newPromise();
        connect.addListener((ChannelFuture f) -> {
            SslHandler handler = f.channel().pipeline().get(SslHandler.class);
            if (!f.isSuccess() || handler == null) {
                if (f.isSuccess()) {
                    ready.setSuccess();
                } else {
                    ready.setFailure(f.cause());
                }
                return;
            }
            handler.handshakeFuture().addListener(h -> {
                String wrong = h.isSuccess() ? wrongPeer.apply(f.channel()) : null;
                if (h.isSuccess() && wrong == null) {
                    ready.setSuccess();
                    return;
                }
                f.channel().close();
                ready.setFailure(wrong != null ? new SSLPeerUnverifiedException(wrong)
                        : requireNonNull(h.cause(), "cause"));
            });
        });
        return ready;
    }
}
