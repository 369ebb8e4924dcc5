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
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's load-polling agent: sends UDP load inquiries and matches the replies (DESIGN §5).
 *
 * <p>A reply completes a poll only if it carries the poll's id and comes from the address the poll
 * was sent to (issue 23, polls). Ids are random 64-bit numbers from a {@link SecureRandom}, so an
 * attacker who cannot read the polls cannot guess one, even by spoofing the node's address; an id is
 * never shared by two pending polls. Other replies are dropped and counted: from another address
 * ({@link #ignoredReplies()}), or with an id no pending poll has ({@link #unmatchedReplies()}: late,
 * after their poll was given up, or forged).
 *
 * <p>Thread-safety: thread-safe; replies are handled on the channel's event loop.
 */
final class LoadPoller implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(LoadPoller.class);

    private final Channel channel;
    /** Draws the poll ids; thread-safe. */
    private final SecureRandom pollIds = new SecureRandom();
    private final Map<Long, PendingPoll> pending = new ConcurrentHashMap<>();
    private final LongAdder sent = new LongAdder();
    private final LongAdder ignoredReplies = new LongAdder();
    private final LongAdder unmatchedReplies = new LongAdder();

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
        CompletableFuture<Poll.Reply> reply = new CompletableFuture<>();
        PendingPoll entry = new PendingPoll(target, reply);
        long id = register(entry);
        reply.whenComplete((r, e) -> pending.remove(id, entry));
        sent.increment();
        ByteBuf buf = channel.alloc().buffer(64);
        Poll.encode(new Poll.Request(id, service, partition, serviceClass), buf);
        channel.writeAndFlush(new DatagramPacket(buf, target)).addListener(f -> {
            if (!f.isSuccess()) {
                reply.completeExceptionally(f.cause());
            }
        });
        return reply;
    }

    /** Files {@code entry} under a random id that no other pending poll has, and returns the id. */
    private long register(PendingPoll entry) {
        long id = pollIds.nextLong();
        while (pending.putIfAbsent(id, entry) != null) {
            id = pollIds.nextLong();
        }
        return id;
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
        return sent.sum();
    }

    /** How many replies carried a pending poll's id but came from another address than the poll went to. */
    public long ignoredReplies() {
        return ignoredReplies.sum();
    }

    /** How many replies carried an id that no pending poll has: late ones (their poll was given up) or forged. */
    public long unmatchedReplies() {
        return unmatchedReplies.sum();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        pending.values().forEach(p -> p.reply().cancel(false));
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
            PendingPoll poll = pending.get(reply.pollId());
            if (poll == null) {
                unmatchedReplies.increment();
                return;
            }
            if (!poll.target().equals(packet.sender())) {
                ignoredReplies.increment();
                logger.debug("dropped a reply to poll {} from {}: the poll went to {}", reply.pollId(), packet.sender(),
                        poll.target());
                return;
            }
            // A reply's MAC (issue 23, polls: a later step) is checked here, once the sender matched.
            if (pending.remove(reply.pollId(), poll)) {
                poll.reply().complete(reply);
            }
        }
    }

    /** A poll awaiting its reply: where it went, and the future its reply completes. */
    private record PendingPoll(InetSocketAddress target, CompletableFuture<Poll.Reply> reply) {}
}
