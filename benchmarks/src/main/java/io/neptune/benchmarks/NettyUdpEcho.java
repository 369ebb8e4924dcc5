package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The floor for a load poll: a Netty UDP server on loopback that echoes each datagram to its
 * sender, and one client socket that sends one datagram at a time and waits for the echo, as
 * Neptune's load poller and load-index server do.
 *
 * <p>Thread-safety: {@link #roundTrip()} is for one caller thread at a time.
 */
final class NettyUdpEcho implements AutoCloseable {
    private final EventLoopGroup serverGroup = NettyTcpEcho.group("bench-udp-server");
    private final EventLoopGroup clientGroup = NettyTcpEcho.group("bench-udp-client");
    private final byte[] payload;
    private final Channel server;
    private final Channel client;
    private final InetSocketAddress serverAddress;
    private volatile CompletableFuture<Integer> pending = new CompletableFuture<>();

    NettyUdpEcho(byte[] payload) {
        this.payload = requireNonNull(payload, "payload").clone();
        try {
            this.server = new Bootstrap()
                    .group(serverGroup)
                    .channel(NioDatagramChannel.class)
                    .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
                            ctx.writeAndFlush(new DatagramPacket(packet.content().retain(), packet.sender()),
                                    ctx.voidPromise());
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0))
                    .syncUninterruptibly()
                    .channel();
            this.serverAddress = (InetSocketAddress) server.localAddress();
            this.client = new Bootstrap()
                    .group(clientGroup)
                    .channel(NioDatagramChannel.class)
                    .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
                            pending.complete(packet.content().readableBytes());
                        }
                    })
                    .bind(new InetSocketAddress("127.0.0.1", 0))
                    .syncUninterruptibly()
                    .channel();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Sends the payload and waits for its echo; returns the echoed byte count. */
    int roundTrip() {
        CompletableFuture<Integer> reply = new CompletableFuture<>();
        pending = reply;
        ByteBuf datagram = client.alloc().buffer(payload.length).writeBytes(payload);
        client.writeAndFlush(new DatagramPacket(datagram, serverAddress), client.voidPromise());
        return NettyTcpEcho.await(reply);
    }

    @Override
    public void close() {
        clientGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        serverGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
