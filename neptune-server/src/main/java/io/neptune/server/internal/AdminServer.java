package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.internal.RequestDeadline;
import io.neptune.core.internal.tls.TlsContext;
import io.neptune.server.internal.security.AdminToken;
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
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's admin port: HTTP/1.1 (HTTPS when given a {@link TlsContext}) on the node's bind
 * address, serving {@code GET /metrics} (Prometheus text), {@code /health/live},
 * {@code /health/ready} and {@code /health} (both: 200 when ready, else 503 with the replicas that
 * do not serve yet) through {@link AdminHttpHandler}. It shares the node's event loops; health
 * answers are built there, {@code /metrics} on one thread of its own ({@link MetricsRenderer}: one
 * render answers every scrape waiting for it).
 *
 * <p>A connection is answered one request at a time: the next is read only once the answer before
 * it was written out (auto-read off, a {@link FlowControlHandler} handing over one request per
 * read), so a client that sends many requests and reads none holds one answer here, not one per
 * request. A request whose first bytes arrived must be whole within the request timeout, or it is
 * answered 408 and the connection closed, and a connection idle for twice that is closed (zero: no
 * limit).
 *
 * <p>Health probes keep their places ({@link AdminConnections}): at most {@code maxConnections}
 * connections, of which {@code healthReserve} never hold a {@code /metrics} answer, a new
 * connection taking over an idle one when all are open. So however many clients scrape, and
 * however slowly they read, {@code /health/live} is answered at once.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(AdminServer.class);

    /** Largest request accepted: the routes take no body. */
    static final int MAX_REQUEST_BYTES = 8 * 1024;

    /** Default for {@link Settings#maxConnections()}: {@value}. */
    public static final int DEFAULT_MAX_CONNECTIONS = 64;

    /** Default for {@link Settings#healthReserve()}: {@value} places that never hold a {@code /metrics} answer. */
    public static final int DEFAULT_HEALTH_RESERVE = 16;

    private final Channel serverChannel;
    private final ScheduledThreadPoolExecutor renderer;
    private final AdminConnections connections;
    private final AdminHttpHandler handler;
    private final boolean tls;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

    /**
     * How the admin port serves.
     *
     * @param requestTimeout how long a request whose first bytes arrived may take to arrive whole; zero: no limit
     * @param token the bearer token every route but {@code /health/*} asks for; {@code null}: none asked
     * @param tls serves HTTPS with this context (which must not require client certificates: probes
     *     have none); {@code null}: plain HTTP
     * @param maxConnections connections open at once
     * @param healthReserve of {@code maxConnections}, how many never hold a {@code /metrics} answer
     */
    public record Settings(Duration requestTimeout, @Nullable AdminToken token, @Nullable TlsContext tls,
            int maxConnections, int healthReserve) {
        /** Validates the fields. */
        public Settings {
            requireNonNull(requestTimeout, "requestTimeout");
            if (requestTimeout.isNegative()) {
                throw new IllegalArgumentException("requestTimeout: " + requestTimeout + " (expected: >= 0)");
            }
            if (healthReserve < 1 || healthReserve >= maxConnections) {
                throw new IllegalArgumentException("maxConnections: " + maxConnections + ", healthReserve: "
                        + healthReserve + " (expected: 1 <= healthReserve < maxConnections)");
            }
        }

        /** Plain HTTP, no token, the default caps. */
        public static Settings of(Duration requestTimeout) {
            return new Settings(requestTimeout, null, null, DEFAULT_MAX_CONNECTIONS, DEFAULT_HEALTH_RESERVE);
        }

        /** These settings asking for {@code token}. */
        public Settings withToken(@Nullable AdminToken token) {
            return new Settings(requestTimeout, token, tls, maxConnections, healthReserve);
        }

        /** These settings serving HTTPS with {@code tls}. */
        public Settings withTls(@Nullable TlsContext tls) {
            return new Settings(requestTimeout, token, tls, maxConnections, healthReserve);
        }

        /** These settings with other caps. */
        public Settings withCaps(int maxConnections, int healthReserve) {
            return new Settings(requestTimeout, token, tls, maxConnections, healthReserve);
        }
    }

    /** Binds the admin port at {@code bindAddress:port} (0 picks a free port). */
    public AdminServer(NodeId node, EventLoopGroup group, String bindAddress, int port, Settings settings,
            NodeMetrics metrics, Supplier<Health> health) {
        requireNonNull(node, "node");
        requireNonNull(settings, "settings");
        this.tls = settings.tls() != null;
        this.connections = new AdminConnections(settings.maxConnections(), settings.healthReserve(),
                AdminHttpHandler::answering);
        requireNonNull(metrics, "metrics");
        this.renderer = new ScheduledThreadPoolExecutor(1, new DefaultThreadFactory("neptune-" + node + "-admin", true));
        renderer.setKeepAliveTime(1, TimeUnit.MINUTES);
        renderer.allowCoreThreadTimeOut(true);
        this.handler = new AdminHttpHandler(requireNonNull(health, "health"), new MetricsRenderer(
                () -> metrics.scrape().getBytes(StandardCharsets.UTF_8), renderer), connections, settings.token());
        ChannelFuture bound = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.AUTO_READ, false)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (!connections.admit(ch)) {
                            logger.debug("{}: NEP-SEC-062 closed an admin connection from {}: every place has an"
                                    + " answer in progress", node, ch.remoteAddress());
                            ch.close();
                            return;
                        }
                        channels.add(ch);
                        initPipeline(ch, settings);
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

    private void initPipeline(SocketChannel ch, Settings settings) {
        ChannelPipeline pipeline = ch.pipeline();
        TlsContext context = settings.tls();
        if (context != null) {
            pipeline.addLast("tls", context.newServerHandler(ch.alloc()));
        }
        Duration requestTimeout = settings.requestTimeout();
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

    private static void timedOut(Channel channel) {
        channel.writeAndFlush(AdminHttpHandler.closing(AdminHttpHandler.text(HttpResponseStatus.REQUEST_TIMEOUT,
                "the request did not arrive whole within the request timeout (frame-timeout)\n")))
                .addListener(ChannelFutureListener.CLOSE);
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Whether it serves HTTPS. */
    public boolean isTls() {
        return tls;
    }

    /** Connections closed as they were accepted: every place had an answer in progress. */
    public long refusedConnections() {
        return connections.refused();
    }

    /** Idle connections closed to make room for a new one. */
    public long evictedConnections() {
        return connections.evicted();
    }

    /** {@code /metrics} requests answered 503: every place for one had an answer in progress. */
    public long busyRefusals() {
        return connections.busyRefused();
    }

    /** Requests refused 401 (no bearer token). */
    public long unauthenticated() {
        return handler.unauthenticated();
    }

    /** Requests refused 403 (a wrong bearer token). */
    public long forbidden() {
        return handler.forbidden();
    }

    /** {@code /metrics} answers in progress; for tests. */
    int busyAnswers() {
        return connections.busy();
    }

    /** Open connections; for tests. */
    int openConnections() {
        return connections.open();
    }

    /** Stops accepting and closes every connection; idempotent. */
    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
        channels.close().awaitUninterruptibly();
        renderer.shutdown();
    }
}
