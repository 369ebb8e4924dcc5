package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.Frames;
import io.neptune.core.internal.wire.Message;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The connection pool against a real loopback server. */
class ConnectionPoolTest {
    private final EventLoopGroup group = EventLoops.create("pool-test", 2);
    private final List<String> received = new CopyOnWriteArrayList<>();
    private final Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
            .childHandler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    Frames.install(ch.pipeline(), 1 << 20);
                    ch.pipeline().addLast(new SimpleChannelInboundHandler<Message>() {
                        @Override
                        protected void channelRead0(ChannelHandlerContext ctx, Message msg) {
                            RequestMessage request = (RequestMessage) msg;
                            received.add(new String(request.payload(), StandardCharsets.UTF_8));
                            ctx.writeAndFlush(ResponseMessage.ok(request.requestId(), 0, request.payload()));
                        }
                    });
                }
            }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();

    @AfterEach
    void stop() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void requestsWithOneAffinitySentWhileConnectingArriveInTheirOrder() {
        NodeId node = NodeId.of("server");
        YellowPage yellowPage = new YellowPage(NodeId.of("client"), Duration.ofSeconds(5), System::nanoTime);
        ConnectionPool pool = new ConnectionPool(new Connector(group, Duration.ofSeconds(5), 1 << 20,
                new ClientTls(SecurityConfig.disabled(), yellowPage)), yellowPage, 2);
        try {
            Replica replica = new Replica(node, (InetSocketAddress) server.localAddress(),
                    new InetSocketAddress("127.0.0.1", 1), 0, ReplicaRole.SECONDARY, 0, 0);
            List<CompletableFuture<ResponseMessage>> responses = new ArrayList<>();
            List<String> sent = IntStream.range(0, 200).mapToObj(i -> "message-" + i).toList();
            for (String payload : sent) { // the first opens the connection; the rest wait for it
                responses.add(pool.sendOrdered(replica, new RequestMessage(0, "svc", 0, "m", AccessMode.WRITE, 5000, 0,
                        RequestId.NONE, payload.getBytes(StandardCharsets.UTF_8)), 7));
            }
            CompletableFuture.allOf(responses.toArray(CompletableFuture[]::new)).orTimeout(20, TimeUnit.SECONDS).join();
            assertThat(received).containsExactlyElementsOf(sent);
        } finally {
            pool.close();
        }
    }
}
