package io.neptune.server.internal.security;

import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.tls.TlsContext;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * A Netty server and client on 127.0.0.1 (an ephemeral port) with {@link TlsContext}'s handlers in
 * their pipelines: {@link #handshake} connects them and waits until both sides finished their TLS
 * handshake, well or not. Closes every channel and its event loop on {@link #close}.
 */
final class LoopbackTls implements AutoCloseable {
    private static final long TIMEOUT_SECONDS = 30;

    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    private final List<Channel> channels = new CopyOnWriteArrayList<>(); // added to by the event loop

    /** The two ends of a connection, each with its handshake done. */
    record Handshake(SslHandler server, SslHandler client) {}

    /** Connects a client of {@code clientConfig} to a server of {@code serverConfig}. */
    Handshake handshake(SecurityConfig serverConfig, SecurityConfig clientConfig) throws Exception {
        TlsContext serverTls = TlsContext.server(serverConfig).orElseThrow();
        TlsContext clientTls = TlsContext.client(clientConfig).orElseThrow();
        CompletableFuture<SslHandler> serverSide = new CompletableFuture<>();
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        channels.add(channel);
                        SslHandler handler = serverTls.newServerHandler(channel.alloc());
                        channel.pipeline().addLast(handler, new CloseOnError());
                        serverSide.complete(handler);
                    }
                })
                .bind("127.0.0.1", 0).sync().channel();
        channels.add(server);
        int port = ((InetSocketAddress) server.localAddress()).getPort();
        CompletableFuture<SslHandler> clientSide = new CompletableFuture<>();
        Channel client = new Bootstrap().group(group).channel(NioSocketChannel.class)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel channel) {
                        SslHandler handler = clientTls.newClientHandler(channel.alloc(), "127.0.0.1", port);
                        channel.pipeline().addLast(handler, new CloseOnError());
                        clientSide.complete(handler);
                    }
                })
                .connect("127.0.0.1", port).sync().channel();
        channels.add(client);
        Handshake handshake = new Handshake(serverSide.get(TIMEOUT_SECONDS, TimeUnit.SECONDS),
                clientSide.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
        for (SslHandler handler : List.of(handshake.server(), handshake.client())) {
            if (!handler.handshakeFuture().await(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                throw new AssertionError("no end to the TLS handshake within " + TIMEOUT_SECONDS + " s");
            }
        }
        return handshake;
    }

    @Override
    public void close() {
        for (Channel channel : channels) {
            channel.close().syncUninterruptibly();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /** Ends a connection whose handshake failed, without a warning that nobody handled the error. */
    private static final class CloseOnError extends ChannelInboundHandlerAdapter {
        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
