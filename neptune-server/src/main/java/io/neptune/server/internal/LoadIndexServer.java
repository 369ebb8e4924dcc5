package io.neptune.server.internal;

import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.Poll;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers UDP load polls with the polled service's load index (active + queued requests) and the
 * partition's version, on the event loop without blocking (the counters are atomics). Polls for a
 * service or partition not hosted here are answered with load -1; malformed datagrams are dropped.
 *
 * <p>Thread-safety: thread-safe.
 */
public final class LoadIndexServer implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(LoadIndexServer.class);

    private final Channel channel;

    /** Binds the server to {@code bindAddress:port} (0 picks a free port). */
    public LoadIndexServer(NodeId node, EventLoopGroup group, String bindAddress, int port,
            Map<String, ServiceRuntime> services) {
        Map<String, ServiceRuntime> byName = Map.copyOf(services);
        ChannelFuture bound = new Bootstrap()
                .group(group)
                .channel(NioDatagramChannel.class)
                .handler(new SimpleChannelInboundHandler<DatagramPacket>() {
                    @Override
                    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
                        Poll.Request poll;
                        try {
                            poll = Poll.decodeRequest(packet.content());
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
                        ByteBuf reply = ctx.alloc().buffer(32);
                        Poll.encode(new Poll.Reply(poll.pollId(), load, 0, classLoad), poll.namesClass(), reply);
                        ctx.writeAndFlush(new DatagramPacket(reply, packet.sender()), ctx.voidPromise());
                    }
                })
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

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
    }
}
