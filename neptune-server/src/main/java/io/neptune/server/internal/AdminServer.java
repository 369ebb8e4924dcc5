package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The node's admin port: HTTP/1.1 on the node's bind address, serving {@code GET /metrics}
 * (Prometheus text), {@code /health/live}, {@code /health/ready} and {@code /health} (both: 200
 * when ready, else 503 with the replicas that do not serve yet) through {@link AdminHttpHandler}.
 * It shares the node's event loops; rendering runs on one thread of its own, never on an event loop.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class AdminServer implements AutoCloseable {
    /** Largest request accepted: the routes take no body. */
    static final int MAX_REQUEST_BYTES = 8 * 1024;

    private final Channel serverChannel;
    private final ExecutorService renderer;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

    /** Binds the admin port at {@code bindAddress:port} (0 picks a free port). */
    public AdminServer(NodeId node, EventLoopGroup group, String bindAddress, int port, NodeMetrics metrics,
            Supplier<Health> health) {
        requireNonNull(node, "node");
        this.renderer = Executors.newSingleThreadExecutor(new DefaultThreadFactory("neptune-" + node + "-admin", true));
        AdminHttpHandler handler = new AdminHttpHandler(requireNonNull(metrics, "metrics"),
                requireNonNull(health, "health"), renderer);
        ChannelFuture bound = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        ch.pipeline().addLast("http", new HttpServerCodec())
                                .addLast("aggregator", new HttpObjectAggregator(MAX_REQUEST_BYTES))
                                .addLast("admin", handler);
                    }
                })
                .bind(new InetSocketAddress(bindAddress, port))
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            renderer.shutdown();
            throw new NeptuneException(node + ": cannot serve the admin port on " + bindAddress + ":" + port
                    + " (check the settings bind-address and admin-port): " + bound.cause(), bound.cause());
        }
        this.serverChannel = bound.channel();
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Stops accepting and closes every connection; idempotent. */
    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
        channels.close().awaitUninterruptibly();
        renderer.shutdown();
    }
}
