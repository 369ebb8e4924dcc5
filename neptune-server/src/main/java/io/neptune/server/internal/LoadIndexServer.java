package io.neptune.server.internal;

import io.neptune.core.ClusterSecret;
import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.Poll;
import io.neptune.core.internal.wire.PollMac;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers UDP load polls with the polled service's load index (active + queued requests) and the
 * partition's version, on the event loop without blocking: the counters are atomics, or counts the
 * class-aware scheduler publishes at every change (it never takes its lock for them; a plain FIFO
 * queue's size takes that queue's lock for the read only, never held across a service's code). Polls for a
 * service or partition not hosted here are answered with load -1; malformed datagrams are dropped.
 *
 * <p>With a {@link ClusterSecret}, a poll that carries a nonce is answered with a MAC over the poll
 * and the reply ({@link PollMac}, docs/protocols/wire.md). Polls without one are answered without a
 * MAC, as before: a load index tells little, and a client with a secret takes only replies with a
 * MAC anyway, while one without keeps working during a rolling change. A node without a secret
 * answers a poll that asks for a MAC without one (the client drops it), and says so once at WARN.
 *
 * <p>Thread-safety: thread-safe; polls are handled on the channel's event loop, which alone uses
 * the {@link PollMac}.
 */
public final class LoadIndexServer implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(LoadIndexServer.class);

    private final Channel channel;
    private final LongAdder macReplies = new LongAdder();

    /** Binds the server to {@code bindAddress:port} (0 picks a free port); answers without MACs. */
    public LoadIndexServer(NodeId node, EventLoopGroup group, String bindAddress, int port,
            Map<String, ServiceRuntime> services) {
        this(node, group, bindAddress, port, services, null);
    }

    /**
     * Binds the server to {@code bindAddress:port} (0 picks a free port); with a {@code secret}, polls
     * that ask for a MAC are answered with one.
     */
    public LoadIndexServer(NodeId node, EventLoopGroup group, String bindAddress, int port,
            Map<String, ServiceRuntime> services, @Nullable ClusterSecret secret) {
        PollHandler handler = new PollHandler(node, Map.copyOf(services), secret == null ? null : new PollMac(secret));
        ChannelFuture bound = new Bootstrap()
                .group(group)
                .channel(NioDatagramChannel.class)
                .handler(handler)
                .bind(new InetSocketAddress(bindAddress, port))
                .awaitUninterruptibly();
        if (!bound.isSuccess()) {
            throw new NeptuneException(node + ": cannot answer load polls on " + bindAddress + ":" + port
                    + " (check the settings bind-address and poll-port): " + bound.cause(), bound.cause());
        }
        this.channel = bound.channel();
    }

    /** The bound address. */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    /** How many replies went out with a MAC. */
    public long macReplies() {
        return macReplies.sum();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }

    private final class PollHandler extends SimpleChannelInboundHandler<DatagramPacket> {
        private final NodeId node;
        private final Map<String, ServiceRuntime> byName;
        private final @Nullable PollMac mac;
        private boolean warnedNoSecret;

        PollHandler(NodeId node, Map<String, ServiceRuntime> byName, @Nullable PollMac mac) {
            this.node = node;
            this.byName = byName;
            this.mac = mac;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            ByteBuf datagram = packet.content();
            Poll.Request poll;
            try {
                poll = Poll.decodeRequest(datagram.duplicate());
            } catch (RuntimeException e) {
                logger.debug("{}: dropped malformed poll from {}: {}", node, packet.sender(), e.getMessage());
                return;
            }
            ServiceRuntime runtime = byName.get(poll.service());
            int load = -1;
            int classLoad = -1;
            if (runtime != null && runtime.partitions().hosts(poll.partition())) {
                load = runtime.load();
                classLoad = poll.namesClass() ? runtime.load(poll.serviceClass()) : load;
            }
            Poll.Reply answer = new Poll.Reply(poll.pollId(), load, 0, classLoad);
            ByteBuf reply = ctx.alloc().buffer(48);
            if (poll.asksForMac() && mac != null) {
                mac.encodeReply(datagram, answer, reply);
                macReplies.increment();
            } else {
                if (poll.asksForMac() && !warnedNoSecret) {
                    warnedNoSecret = true;
                    logger.warn("{}: NEP-SEC-040 {} polls with a nonce, asking for a MAC, but this node has no cluster"
                            + " secret (security.cluster-secret-file or NEPTUNE_CLUSTER_SECRET): answering without"
                            + " one, which that client drops; logged once", node, packet.sender());
                }
                Poll.encode(answer, poll.namesClass() || poll.asksForMac(), reply);
            }
            ctx.writeAndFlush(new DatagramPacket(reply, packet.sender()), ctx.voidPromise());
        }
    }
}
