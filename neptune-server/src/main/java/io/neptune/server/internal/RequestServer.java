package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.client.internal.CallerGone;
import io.neptune.core.MethodDescriptor;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.internal.ReadingResumed;
import io.neptune.core.internal.wire.Frames;
import io.neptune.core.internal.wire.Message;
import io.neptune.core.internal.wire.MessageDecoder;
import io.neptune.core.internal.wire.MessageEncoder;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.core.internal.wire.StreamCancel;
import io.neptune.core.internal.wire.StreamCredit;
import io.neptune.core.internal.wire.StreamData;
import io.neptune.core.internal.wire.StreamEnd;
import io.neptune.core.internal.wire.WireFormat;
import io.neptune.server.internal.security.ConnectionLimits;
import io.neptune.server.internal.security.ConnectionSecurity;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.DecoderException;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.lang.reflect.Type;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's TCP request server: frames in, {@link Router}, responses out. A malformed,
 * truncated, oversize or unknown frame gets a PROTOCOL_ERROR response naming the problem and the
 * connection is closed; other connections are unaffected, and so is a frame that is not whole
 * within the frame timeout. A request with the stream flag opens a {@link ServerStream}, registered
 * per connection by request id, which the stream frames reach.
 *
 * <p>A connection whose answers pile up unread (its outbound buffer over Netty's high water mark)
 * is not read from until they drain: the frames of the read burst that filled it are held, in
 * order, and run when it is writable again. So a client that sends and never reads stops the
 * server reading it, through TCP's flow control, instead of growing the server's memory with
 * answers it does not take.
 *
 * <p>Thread-safety: thread-safe; handlers run on event loops, responses are written from workers.
 */
public final class RequestServer implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(RequestServer.class);

    /** Marks a connection that sent a bad frame: it is being closed and nothing more from it runs. */
    private static final AttributeKey<Boolean> REJECTED = AttributeKey.valueOf("neptune.rejected");

    /** Frames of a connection that arrived while its answers piled up, in order (created at the first). */
    private static final AttributeKey<ArrayDeque<Message>> HELD = AttributeKey.valueOf("neptune.held");

    /** The open streams of a connection, by request id (created at its first stream). */
    private static final AttributeKey<Map<Long, ServerStream>> STREAMS = AttributeKey.valueOf("neptune.streams");

    /**
     * The context the calls of a connection are routed in (created at its first call): it carries the
     * signal that the connection closed, which ends their inner calls ({@link CallerGone}).
     */
    private static final AttributeKey<Context> CALLS = AttributeKey.valueOf("neptune.calls-context");

    /** Most threads delivering clients' stream items to services at once (a slow service holds one). */
    static final int DELIVERY_THREADS = 64;

    private final NodeId node;
    private final ConnectionSecurity security;
    private final ConnectionLimits limits;
    private final Channel serverChannel;
    /** Delivers the items of clients' input streams to the services (a slow service must not block I/O). */
    private final ExecutorService deliveries;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);

    /** Binds the server to {@code bindAddress:port} (0 picks a free port). */
    public RequestServer(NodeId node, EventLoopGroup group, String bindAddress, int port, int maxFrameBytes,
            Duration frameTimeout, Router router, ConnectionSecurity security, ConnectionLimits limits) {
        this.node = requireNonNull(node, "node");
        this.limits = requireNonNull(limits, "limits");
        this.security = requireNonNull(security, "security");
        this.deliveries = deliveryPool(node);
        Dispatcher dispatcher = new Dispatcher(router, maxFrameBytes);
        ChannelFuture bound = new ServerBootstrap()
                .group(group)
                .channel(NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                // Keep the channel writable when the peer shuts down its output, so a frame cut off
                // by end of stream can still be answered with PROTOCOL_ERROR (see Dispatcher).
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (!limits.admit(ch)) {
                            logger.debug("{}: NEP-SEC-013 closed a connection from {}: over max-connections or"
                                    + " max-connections-per-address", node, ch.remoteAddress());
                            ch.close();
                            return;
                        }
                        channels.add(ch);
                        security.install(ch);
                        Frames.install(ch.pipeline(), maxFrameBytes, frameTimeout);
                        if (router.wireVersion() == WireFormat.VERSION_1) {   // a version-2 frame is malformed to it
                            ch.pipeline().replace(Frames.MESSAGE_DECODER, Frames.MESSAGE_DECODER,
                                    MessageDecoder.VERSION_1_ONLY);
                        }
                        ch.pipeline().addLast("dispatcher", dispatcher);
                    }
                })
                .bind(new InetSocketAddress(bindAddress, port))
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            deliveries.shutdown();
            throw new NeptuneException(node + ": cannot accept requests on " + bindAddress + ":" + port
                    + " (check the settings bind-address and port): " + bound.cause(), bound.cause());
        }
        this.serverChannel = bound.channel();
    }

    /**
     * Threads that deliver clients' stream items to services, at most {@link #DELIVERY_THREADS}; items
     * of more streams than that wait their turn (each stream's deliveries run one at a time, in order).
     */
    private static ExecutorService deliveryPool(NodeId node) {
        ThreadPoolExecutor pool = new ThreadPoolExecutor(DELIVERY_THREADS, DELIVERY_THREADS, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), new DefaultThreadFactory("neptune-" + node + "-stream", true));
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return (InetSocketAddress) serverChannel.localAddress();
    }

    /** Open client connections; for tests and metrics. */
    public int connections() {
        return channels.size();
    }

    /** Bytes of answers written and not yet taken by the clients, over all connections; for tests and metrics. */
    public long outboundBytes() {
        long queued = 0;
        for (Channel channel : channels) {
            ChannelOutboundBuffer buffer = channel.unsafe().outboundBuffer();
            queued += buffer == null ? 0 : buffer.totalPendingWriteBytes();
        }
        return queued;
    }

    /** The caps on open connections. */
    public ConnectionLimits limits() {
        return limits;
    }

    /** The connections' TLS stage and callers. */
    public ConnectionSecurity security() {
        return security;
    }

    /** Open streams over all connections; for tests and metrics. */
    public int streams() {
        int open = 0;
        for (Channel channel : channels) {
            Map<Long, ServerStream> streams = channel.attr(STREAMS).get();
            open += streams == null ? 0 : streams.size();
        }
        return open;
    }

    /** Stops accepting, ends open streams with UNAVAILABLE, and closes every connection; idempotent. */
    @Override
    public void close() {
        serverChannel.close().syncUninterruptibly();
        for (Channel channel : channels) {
            Map<Long, ServerStream> streams = channel.attr(STREAMS).get();
            if (streams != null) {
                streams.values().forEach(ServerStream::shutdown);
            }
        }
        channels.close().awaitUninterruptibly();
        deliveries.shutdown();
    }

    private static Map<Long, ServerStream> streams(Channel channel) {
        Map<Long, ServerStream> streams = channel.attr(STREAMS).get();
        if (streams == null) {
            streams = new ConcurrentHashMap<>();
            Map<Long, ServerStream> raced = channel.attr(STREAMS).setIfAbsent(streams);
            if (raced != null) {
                streams = raced;
            }
        }
        return streams;
    }

    /** Routes decoded requests; answers protocol errors and closes. Stateless, hence {@link Sharable}. */
    @Sharable
    private final class Dispatcher extends SimpleChannelInboundHandler<Message> {
        private final Router router;
        private final int maxFrameBytes;

        Dispatcher(Router router, int maxFrameBytes) {
            super(Message.class);
            this.router = router;
            this.maxFrameBytes = maxFrameBytes;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
            if (ctx.channel().hasAttr(REJECTED)) {
                return; // frames decoded after a bad one on a closing connection are never run
            }
            ArrayDeque<Message> held = ctx.channel().attr(HELD).get();
            if (!ctx.channel().isWritable() || held != null && !held.isEmpty()) {
                hold(ctx, msg);
                return;
            }
            handle(ctx, msg);
        }

        /** Keeps {@code msg} for when the connection's answers drained, and stops reading until then. */
        private void hold(ChannelHandlerContext ctx, Message msg) {
            ArrayDeque<Message> held = ctx.channel().attr(HELD).get();
            if (held == null) {
                held = new ArrayDeque<>();
                ctx.channel().attr(HELD).set(held);
            }
            held.add(msg);
            ctx.channel().config().setAutoRead(false);
        }

        /** Runs the held frames while the connection stays writable; reads again once none is left. */
        private void release(ChannelHandlerContext ctx) {
            Channel channel = ctx.channel();
            ArrayDeque<Message> held = channel.attr(HELD).get();
            while (held != null && !held.isEmpty() && channel.isWritable() && !channel.hasAttr(REJECTED)) {
                handle(ctx, held.poll());
            }
            if ((held == null || held.isEmpty()) && channel.isWritable() && !channel.hasAttr(REJECTED)
                    && !channel.config().isAutoRead()) {
                channel.config().setAutoRead(true);
                channel.pipeline().fireUserEventTriggered(ReadingResumed.INSTANCE);
            }
        }

        private void handle(ChannelHandlerContext ctx, Message msg) {
            if (msg instanceof ResponseMessage) {
                reject(ctx, msg.requestId(), "unexpected response frame on a request connection");
                return;
            }
            if (!(msg instanceof RequestMessage request)) {
                streamFrame(ctx, msg);
                return;
            }
            Channel channel = ctx.channel();
            if (request.isStream()) {
                openStream(ctx, request);
                return;
            }
            try (Scope scope = callerContext(channel).makeCurrent()) {
                router.route(request, ConnectionSecurity.caller(channel), response -> {
                    if (channel.isActive()) {
                        channel.writeAndFlush(fitting(request, response).withLoad(router.load(request)),
                                channel.voidPromise());
                    }
                });
            }
        }

        /** The context of the calls of {@code channel}; on its event loop. */
        private Context callerContext(Channel channel) {
            Context context = channel.attr(CALLS).get();
            if (context == null) {
                context = new CallerGone().into(Context.root());
                channel.attr(CALLS).set(context);
            }
            return context;
        }

        private void openStream(ChannelHandlerContext ctx, RequestMessage request) {
            Map<Long, ServerStream> streams = streams(ctx.channel());
            String overCap = limits.refusesStream(streams.size());
            if (overCap != null) {
                ctx.writeAndFlush(ResponseMessage.error(request.requestId(), Status.OVERLOADED, node + ": " + overCap),
                        ctx.voidPromise());
                return;
            }
            if (streams.containsKey(request.requestId())) {
                reject(ctx, request.requestId(), "stream " + request.requestId()
                        + " is already open (expected: a request id not in use on the connection)");
                return;
            }
            Optional<MethodDescriptor> method = router.method(request.service(), request.method());
            boolean resumable = method.map(MethodDescriptor::resumable).orElse(false);
            if (request.resumeFrom() > 0 && method.isPresent() && !resumable) {
                ctx.writeAndFlush(ResponseMessage.error(request.requestId(), Status.INVALID_REQUEST, request.target()
                        + " is not resumable (expected: a resumed stream only of a @Read(resumable = true) method)"),
                        ctx.voidPromise());
                return;
            }
            Type inputType = method.flatMap(MethodDescriptor::inputItem).orElse(null);
            ServerStream stream = new ServerStream(node, ctx.channel(), request, inputType, resumable, deliveries,
                    maxFrameBytes, streams);
            try (Scope scope = stream.caller().into(Context.root()).makeCurrent()) {
                router.route(request, ConnectionSecurity.caller(ctx.channel()), stream::finish, stream);
            }
        }

        /**
         * A frame of an open stream. Frames for a stream that is not open are dropped: it may have
         * ended (deadline, error) while the client's frames were on their way.
         */
        private void streamFrame(ChannelHandlerContext ctx, Message msg) {
            ServerStream stream = streams(ctx.channel()).get(msg.requestId());
            if (stream == null) {
                return;
            }
            if (msg instanceof StreamCredit credit) {
                stream.credit(credit.items());
            } else if (msg instanceof StreamCancel cancel) {
                stream.cancelledByClient(cancel.reason());
            } else if (msg instanceof StreamData data) {
                if (!stream.data(data)) {
                    reject(ctx, msg.requestId(), "stream " + msg.requestId() + ": DATA beyond the credit granted, or"
                            + " for a stream that takes no input (expected: at most the credit of a bidirectional"
                            + " stream)");
                }
            } else if (msg instanceof StreamEnd end && !stream.end(end)) {
                reject(ctx, msg.requestId(), "stream " + msg.requestId() + ": END for a stream that takes no input"
                        + " (expected: only for a bidirectional stream)");
            }
        }

        @Override
        public void channelWritabilityChanged(ChannelHandlerContext ctx) {
            if (ctx.channel().isWritable()) {
                Map<Long, ServerStream> streams = ctx.channel().attr(STREAMS).get();
                if (streams != null) {
                    streams.values().forEach(ServerStream::resume);
                }
                release(ctx);
            } else {
                ctx.channel().config().setAutoRead(false);
            }
            ctx.fireChannelWritabilityChanged();
        }

        @Override
        public void channelInactive(ChannelHandlerContext ctx) {
            ArrayDeque<Message> held = ctx.channel().attr(HELD).get();
            if (held != null) {
                held.clear(); // their client is gone: nobody takes their answers
            }
            Map<Long, ServerStream> streams = ctx.channel().attr(STREAMS).get();
            if (streams != null) {
                streams.values().forEach(ServerStream::connectionClosed);
            }
            Context calls = ctx.channel().attr(CALLS).get();
            if (calls != null) {
                CallerGone.in(calls).signal("its connection closed");
            }
            ctx.fireChannelInactive();
        }

        /**
         * {@code response}, or an error in its place when it is over the frame limit: the client
         * would close the connection on it and fail every other call in flight there.
         */
        private ResponseMessage fitting(RequestMessage request, ResponseMessage response) {
            long length = MessageEncoder.wireLength(response);
            if (length <= maxFrameBytes) {
                return response;
            }
            logger.warn("{}: the response to {} is {} bytes, over max-frame-size ({}); answering an error instead",
                    node, request.target(), length, maxFrameBytes);
            return ResponseMessage.error(response.requestId(), Status.METHOD_FAILED, "the response of "
                    + request.target() + " is " + length + " bytes (expected: at most max-frame-size, " + maxFrameBytes
                    + " bytes); the method ran, only its answer was dropped");
        }

        /**
         * The peer shut down its output. A partial frame has already failed in the frame decoder
         * and is answered by {@link #exceptionCaught}; otherwise close, as on a full close.
         */
        @Override
        public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
            if (event instanceof ChannelInputShutdownEvent) {
                ctx.close();
            } else {
                ctx.fireUserEventTriggered(event);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof DecoderException) {
                String problem = cause.getCause() != null ? cause.getCause().getMessage() : cause.getMessage();
                logger.warn("{}: bad frame from {}: {}; closing the connection", node, ctx.channel().remoteAddress(),
                        problem);
                reject(ctx, 0, "bad frame: " + problem);
            } else {
                logger.debug("{}: connection {} failed: {}", node, ctx.channel().remoteAddress(), cause.toString());
                ctx.close();
            }
        }

        private void reject(ChannelHandlerContext ctx, long requestId, String message) {
            if (ctx.channel().attr(REJECTED).setIfAbsent(Boolean.TRUE) != null) {
                return;
            }
            ctx.channel().config().setAutoRead(false);
            ctx.writeAndFlush(ResponseMessage.error(requestId, Status.PROTOCOL_ERROR, message))
                    .addListener(ChannelFutureListener.CLOSE);
        }
    }
}
