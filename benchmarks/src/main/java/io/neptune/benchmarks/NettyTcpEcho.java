package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.handler.flush.FlushConsolidationHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The floor for a Neptune call: a Netty TCP server on loopback that echoes length-prefixed frames,
 * and {@code connections} client connections that send frames and match each echo to its request
 * in order. Client and server have as many event loop threads as there are connections, so each
 * connection has a thread of its own at each end, like Neptune's connections between two nodes.
 *
 * <p>Both ends flush the way Neptune's pipelines do ({@code Frames.install} in neptune-core): a
 * {@link FlushConsolidationHandler} with the same settings at the head of each pipeline, so the
 * echoes written while the server reads a burst of requests leave in one write at the end of the
 * burst, and so do the requests a client sends from the completions of earlier echoes. Without it
 * (as until issue 26) every frame paid a system call of its own, and Neptune, which consolidates,
 * beat its own floor at 64 callers.
 *
 * <p>A call goes out on the connection owned by the calling thread's event loop if there is one (a
 * closed loop's next call, sent from the completion of the previous one), else on the next
 * connection in turn; Neptune's connection pool chooses the same way.
 *
 * <p>Thread-safety: thread-safe; {@link #roundTripAsync()} may have many round trips outstanding
 * at once (the echo server answers in order on each connection, so a FIFO per connection matches
 * replies).
 */
final class NettyTcpEcho implements AutoCloseable {
    /** Flushes asked for during one read burst beyond which one goes out anyway: Neptune's {@code Frames}. */
    static final int FLUSHES_PER_READ = 256;

    private final EventLoopGroup serverGroup;
    private final EventLoopGroup clientGroup;
    private final byte[] payload;
    private final Channel server;
    private final List<Connection> connections = new ArrayList<>();
    private final AtomicInteger next = new AtomicInteger();

    /** One connection, as the JMH benchmarks and the call-path profile use. */
    NettyTcpEcho(byte[] payload) {
        this(payload, 1);
    }

    /** {@code connections} connections, each with an event loop thread of its own at both ends. */
    NettyTcpEcho(byte[] payload, int connections) {
        if (connections < 1) {
            throw new IllegalArgumentException("connections: " + connections + " (expected: >= 1)");
        }
        this.payload = requireNonNull(payload, "payload").clone();
        this.serverGroup = group("bench-tcp-server", connections);
        this.clientGroup = group("bench-tcp-client", connections);
        try {
            this.server = new ServerBootstrap()
                    .group(serverGroup)
                    .channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            frames(ch.pipeline()).addLast(EchoBack.INSTANCE);
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0))
                    .syncUninterruptibly()
                    .channel();
            for (int i = 0; i < connections; i++) {
                ArrayDeque<CompletableFuture<Integer>> pending = new ArrayDeque<>();
                Replies replies = new Replies(pending);
                Channel channel = new Bootstrap()
                        .group(clientGroup)
                        .channel(NioSocketChannel.class)
                        .option(ChannelOption.TCP_NODELAY, true)
                        .handler(new ChannelInitializer<SocketChannel>() {
                            @Override
                            protected void initChannel(SocketChannel ch) {
                                frames(ch.pipeline()).addLast(replies);
                            }
                        })
                        .connect(server.localAddress())
                        .syncUninterruptibly()
                        .channel();
                this.connections.add(new Connection(channel, pending));
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Flush consolidation and length-prefixed frames, as in Neptune's pipelines. */
    private static ChannelPipeline frames(ChannelPipeline pipeline) {
        return pipeline.addLast(new FlushConsolidationHandler(FLUSHES_PER_READ, true),
                new LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 4), new LengthFieldPrepender(4));
    }

    /** The number of client connections. */
    int connections() {
        return connections.size();
    }

    /** Sends the payload and waits for its echo; returns the echoed byte count. */
    int roundTrip() {
        return await(roundTripAsync());
    }

    /** Sends the payload; the future completes with the echoed byte count when its echo arrives. */
    CompletableFuture<Integer> roundTripAsync() {
        return roundTripAsync(payload);
    }

    /** Sends {@code body} (not copied: do not change it); the future completes with the echoed byte count. */
    CompletableFuture<Integer> roundTripAsync(byte[] body) {
        CompletableFuture<Integer> reply = new CompletableFuture<>();
        Connection connection = connection();
        Channel channel = connection.channel;
        if (channel.eventLoop().inEventLoop()) {
            connection.send(body, reply);
        } else {
            channel.eventLoop().execute(() -> connection.send(body, reply));
        }
        return reply;
    }

    /** The calling thread's own connection if it is a client event loop, else the next in turn. */
    private Connection connection() {
        for (Connection connection : connections) {
            if (connection.channel.eventLoop().inEventLoop()) {
                return connection;
            }
        }
        return connections.get(Math.floorMod(next.getAndIncrement(), connections.size()));
    }

    @Override
    public void close() {
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Waits for {@code reply}; a lost datagram or a dead connection fails the benchmark instead of hanging it. */
    static int await(CompletableFuture<Integer> reply) {
        try {
            return reply.get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for an echo", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("no echo within 5 s: " + e, e);
        }
    }

    static EventLoopGroup group(String name) {
        return group(name, 1);
    }

    private static EventLoopGroup group(String name, int threads) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true),
                NioIoHandler.newFactory());
    }

    /** Writes every frame back unchanged; the flush goes out at the end of the read burst. */
    @Sharable
    private static final class EchoBack extends ChannelInboundHandlerAdapter {
        static final EchoBack INSTANCE = new EchoBack();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg, ctx.voidPromise());
        }
    }

    /**
     * One client connection and its round trips sent and not yet echoed, oldest first; the queue is
     * touched only on the connection's event loop.
     */
    private record Connection(Channel channel, ArrayDeque<CompletableFuture<Integer>> pending) {
        void send(byte[] body, CompletableFuture<Integer> reply) {
            assert channel.eventLoop().inEventLoop();
            pending.add(reply);
            ByteBuf frame = channel.alloc().buffer(body.length).writeBytes(body);
            channel.writeAndFlush(frame, channel.voidPromise());
        }
    }

    /** Completes the oldest pending round trip of one connection with the echoed frame's size. */
    private static final class Replies extends SimpleChannelInboundHandler<ByteBuf> {
        private final ArrayDeque<CompletableFuture<Integer>> pending;

        Replies(ArrayDeque<CompletableFuture<Integer>> pending) {
            this.pending = pending;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            CompletableFuture<Integer> reply = pending.poll();
            if (reply != null) {
                reply.complete(frame.readableBytes());
            }
        }
    }
}
