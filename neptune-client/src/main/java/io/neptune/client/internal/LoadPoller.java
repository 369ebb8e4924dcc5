package io.neptune.client.internal;

import io.neptune.core.internal.wire.Poll;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's load-polling agent: sends UDP load inquiries and matches the replies (DESIGN §5).
 * A reply that arrives after its poll was given up is dropped.
 *
 * <p>Thread-safety: thread-safe; replies are handled on the channel's event loop.
 */
final class LoadPoller implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(LoadPoller.class);

    private final Channel channel;
    private final AtomicLong pollIds = new AtomicLong();
    private final Map<Long, CompletableFuture<Poll.Reply>> pending = new ConcurrentHashMap<>();

    LoadPoller(EventLoopGroup group, String bindAddress) {
        this.channel = new Bootstrap()
                .group(group)
                .channel(NioDatagramChannel.class)
                .handler(new ReplyHandler())
                .bind(new InetSocketAddress(bindAddress, 0))
                .syncUninterruptibly()
                .channel();
    }

    /** Asks {@code target} for its load index of {@code service#partition}, and of {@code serviceClass} if named. */
    CompletableFuture<Poll.Reply> poll(InetSocketAddress target, String service, int partition, String serviceClass) {
        long id = pollIds.incrementAndGet();
        CompletableFuture<Poll.Reply> reply = new CompletableFuture<>();
        pending.put(id, reply);
        reply.whenComplete((r, e) -> pending.remove(id));
        ByteBuf buf = channel.alloc().buffer(64);
        Poll.encode(new Poll.Request(id, service, partition, serviceClass), buf);
        channel.writeAndFlush(new DatagramPacket(buf, target)).addListener(f -> {
            if (!f.isSuccess()) {
                reply.completeExceptionally(f.cause());
            }
        });
        return reply;
    }

    /** The event loop that sends the polls and handles their replies. */
    EventLoop eventLoop() {
        return channel.eventLoop();
    }

    /** Polls still awaiting a reply; for tests. */
    int pending() {
        return pending.size();
    }

    /** How many polls this poller sent. */
    public long sent() {
        return pollIds.get();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        pending.values().forEach(f -> f.cancel(false));
    }

    private final class ReplyHandler extends SimpleChannelInboundHandler<DatagramPacket> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            Poll.Reply reply;
            try {
                reply = Poll.decodeReply(packet.content());
            } catch (RuntimeException e) {
                logger.debug("dropped malformed poll reply from {}: {}", packet.sender(), e.getMessage());
                return;
            }
            CompletableFuture<Poll.Reply> future = pending.remove(reply.pollId());
            if (future != null) {
                future.complete(reply);
            }
        }
    }
}
