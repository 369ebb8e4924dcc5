package io.neptune.client.internal;

import io.neptune.core.ClusterSecret;
import io.neptune.core.internal.wire.Poll;
import io.neptune.core.internal.wire.PollMac;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
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
 * <p>With a {@link ClusterSecret}, each poll also carries a fresh random nonce and asks for a reply
 * with a MAC over the poll ({@link PollMac}); a reply counts only if its MAC verifies. Dropped and
 * counted besides: a reply without a MAC ({@link #unauthenticatedReplies()}: the node has no secret,
 * or a forger), one whose MAC does not verify ({@link #badMacReplies()}: another secret, or forged),
 * and a second reply to a poll already answered ({@link #replayedReplies()}, for the last
 * {@value #ANSWERED_REMEMBERED} answered polls; an older replay counts as unmatched). Each poll is
 * completed at most once, and a reply verifies for its own poll only, so a replay is never taken.
 *
 * <p>Public only for the node's tests and benchmarks, which poll a real load-index server with it.
 *
 * <p>Thread-safety: thread-safe; replies are handled on the channel's event loop, which alone uses
 * the {@link PollMac} and the answered polls.
 */
public final class LoadPoller implements AutoCloseable {
    private static final Logger logger = LoggerFactory.getLogger(LoadPoller.class);
    /** How many answered polls are remembered to tell a replayed reply from a late one. */
    static final int ANSWERED_REMEMBERED = 1024;

    private final Channel channel;
    /** Draws the poll ids and nonces; thread-safe. */
    private final SecureRandom random = new SecureRandom();
    private final boolean macs;
    private final Map<Long, PendingPoll> pending = new ConcurrentHashMap<>();
    private final LongAdder sent = new LongAdder();
    private final LongAdder ignoredReplies = new LongAdder();
    private final LongAdder unmatchedReplies = new LongAdder();
    private final LongAdder unauthenticatedReplies = new LongAdder();
    private final LongAdder badMacReplies = new LongAdder();
    private final LongAdder replayedReplies = new LongAdder();

    /** Creates a poller that takes replies without a MAC, as before cluster secrets. */
    LoadPoller(EventLoopGroup group, String bindAddress) {
        this(group, bindAddress, null);
    }

    /** Creates a poller that, with a {@code secret}, takes only replies whose MAC verifies. */
    public LoadPoller(EventLoopGroup group, String bindAddress, @Nullable ClusterSecret secret) {
        this.macs = secret != null;
        this.channel = new Bootstrap()
                .group(group)
                .channel(NioDatagramChannel.class)
                .handler(new ReplyHandler(secret == null ? null : new PollMac(secret)))
                .bind(new InetSocketAddress(bindAddress, 0))
                .syncUninterruptibly()
                .channel();
    }

    /** Asks {@code target} for its load index of {@code service#partition}, and of {@code serviceClass} if named. */
    public CompletableFuture<Poll.Reply> poll(InetSocketAddress target, String service, int partition, String serviceClass) {
        CompletableFuture<Poll.Reply> reply = new CompletableFuture<>();
        Poll.Nonce nonce = macs ? Poll.Nonce.random(random) : null;
        ByteBuf buf = channel.alloc().buffer(64);
        long id;
        PendingPoll entry;
        try {
            do { // a random id that no other pending poll has
                id = random.nextLong();
                buf.clear();
                Poll.encode(new Poll.Request(id, service, partition, serviceClass, nonce), buf);
                entry = new PendingPoll(target, reply, macs ? ByteBufUtil.getBytes(buf) : null);
            } while (pending.putIfAbsent(id, entry) != null);
        } catch (RuntimeException e) {
            buf.release();
            return CompletableFuture.failedFuture(e);
        }
        long registered = id;
        PendingPoll registeredEntry = entry;
        reply.whenComplete((r, e) -> pending.remove(registered, registeredEntry));
        sent.increment();
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
    public int pending() {
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

    /** How many replies to a pending poll had no MAC while this poller has a cluster secret. */
    public long unauthenticatedReplies() {
        return unauthenticatedReplies.sum();
    }

    /** How many replies to a pending poll had a MAC that does not verify: another secret, or forged. */
    public long badMacReplies() {
        return badMacReplies.sum();
    }

    /** How many replies with a valid MAC answered a poll already answered: replayed (or duplicated). */
    public long replayedReplies() {
        return replayedReplies.sum();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        pending.values().forEach(p -> p.reply().cancel(false));
    }

    private final class ReplyHandler extends SimpleChannelInboundHandler<DatagramPacket> {
        private final @Nullable PollMac mac;
        /** Answered polls, by id, with the poll as sent: a reply that verifies for one is a replay. */
        private final Map<Long, byte[]> answered = new LinkedHashMap<>(64, 0.75f, false) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Long, byte[]> eldest) {
                return size() > ANSWERED_REMEMBERED;
            }
        };
        private boolean warnedUnauthenticated;
        private boolean warnedBadMac;

        ReplyHandler(@Nullable PollMac mac) {
            this.mac = mac;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
            ByteBuf content = packet.content();
            boolean hasMac = Poll.isMacReply(content);
            Poll.Reply reply;
            try {
                reply = hasMac ? Poll.decodeMacReply(content.duplicate()) : Poll.decodeReply(content.duplicate());
            } catch (RuntimeException e) {
                logger.debug("dropped malformed poll reply from {}: {}", packet.sender(), e.getMessage());
                return;
            }
            PendingPoll poll = pending.get(reply.pollId());
            if (poll == null) {
                countUnmatched(reply, hasMac, content);
                return;
            }
            if (!poll.target().equals(packet.sender())) {
                ignoredReplies.increment();
                logger.debug("dropped a reply to poll {} from {}: the poll went to {}", reply.pollId(), packet.sender(),
                        poll.target());
                return;
            }
            if (!authentic(poll, hasMac, content, packet.sender())) {
                return;
            }
            if (pending.remove(reply.pollId(), poll)) {
                byte[] sent = poll.sent();
                if (sent != null) {
                    answered.put(reply.pollId(), sent);
                }
                poll.reply().complete(reply);
            }
        }

        /** With a secret: whether the reply carries a MAC that verifies for {@code poll}; counts and logs if not. */
        private boolean authentic(PendingPoll poll, boolean hasMac, ByteBuf content, InetSocketAddress sender) {
            byte[] sent = poll.sent();
            if (mac == null || sent == null) {
                return true;
            }
            if (!hasMac) {
                unauthenticatedReplies.increment();
                warnedUnauthenticated = log(warnedUnauthenticated, "NEP-SEC-041 dropped a poll reply without a MAC"
                        + " from {}: this client has a cluster secret (does the node have none?)", sender);
                return false;
            }
            if (!mac.verify(sent, content)) {
                badMacReplies.increment();
                warnedBadMac = log(warnedBadMac, "NEP-SEC-042 dropped a poll reply from {} whose MAC does not verify"
                        + " (another cluster secret, or forged)", sender);
                return false;
            }
            return true;
        }

        /** Counts a reply to no pending poll: a replay if it verifies for a poll answered lately, else unmatched. */
        private void countUnmatched(Poll.Reply reply, boolean hasMac, ByteBuf content) {
            byte[] sent = answered.get(reply.pollId());
            if (mac != null && hasMac && sent != null && mac.verify(sent, content)) {
                replayedReplies.increment();
                logger.debug("NEP-SEC-043 dropped a replayed reply to poll {}, answered before", reply.pollId());
            } else {
                unmatchedReplies.increment();
            }
        }
    }

    /** Logs the first drop of a kind at WARN (a misconfiguration shows at once), later ones at DEBUG; returns true. */
    private static boolean log(boolean warned, String message, InetSocketAddress sender) {
        if (warned) {
            logger.debug(message, sender);
        } else {
            logger.warn(message + "; further ones are logged at DEBUG and counted in"
                    + " neptune_client_poll_replies_dropped_total", sender);
        }
        return true;
    }

    /**
     * A poll awaiting its reply: where it went, the future its reply completes, and with a cluster
     * secret the poll as sent (the MAC covers it).
     */
    private record PendingPoll(InetSocketAddress target, CompletableFuture<Poll.Reply> reply, byte @Nullable [] sent) {}
}
