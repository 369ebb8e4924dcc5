package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.ClusterSecret;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.Poll;
import io.neptune.core.internal.wire.PollMac;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Random polling with a cluster secret, end to end over loopback UDP: the real poller and selector
 * against three "nodes", each a real socket that answers every poll. The honest one signs its
 * replies with the cluster's secret and reports a high load; the two others claim to be idle, one
 * without a MAC, one with a MAC of another key. They answer from the very address polled, as a node
 * in the yellow page without the secret or an attacker who spoofs a node's address would, so only
 * the MAC tells them apart. Were their replies taken, every call would go to them; so the honest
 * node must be chosen every time.
 */
class PollMacSelectionTest {
    private static final Duration DEADLINE = Duration.ofSeconds(1);
    private static final int ROUNDS = 4;

    private final EventLoopGroup group = EventLoops.create("poll-mac-selection-test", 1);
    private final ClusterSecret secret = secret("the-cluster-secret-of-this-test");
    private final LoadPoller poller = new LoadPoller(group, "127.0.0.1", secret);
    private final List<Channel> nodes = new ArrayList<>();

    @AfterEach
    void close() {
        poller.close();
        nodes.forEach(node -> node.close().syncUninterruptibly());
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aNodeAnsweringWithoutOrWithAWrongMacIsNeverChosen() throws Exception {
        Replica honest = node("honest", new PollMac(secret), 50);
        Replica unsigned = node("unsigned", null, 0);
        Replica wrongKey = node("wrong-key", new PollMac(secret("not-the-cluster-secret-at-all")), 0);
        Selectors.Poller polls = (replica, service, partition, serviceClass) -> poller.poll(replica.pollAddress(),
                service, partition, serviceClass);
        ReplicaSelector selector = Selectors.randomPolling(polls, group, 3, DEADLINE, true, DEADLINE);

        for (int round = 0; round < ROUNDS; round++) {
            Replica chosen = selector.select("echo", 0, List.of(unsigned, honest, wrongKey)).get(10, TimeUnit.SECONDS);
            assertThat(chosen.node()).as("round %d", round).isEqualTo(honest.node());
        }
        assertThat(poller.unauthenticatedReplies()).as("the unsigned node's replies").isEqualTo(ROUNDS);
        assertThat(poller.badMacReplies()).as("the wrong key's replies").isEqualTo(ROUNDS);
    }

    @Test
    void withoutASecretAForgerFromThePolledAddressWins() throws Exception {
        // What the MAC prevents: without a secret every reply from the polled address is taken.
        Replica honest = node("honest", null, 50);
        Replica forger = node("forger", null, 0);
        try (LoadPoller plain = new LoadPoller(group, "127.0.0.1")) {
            Selectors.Poller polls = (replica, service, partition, serviceClass) -> plain.poll(replica.pollAddress(),
                    service, partition, serviceClass);
            ReplicaSelector selector = Selectors.randomPolling(polls, group, 2, DEADLINE, true, DEADLINE);

            Replica chosen = selector.select("echo", 0, List.of(forger, honest)).get(10, TimeUnit.SECONDS);
            assertThat(chosen.node()).isEqualTo(forger.node());
        }
    }

    /** A socket that answers every poll with {@code load}: with a MAC by {@code mac}, or without one if null. */
    private Replica node(String name, @Nullable PollMac mac, int load) {
        Channel channel = new Bootstrap().group(group).channel(NioDatagramChannel.class)
                .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
                        ByteBuf poll = packet.content();
                        Poll.Reply reply = new Poll.Reply(Poll.decodeRequest(poll.duplicate()).pollId(), load, 0);
                        ByteBuf out = ctx.alloc().buffer(48);
                        if (mac != null) {
                            mac.encodeReply(poll, reply, out);
                        } else {
                            Poll.encode(reply, true, out);
                        }
                        ctx.writeAndFlush(new DatagramPacket(out, packet.sender()));
                    }
                })
                .bind(new InetSocketAddress("127.0.0.1", 0)).syncUninterruptibly().channel();
        nodes.add(channel);
        InetSocketAddress address = (InetSocketAddress) channel.localAddress();
        return new Replica(NodeId.of(name), address, address, 0, ReplicaRole.SECONDARY, 0, load);
    }

    private static ClusterSecret secret(String value) {
        return ClusterSecret.fromEnvironment(Map.of(ClusterSecret.ENVIRONMENT_VARIABLE, value)).orElseThrow();
    }
}
