package io.neptune.examples.gateway.internal;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.client.internal.Tracing;
import io.neptune.core.NeptuneException;
import io.neptune.core.internal.RequestDeadline;
import io.neptune.core.internal.tls.TlsContext;
import io.neptune.examples.gateway.DemoControl;
import io.neptune.server.NeptuneNode;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's Netty server: pipeline {@code [tls →] idle → deadline → http-codec → aggregator → deadline-end →
 * gateway} ({@link RequestDeadline}: a request must be whole within the request timeout), the route table,
 * sessions and metrics. The implementation behind {@link io.neptune.examples.gateway.HttpGateway}.
 *
 * <p>Thread-safety: thread-safe; {@link #close()} is idempotent.
 */
public final class GatewayServer implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(GatewayServer.class);

    private final String owner;
    private final EventLoopGroup group;
    private final List<ExecutorService> demoExecutors;
    private final Channel channel;
    private final InetSocketAddress address;
    private final AtomicBoolean closed = new AtomicBoolean();

    private GatewayServer(String owner, EventLoopGroup group, List<ExecutorService> demoExecutors, Channel channel) {
        this.owner = owner;
        this.group = group;
        this.demoExecutors = demoExecutors;
        this.channel = channel;
        this.address = (InetSocketAddress) channel.localAddress();
    }

    /**
     * Binds the server and serves the routes through {@code node}'s client.
     *
     * @param demo the demo control, or null outside demo mode
     * @throws NeptuneException if the address cannot be bound
     */
    public static GatewayServer start(NeptuneNode node, GatewaySettings settings, @Nullable DemoControl demo) {
        String owner = node.node().value();
        Optional<TlsContext> tls = TlsContext.server(settings.security());
        NeptuneClient client = node.client();
        // the node's tracing: an HTTP request's span continues its traceparent, and its calls are children
        Tracing tracing = client instanceof DefaultNeptuneClient nodeClient ? nodeClient.tracing() : Tracing.OFF;
        CallOptions options = CallOptions.timeout(settings.callTimeout());
        GatewayMetrics metrics = new GatewayMetrics(List.of(DiscussionRoutes.SERVICE, AuctionRoutes.SERVICE,
                CacheRoutes.SERVICE, SearchRoutes.SERVICE, BlastRoutes.SERVICE, FrontRoutes.SERVICE), System::nanoTime);
        ExecutorService killExecutor = Executors.newSingleThreadExecutor(new DefaultThreadFactory(
                "neptune-gateway-demo-kill", true));
        ExecutorService startExecutor = Executors.newSingleThreadExecutor(new DefaultThreadFactory(
                "neptune-gateway-demo-start", true));
        List<ExecutorService> demoExecutors = List.of(killExecutor, startExecutor);
        Sessions sessions = new Sessions(settings.maxSessions());
        Router router = new Router();
        new DiscussionRoutes(client, options).register(router);
        new AuctionRoutes(client, options).register(router);
        new CacheRoutes(client, options).register(router);
        new SearchRoutes(client, options).register(router);
        new BlastRoutes(client, options, settings.blastExample()).register(router);
        new FrontRoutes(client, options).register(router);
        new AdminRoutes(node, metrics, sessions, demo, killExecutor, startExecutor).register(router);
        new WebResources().register(router);

        EventLoopGroup group = new MultiThreadIoEventLoopGroup(settings.ioThreads(),
                new DefaultThreadFactory("neptune-gateway-http", true), NioIoHandler.newFactory());
        ServerBootstrap bootstrap = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        HttpRequestHandler handler = new HttpRequestHandler(router, sessions, metrics,
                                settings.classifier(), settings.access(), tracing);
                        RequestDeadline deadline = new RequestDeadline(settings.requestTimeout(),
                                timedOut -> timedOut.pipeline().fireUserEventTriggered(HttpRequestHandler.TimedOut.INSTANCE),
                                event -> event instanceof BoundedAggregatorHandler.RefusedRequest
                                        || event instanceof BoundedAggregatorHandler.BodyDiscarded,
                                reading -> !reading.config().isAutoRead() || handler.awaitingContinue());
                        tls.ifPresent(context -> ch.pipeline().addLast("tls", context.newServerHandler(ch.alloc())));
                        ch.pipeline().addLast("idle", new IdleStateHandler(0, 0,
                                        settings.idleTimeout().toMillis(), TimeUnit.MILLISECONDS))
                                .addLast("deadline", deadline.head())
                                .addLast("http-codec", new HttpServerCodec())
                                .addLast("aggregator", new BoundedAggregatorHandler(settings.maxBodyBytes()))
                                .addLast("deadline-end", deadline.tail())
                                .addLast("gateway", handler);
                    }
                });
        try {
            Channel channel = bootstrap.bind(settings.bindAddress(), settings.port()).syncUninterruptibly().channel();
            GatewayServer server = new GatewayServer(owner, group, demoExecutors, channel);
            logger.info("{}: gateway serving {}://{}:{}/ (demo mode {}, {})", owner, tls.isPresent() ? "https" : "http",
                    settings.bindAddress(), server.address().getPort(), demo != null ? "on" : "off", settings.access());
            return server;
        } catch (Exception e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            demoExecutors.forEach(ExecutorService::shutdownNow);
            throw new NeptuneException("gateway: cannot listen on " + settings.bindAddress() + ":" + settings.port()
                    + ": " + e, e);
        }
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return address;
    }

    /** Closes the listening socket, the connections and the threads; idempotent. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
        demoExecutors.forEach(ExecutorService::shutdownNow);
        logger.info("{}: gateway stopped", owner);
    }
}
