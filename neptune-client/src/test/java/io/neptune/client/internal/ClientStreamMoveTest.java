package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.Frames;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
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
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How a client's output stream moves off a replica whose connection broke, against scripted
 * replicas on real loopback sockets that take stream REQUESTs and send nothing.
 */
class ClientStreamMoveTest {
    private static final String SERVICE = "svc";

    private final EventLoopGroup group = EventLoops.create("client-stream-move-test", 2);
    private final AtomicInteger opened = new AtomicInteger();
    private final List<Channel> servers = new ArrayList<>();
    private final List<DefaultNeptuneClient> clients = new ArrayList<>();

    record Range(int count) {}

    record Item(int n) {}

    @AfterEach
    void stop() {
        clients.forEach(DefaultNeptuneClient::close);
        servers.forEach(s -> s.close().syncUninterruptibly());
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /**
     * A broken connection is reported twice (the handler's failAll and the REQUEST's write listener):
     * the stream must move once. It moved twice, so two replicas ran it (a resumable stream then
     * delivered items twice) and the healthy replica of the first move counted as failed.
     */
    @Test
    void aConnectionLostReportedTwiceMovesTheStreamOnce() throws Exception {
        DefaultNeptuneClient client = client(List.of(replica(), replica(), replica()));
        ClientStream<?> stream = (ClientStream<?>) client.openStream(NeptuneHandle.create(), SERVICE, 0, "produce",
                new Range(10), Item.class, CallOptions.timeout(Duration.ofSeconds(30)));
        stream.subscribe(new Flow.Subscriber<Object>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Object item) {}

            @Override
            public void onError(Throwable throwable) {}

            @Override
            public void onComplete() {}
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> opened.get() == 1 && stream.channel() != null);
        Channel serving = stream.channel();

        serving.eventLoop().submit(() -> {
            stream.connectionLost(serving, "failAll");
            stream.connectionLost(serving, "the REQUEST's write listener");
        }).get(10, TimeUnit.SECONDS);

        await().atMost(Duration.ofSeconds(10)).until(() -> opened.get() >= 2);
        await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(5)).until(() -> opened.get() == 2);
    }

    /**
     * A replica that answers NOT_HOSTED (the yellow page is behind a partition's move) did not run
     * the stream: it moves to another replica, as a call does. It failed at once.
     */
    @Test
    void aStreamRefusedAsNotHostedMovesToAnotherReplica() throws Exception {
        int refusing = replica((request, channel) -> channel.writeAndFlush(new ResponseMessage(request.requestId(),
                Status.NOT_HOSTED, 0, "moved away".getBytes(StandardCharsets.UTF_8))));
        int serving = replica((request, channel) -> channel.writeAndFlush(ResponseMessage.ok(request.requestId(), 0,
                new byte[0])));
        DefaultNeptuneClient client = client(List.of(refusing, serving));
        for (int i = 0; i < 12; i++) { // whichever replica each picks first
            CompletableFuture<Void> done = new CompletableFuture<>();
            client.openStream(NeptuneHandle.create(), SERVICE, 0, "produce", new Range(0), Item.class,
                    CallOptions.timeout(Duration.ofSeconds(30))).subscribe(new Flow.Subscriber<Item>() {
                        @Override
                        public void onSubscribe(Flow.Subscription subscription) {
                            subscription.request(Long.MAX_VALUE);
                        }

                        @Override
                        public void onNext(Item item) {}

                        @Override
                        public void onError(Throwable throwable) {
                            done.completeExceptionally(throwable);
                        }

                        @Override
                        public void onComplete() {
                            done.complete(null);
                        }
                    });
            done.get(10, TimeUnit.SECONDS);
        }
    }

    /** A replica on loopback that takes stream REQUESTs, counting them, and never answers. */
    private int replica() {
        return replica((request, channel) -> { });
    }

    /** A replica on loopback that hands each stream REQUEST to {@code onRequest}, counting them. */
    private int replica(BiConsumer<RequestMessage, Channel> onRequest) {
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        Frames.install(ch.pipeline(), 1 << 20);
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<RequestMessage>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, RequestMessage request) {
                                if (request.isStream()) {
                                    opened.incrementAndGet();
                                    onRequest.accept(request, ctx.channel());
                                }
                            }
                        });
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        servers.add(server);
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /** A client whose yellow page shows one node per port, each a secondary of partition 0 of a level-2 service. */
    private DefaultNeptuneClient client(List<Integer> ports) {
        YellowPage page = new YellowPage(NodeId.of("client"), Duration.ofMinutes(1), System::nanoTime);
        for (int i = 0; i < ports.size(); i++) {
            int port = ports.get(i);
            page.update(new Announcement("ghost-" + i, "127.0.0.1", port, port, ProcessHandle.current().pid(), 1,
                    System.nanoTime(), 0, List.of(new Announcement.HostedService(SERVICE, 1, 0,
                            List.of(new Announcement.ReplicaState(0, 1, ReplicaRole.SECONDARY, 0, 1, 0, 1, 0)),
                            ConsistencyLevel.LEVEL_2, 0))));
        }
        DefaultNeptuneClient client = new DefaultNeptuneClient(NodeId.of("client"), ClientConfig.builder()
                .timeout(Duration.ofSeconds(30)).build(), page, group, "127.0.0.1", null, new LoadTracker(), List.of());
        clients.add(client);
        return client;
    }
}
