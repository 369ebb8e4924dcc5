package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.internal.RequestDeadline;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.flow.FlowControlHandler;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The node's admin port: HTTP/1.1 on the node's bind address, serving {@code GET /metrics}
 * (Prometheus text), {@code /health/live}, {@code /health/ready} and {@code /health} (both: 200
 * when ready, else 503 with the replicas that do not serve yet) through {@link AdminHttpHandler}.
 * It shares the node's event loops; rendering runs on one thread of its own, never on an event loop.
 *
 * <p>A connection is answered one request at a time: the next is read only once the answer before
 * it was written out (auto-read off, a {@link FlowControlHandler} handing over one request per
 * read), so a client that sends many requests and reads none holds one answer here, not one per
 * request. A request whose first bytes arrived must be whole within the request timeout, or it is
 * answered 408 and the connection closed, and a connection idle for twice that is closed (zero: no
 * limit).
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
    public AdminServer(NodeId node, EventLoopGroup group, String bindAddress, int port, Duration requestTimeout,
            NodeMetrics metrics, Supplier<Health> health) {
        requireNonNull(node, "node");
        this.renderer = Executors.newSingleThreadExecutor(new DefaultThreadFactory("neptune-" + node + "-admin", true));
        AdminHttpHandler handler = new AdminHttpHandler(requireNonNull(metrics, "metrics"),
                requireNonNull(health, "health"), renderer);
        ChannelFuture bound = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        channels.add(ch);
                        ChannelPipeline pipeline = ch.pipeline();
                        RequestDeadline deadline = requestTimeout.isZero() ? null
                                : new RequestDeadline(requestTimeout, AdminServer::timedOut, event -> false,
                                        AdminHttpHandler::answering);
                        if (deadline != null) {
                            // a request cut off in the read that brought a whole one is not on the clock: idleness ends it
                            pipeline.addLast("idle", new IdleStateHandler(0, 0, requestTimeout.toNanos() * 2,
                                    TimeUnit.NANOSECONDS));
                            pipeline.addLast("deadline", deadline.head());
                        }
                        pipeline.addLast("http", new HttpServerCodec())
                                .addLast("aggregator", new HttpObjectAggregator(MAX_REQUEST_BYTES));
                        if (deadline != null) {
                            pipeline.addLast("deadline-end", deadline.tail());
                        }
                        pipeline.addLast("one-at-a-time", new FlowControlHandler())
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

    private static void timedOut(Channel channel) {
        channel.writeAndFlush(AdminHttpHandler.closing(AdminHttpHandler.text(HttpResponseStatus.REQUEST_TIMEOUT,
                "the request did not arrive whole within the request timeout (frame-timeout)\n")))
                .addListener(ChannelFutureListener.CLOSE);
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
