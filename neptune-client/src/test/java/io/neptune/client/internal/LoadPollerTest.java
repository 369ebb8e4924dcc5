package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.core.internal.wire.Poll;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The load poller against real UDP sockets on loopback (issue 23, polls): a poll is completed only
 * by a reply from the address it went to that carries its id. The test plays the polled node with a
 * plain socket, so it decides what is answered, from where and when.
 */
class LoadPollerTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    private final EventLoopGroup group = EventLoops.create("poller-test", 1);
    private final LoadPoller poller = new LoadPoller(group, "127.0.0.1");
    private DatagramSocket node;
    private DatagramSocket intruder;

    @BeforeEach
    void open() throws IOException {
        node = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
        node.setSoTimeout((int) WAIT.toMillis());
        intruder = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0));
    }

    @AfterEach
    void close() {
        poller.close();
        node.close();
        intruder.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
    }

    @Test
    void aReplyFromThePolledAddressCompletesThePoll() throws IOException {
        CompletableFuture<Poll.Reply> poll = poller.poll(nodeAddress(), "svc", 3, "gold");
        Received request = receivePoll();
        assertThat(request.poll()).isEqualTo(new Poll.Request(request.poll().pollId(), "svc", 3, "gold"));

        send(node, new Poll.Reply(request.poll().pollId(), 5, 0, 2), request.from());

        assertThat(poll.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join())
                .isEqualTo(new Poll.Reply(request.poll().pollId(), 5, 0, 2));
        assertThat(poller.pending()).isZero();
        assertThat(poller.ignoredReplies()).isZero();
    }

    @Test
    void aReplyWithThePollsIdFromAnotherSocketIsIgnored() throws IOException {
        CompletableFuture<Poll.Reply> poll = poller.poll(nodeAddress(), "svc", 0, "default");
        Received request = receivePoll();

        send(intruder, new Poll.Reply(request.poll().pollId(), 0, 0), request.from());
        await().atMost(WAIT).until(() -> poll.isDone() || poller.ignoredReplies() == 1);

        assertThat(poll).as("a poll answered by a socket it was not sent to").isNotDone();
        assertThat(poller.ignoredReplies()).isEqualTo(1);
        send(node, new Poll.Reply(request.poll().pollId(), 7, 0), request.from());
        assertThat(poll.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join().load())
                .as("the load the polled node reported").isEqualTo(7);
    }

    @Test
    void aReplyWithAGuessedSequentialIdIsIgnoredEvenFromThePolledAddress() throws IOException {
        // An attacker who spoofs the node's source address still has to guess the id: with
        // sequential ids a fresh poller's first poll is 1 (0..3 covers either convention).
        CompletableFuture<Poll.Reply> poll = poller.poll(nodeAddress(), "svc", 0, "default");
        Received request = receivePoll();

        for (long guess = 0; guess < 4; guess++) {
            send(node, new Poll.Reply(guess, 0, 0), request.from());
        }
        await().atMost(WAIT).until(() -> poll.isDone() || poller.unmatchedReplies() == 4);

        assertThat(poll).as("a poll answered with a guessed id").isNotDone();
        send(node, new Poll.Reply(request.poll().pollId(), 7, 0), request.from());
        assertThat(poll.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join().load()).isEqualTo(7);
    }

    @Test
    void sentCountsPollsWhateverTheirIds() throws IOException {
        for (int i = 0; i < 3; i++) {
            poller.poll(nodeAddress(), "svc", i, "default");
        }
        long[] ids = new long[3];
        for (int i = 0; i < 3; i++) {
            ids[i] = receivePoll().poll().pollId();
        }

        assertThat(poller.sent()).isEqualTo(3);
        assertThat(ids).doesNotHaveDuplicates();
        assertThat(poller.pending()).isEqualTo(3);
    }

    private InetSocketAddress nodeAddress() {
        return (InetSocketAddress) node.getLocalSocketAddress();
    }

    private Received receivePoll() throws IOException {
        DatagramPacket packet = new DatagramPacket(new byte[512], 512);
        node.receive(packet);
        Poll.Request poll = Poll.decodeRequest(Unpooled.wrappedBuffer(packet.getData(), 0, packet.getLength()));
        return new Received(poll, (InetSocketAddress) packet.getSocketAddress());
    }

    private static void send(DatagramSocket from, Poll.Reply reply, InetSocketAddress to) throws IOException {
        ByteBuf buf = Unpooled.buffer(32);
        try {
            Poll.encode(reply, reply.classLoad() != reply.load(), buf);
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            from.send(new DatagramPacket(bytes, bytes.length, to));
        } finally {
            buf.release();
        }
    }

    /** A poll as the node received it, and where it came from. */
    private record Received(Poll.Request poll, InetSocketAddress from) {}
}
