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
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.codec.LengthFieldPrepender;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The floor for a Neptune call: a Netty TCP server on loopback that echoes length-prefixed frames,
 * and one client connection that sends frames and matches each echo to its request in order.
 * Server and client run on one event loop thread each, like the two ends of a Neptune connection.
 *
 * <p>Thread-safety: thread-safe; {@link #roundTripAsync()} may have many round trips outstanding
 * at once (the echo server answers in order on the one connection, so a FIFO matches replies).
 */
final class NettyTcpEcho implements AutoCloseable {
    private final EventLoopGroup serverGroup = group("bench-tcp-server");
    private final EventLoopGroup clientGroup = group("bench-tcp-client");
    private final byte[] payload;
    private final Channel server;
    private final Channel client;
    /** Round trips sent and not yet echoed, oldest first; touched only on the client's event loop. */
    private final ArrayDeque<CompletableFuture<Integer>> pending = new ArrayDeque<>();

    NettyTcpEcho(byte[] payload) {
        this.payload = requireNonNull(payload, "payload").clone();
        try {
            this.server = new ServerBootstrap()
                    .group(serverGroup)
                    .channel(NioServerSocketChannel.class)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 4),
                                    new LengthFieldPrepender(4), EchoBack.INSTANCE);
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0))
                    .syncUninterruptibly()
                    .channel();
            this.client = new Bootstrap()
                    .group(clientGroup)
                    .channel(NioSocketChannel.class)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .handler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            ch.pipeline().addLast(new LengthFieldBasedFrameDecoder(1 << 20, 0, 4, 0, 4),
                                    new LengthFieldPrepender(4), new Replies());
                        }
                    })
                    .connect(server.localAddress())
                    .syncUninterruptibly()
                    .channel();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Sends the payload and waits for its echo; returns the echoed byte count. */
    int roundTrip() {
        return await(roundTripAsync());
    }

    /** Sends the payload; the future completes with the echoed byte count when its echo arrives. */
    CompletableFuture<Integer> roundTripAsync() {
        CompletableFuture<Integer> reply = new CompletableFuture<>();
        if (client.eventLoop().inEventLoop()) {
            send(reply);
        } else {
            client.eventLoop().execute(() -> send(reply));
        }
        return reply;
    }

    private void send(CompletableFuture<Integer> reply) {
        assert client.eventLoop().inEventLoop();
        pending.add(reply);
        ByteBuf frame = client.alloc().buffer(payload.length).writeBytes(payload);
        client.writeAndFlush(frame, client.voidPromise());
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
        return new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name, true), NioIoHandler.newFactory());
    }

    /** Writes every frame back unchanged. */
    @Sharable
    private static final class EchoBack extends ChannelInboundHandlerAdapter {
        static final EchoBack INSTANCE = new EchoBack();

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.writeAndFlush(msg, ctx.voidPromise());
        }
    }

    /** Completes the oldest pending round trip with the echoed frame's size. */
    private final class Replies extends SimpleChannelInboundHandler<ByteBuf> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, ByteBuf frame) {
            CompletableFuture<Integer> reply = pending.poll();
            if (reply != null) {
                reply.complete(frame.readableBytes());
            }
        }
    }
}
