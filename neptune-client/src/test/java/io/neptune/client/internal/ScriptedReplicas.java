package io.neptune.client.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.neptune.client.ClientConfig;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.Frames;
import io.neptune.core.internal.wire.RequestMessage;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;

/**
 * Replicas on real loopback sockets that answer as a test scripts them, and clients whose yellow page
 * lists them: a call's behaviour tested without a node. Close it to stop the clients, the replicas and
 * the event loops.
 */
final class ScriptedReplicas implements AutoCloseable {
    static final String SERVICE = "svc";
    static final int PARTITIONS = 4;

    private final EventLoopGroup group;
    private final AtomicInteger received = new AtomicInteger();
    private final List<Channel> servers = new ArrayList<>();
    private final List<DefaultNeptuneClient> clients = new ArrayList<>();

    ScriptedReplicas(String name) {
        group = EventLoops.create(name, 2);
    }

    EventLoopGroup group() {
        return group;
    }

    /** Requests every replica received. */
    AtomicInteger received() {
        return received;
    }

    /** A replica on loopback that hands each request to {@code onRequest}, counting them; returns its port. */
    int replica(BiConsumer<RequestMessage, Channel> onRequest) {
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        Frames.install(ch.pipeline(), 1 << 20);
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<RequestMessage>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, RequestMessage request) {
                                received.incrementAndGet();
                                onRequest.accept(request, ctx.channel());
                            }
                        });
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        servers.add(server);
        return ((InetSocketAddress) server.localAddress()).getPort();
    }

    /**
     * A client with {@code config} whose yellow page shows one node per port of a {@code level} service
     * of {@link #PARTITIONS} partitions: "ghost" (the first port, primary of every partition), then
     * "ghost-1", "ghost-2", ... (secondaries); metrics go to {@code registry}.
     */
    DefaultNeptuneClient client(ClientConfig config, ConsistencyLevel level, MeterRegistry registry, int... ports) {
        YellowPage page = page();
        for (int i = 0; i < ports.length; i++) {
            announce(page, i == 0 ? "ghost" : "ghost-" + i, ports[i], level,
                    new Held(i == 0 ? ReplicaRole.PRIMARY : ReplicaRole.SECONDARY, 1, 0, 0));
        }
        return client(config, page, registry);
    }

    /** An empty yellow page for {@link #client(ClientConfig, YellowPage, MeterRegistry)}, kept for a minute. */
    static YellowPage page() {
        return new YellowPage(NodeId.of("client"), Duration.ofMinutes(1), System::nanoTime);
    }

    /** What a scripted node announces for every partition it holds: role, epoch, version and level-3 bound. */
    record Held(ReplicaRole role, long epoch, long version, long boundVersion) {}

    /** Announces {@code node} on {@code port} holding every partition of a {@code level} service as {@code held}. */
    static void announce(YellowPage page, String node, int port, ConsistencyLevel level, Held held) {
        List<Announcement.ReplicaState> replicas = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            replicas.add(new Announcement.ReplicaState(p, 1, held.role(), held.version(), held.epoch(),
                    held.version(), held.epoch(), held.boundVersion()));
        }
        page.update(new Announcement(node, "127.0.0.1", port, port, ProcessHandle.current().pid(), 1,
                System.nanoTime(), 0, List.of(new Announcement.HostedService(SERVICE, PARTITIONS, 0, replicas, level,
                        0))));
    }

    /** A client with {@code config} whose yellow page is {@code page}; metrics go to {@code registry}. */
    DefaultNeptuneClient client(ClientConfig config, YellowPage page, MeterRegistry registry) {
        DefaultNeptuneClient client = new DefaultNeptuneClient(NodeId.of("client"), config, page, group, "127.0.0.1",
                null, new LoadTracker(), List.of(), ClientMetrics.of(registry), SecurityConfig.disabled());
        clients.add(client);
        return client;
    }

    /** {@link #client(ClientConfig, ConsistencyLevel, MeterRegistry, int...)} with its metrics recorded nowhere. */
    DefaultNeptuneClient client(ClientConfig config, ConsistencyLevel level, int... ports) {
        return client(config, level, new SimpleMeterRegistry(), ports);
    }

    @Override
    public void close() {
        clients.forEach(DefaultNeptuneClient::close);
        servers.forEach(s -> s.close().syncUninterruptibly());
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
