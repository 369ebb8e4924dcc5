package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.Frames;
import io.neptune.core.internal.wire.MessageDecoder;
import io.neptune.core.internal.wire.Metadata;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.core.internal.wire.WireFormat;
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

/**
 * Wire-version negotiation over real loopback connections: a call that carries metadata first asks
 * the node its version, and reaches a node of version 2 with its metadata and one of version 1 (which
 * refuses version-2 frames and knows no hello) without it, on the same connection, in order; calls
 * without metadata never ask.
 */
class WireNegotiationTest {
    private static final Metadata TRACE = Metadata.NONE.with("traceparent",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");

    private final EventLoopGroup group = EventLoops.create("wire-test", 2);
    private final List<RequestMessage> received = new CopyOnWriteArrayList<>();
    private final List<Channel> servers = new ArrayList<>();

    @AfterEach
    void stop() {
        servers.forEach(s -> s.close().syncUninterruptibly());
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    /**
     * A node on loopback that reads frames up to {@code version} and answers every request with its
     * payload; as a node of version 1 it knows no {@code $wire} service, and one of version 2 answers
     * the hello as the node's router does.
     */
    private Replica node(int version) {
        Channel server = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        Frames.install(ch.pipeline(), 1 << 20);
                        if (version == WireFormat.VERSION_1) {
                            ch.pipeline().replace(Frames.MESSAGE_DECODER, Frames.MESSAGE_DECODER,
                                    MessageDecoder.VERSION_1_ONLY);
                        }
                        ch.pipeline().addLast(new SimpleChannelInboundHandler<RequestMessage>() {
                            @Override
                            protected void channelRead0(ChannelHandlerContext ctx, RequestMessage request) {
                                received.add(request);
                                ctx.writeAndFlush(answer(request, version));
                            }
                        });
                    }
                }).bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        servers.add(server);
        return new Replica(NodeId.of("v" + version), (InetSocketAddress) server.localAddress(),
                new InetSocketAddress("127.0.0.1", 1), 0, ReplicaRole.SECONDARY, 0, 0);
    }

    private static ResponseMessage answer(RequestMessage request, int version) {
        if (request.service().equals(WireFormat.HELLO_SERVICE)) {
            return version == WireFormat.VERSION_1
                    ? ResponseMessage.error(request.requestId(), Status.UNKNOWN_SERVICE, "no service $wire")
                    : ResponseMessage.ok(request.requestId(), version, new byte[0]);
        }
        return ResponseMessage.ok(request.requestId(), 0, request.payload());
    }

    private ConnectionPool pool() {
        YellowPage yellowPage = new YellowPage(NodeId.of("client"), Duration.ofSeconds(5), System::nanoTime);
        return new ConnectionPool(new Connector(group, Duration.ofSeconds(5), 1 << 20,
                new ClientTls(SecurityConfig.disabled(), yellowPage)), yellowPage, 2);
    }

    private static RequestMessage call(String payload, Metadata metadata) {
        return new RequestMessage(0, "svc", 0, "m", AccessMode.WRITE, 5000, 0, RequestId.NONE,
                payload.getBytes(StandardCharsets.UTF_8)).withMetadata(metadata);
    }

    /** Sends 100 calls on one connection, the first without metadata and the rest with; waits for all. */
    private List<String> sendInOrder(ConnectionPool pool, Replica node) {
        List<CompletableFuture<ResponseMessage>> answers = new ArrayList<>();
        List<String> sent = IntStream.range(0, 100).mapToObj(i -> "call-" + i).toList();
        for (String payload : sent) {
            answers.add(pool.sendOrdered(node, call(payload, payload.equals("call-0") ? Metadata.NONE : TRACE), 3));
        }
        for (CompletableFuture<ResponseMessage> answer : answers) {
            assertThat(answer.orTimeout(20, TimeUnit.SECONDS).join().status()).isEqualTo(Status.OK);
        }
        return sent;
    }

    private List<String> payloadsOf(String service) {
        return received.stream().filter(r -> r.service().equals(service))
                .map(r -> new String(r.payload(), StandardCharsets.UTF_8)).toList();
    }

    @Test
    void aNodeOfVersionTwoGetsTheMetadataAfterOneHelloAndTheCallsInTheirOrder() {
        ConnectionPool pool = pool();
        try {
            List<String> sent = sendInOrder(pool, node(WireFormat.VERSION_2));

            assertThat(received).filteredOn(r -> r.service().equals(WireFormat.HELLO_SERVICE)).hasSize(1);
            assertThat(payloadsOf("svc")).containsExactlyElementsOf(sent);
            assertThat(received).filteredOn(r -> r.service().equals("svc") && r.payload().length > "call-0".length())
                    .hasSize(90).allSatisfy(r -> assertThat(r.metadata()).isEqualTo(TRACE));
        } finally {
            pool.close();
        }
    }

    @Test
    void aNodeOfVersionOneGetsTheCallsWithoutMetadataOnTheSameConnection() {
        ConnectionPool pool = pool();
        try {
            List<String> sent = sendInOrder(pool, node(WireFormat.VERSION_1));

            assertThat(payloadsOf("svc")).containsExactlyElementsOf(sent);
            assertThat(received).filteredOn(r -> r.service().equals("svc"))
                    .allSatisfy(r -> assertThat(r.metadata().isEmpty()).isTrue());
            assertThat(received).filteredOn(r -> r.service().equals(WireFormat.HELLO_SERVICE)).hasSize(1);
        } finally {
            pool.close();
        }
    }

    @Test
    void callsWithoutMetadataNeverAskTheVersion() {
        ConnectionPool pool = pool();
        try {
            Replica node = node(WireFormat.VERSION_1);
            for (int i = 0; i < 10; i++) {
                assertThat(pool.sendOrdered(node, call("plain-" + i, Metadata.NONE), 0).orTimeout(20, TimeUnit.SECONDS)
                        .join().status()).isEqualTo(Status.OK);
            }

            assertThat(received).hasSize(10).noneMatch(r -> r.service().equals(WireFormat.HELLO_SERVICE));
        } finally {
            pool.close();
        }
    }
}
