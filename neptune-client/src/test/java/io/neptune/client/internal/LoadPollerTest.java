package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.core.ClusterSecret;
import io.neptune.core.internal.wire.Poll;
import io.neptune.core.internal.wire.PollMac;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The load poller against real UDP sockets on loopback (issue 23, polls): a poll is completed only
 * by a reply from the address it went to that carries its id, and with a cluster secret only by one
 * whose MAC verifies for that poll. The test plays the polled node with a plain socket, so it
 * decides what is answered, from where, with which MAC and when.
 */
class LoadPollerTest {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final ClusterSecret SECRET = secret("the-cluster-secret-of-this-test");

    private final EventLoopGroup group = EventLoops.create("poller-test", 1);
    private final LoadPoller poller = new LoadPoller(group, "127.0.0.1");
    private final LoadPoller macPoller = new LoadPoller(group, "127.0.0.1", SECRET);
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
        macPoller.close();
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

    @Test
    void withASecretAPollCarriesANonceAndAReplyWithAValidMacCompletesIt() throws IOException {
        CompletableFuture<Poll.Reply> poll = macPoller.poll(nodeAddress(), "svc", 3, "gold");
        Received request = receivePoll();
        assertThat(request.poll().asksForMac()).isTrue();

        sendSigned(node, SECRET, request, new Poll.Reply(request.poll().pollId(), 5, 0, 2));

        assertThat(poll.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join())
                .isEqualTo(new Poll.Reply(request.poll().pollId(), 5, 0, 2));
        assertThat(macPoller.pending()).isZero();
        assertThat(dropped(macPoller)).isZero();
    }

    @Test
    void withASecretAReplyWithoutAMacFromThePolledAddressIsIgnored() throws IOException {
        // a node without the secret, or a forger who learnt the id and spoofs the node's address
        CompletableFuture<Poll.Reply> poll = macPoller.poll(nodeAddress(), "svc", 0, "default");
        Received request = receivePoll();

        send(node, new Poll.Reply(request.poll().pollId(), 0, 0), request.from());
        await().atMost(WAIT).until(() -> poll.isDone() || macPoller.unauthenticatedReplies() == 1);

        assertThat(poll).as("a poll answered without a MAC").isNotDone();
        assertThat(macPoller.unauthenticatedReplies()).isEqualTo(1);
        sendSigned(node, SECRET, request, new Poll.Reply(request.poll().pollId(), 7, 0));
        assertThat(poll.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join().load()).isEqualTo(7);
    }

    @Test
    void withASecretAReplyWhoseMacDoesNotVerifyIsIgnored() throws IOException {
        CompletableFuture<Poll.Reply> poll = macPoller.poll(nodeAddress(), "svc", 0, "default");
        Received request = receivePoll();
        long id = request.poll().pollId();

        sendSigned(node, secret("another-secret-than-the-clusters"), request, new Poll.Reply(id, 0, 0));
        byte[] tampered = signed(SECRET, request, new Poll.Reply(id, 9, 0));
        tampered[4 + 8 + 3] = 0; // the low byte of the load: 9 → 0, the MAC unchanged
        node.send(new DatagramPacket(tampered, tampered.length, request.from()));
        await().atMost(WAIT).until(() -> poll.isDone() || macPoller.badMacReplies() == 2);

        assertThat(poll).as("a poll answered with a wrong MAC").isNotDone();
        sendSigned(node, SECRET, request, new Poll.Reply(id, 9, 0));
        assertThat(poll.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join().load()).isEqualTo(9);
    }

    @Test
    void withASecretAValidReplyFromAnotherSocketIsIgnored() throws IOException {
        CompletableFuture<Poll.Reply> poll = macPoller.poll(nodeAddress(), "svc", 0, "default");
        Received request = receivePoll();

        // the MAC is right (a member that saw the poll), the sender is not the polled node
        sendSigned(intruder, SECRET, request, new Poll.Reply(request.poll().pollId(), 0, 0));
        await().atMost(WAIT).until(() -> poll.isDone() || macPoller.ignoredReplies() == 1);

        assertThat(poll).isNotDone();
        sendSigned(node, SECRET, request, new Poll.Reply(request.poll().pollId(), 7, 0));
        assertThat(poll.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join().load()).isEqualTo(7);
    }

    @Test
    void withASecretAReplayedReplyIsIgnoredAndCounted() throws IOException {
        CompletableFuture<Poll.Reply> first = macPoller.poll(nodeAddress(), "svc", 0, "default");
        Received firstRequest = receivePoll();
        byte[] recorded = signed(SECRET, firstRequest, new Poll.Reply(firstRequest.poll().pollId(), 0, 0));
        node.send(new DatagramPacket(recorded, recorded.length, firstRequest.from()));
        assertThat(first.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join().load()).isZero();

        CompletableFuture<Poll.Reply> second = macPoller.poll(nodeAddress(), "svc", 0, "default");
        Received secondRequest = receivePoll();
        node.send(new DatagramPacket(recorded, recorded.length, secondRequest.from())); // the recorded reply again
        await().atMost(WAIT).until(() -> second.isDone() || macPoller.replayedReplies() == 1);

        assertThat(second).as("a poll answered by a replay of an earlier reply").isNotDone();
        assertThat(macPoller.replayedReplies()).isEqualTo(1);
        assertThat(macPoller.unmatchedReplies()).isZero();
        sendSigned(node, SECRET, secondRequest, new Poll.Reply(secondRequest.poll().pollId(), 4, 0));
        assertThat(second.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join().load()).isEqualTo(4);
    }

    @Test
    void withoutASecretAPollIsTheSameDatagramAsBefore() throws IOException {
        poller.poll(nodeAddress(), "svc", 3, "default");
        assertThat(receivePoll().poll().asksForMac()).isFalse();
    }

    private static long dropped(LoadPoller poller) {
        return poller.ignoredReplies() + poller.unmatchedReplies() + poller.unauthenticatedReplies()
                + poller.badMacReplies() + poller.replayedReplies();
    }

    private InetSocketAddress nodeAddress() {
        return (InetSocketAddress) node.getLocalSocketAddress();
    }

    private Received receivePoll() throws IOException {
        DatagramPacket packet = new DatagramPacket(new byte[512], 512);
        node.receive(packet);
        byte[] bytes = Arrays.copyOf(packet.getData(), packet.getLength());
        Poll.Request poll = Poll.decodeRequest(Unpooled.wrappedBuffer(bytes));
        return new Received(poll, (InetSocketAddress) packet.getSocketAddress(), bytes);
    }

    /** The reply a node with {@code secret} sends to {@code request}: the fields and their MAC. */
    private static byte[] signed(ClusterSecret secret, Received request, Poll.Reply reply) {
        ByteBuf buf = Unpooled.buffer(48);
        try {
            new PollMac(secret).encodeReply(Unpooled.wrappedBuffer(request.bytes()), reply, buf);
            return ByteBufUtil.getBytes(buf);
        } finally {
            buf.release();
        }
    }

    private static void sendSigned(DatagramSocket from, ClusterSecret secret, Received request, Poll.Reply reply)
            throws IOException {
        byte[] bytes = signed(secret, request, reply);
        from.send(new DatagramPacket(bytes, bytes.length, request.from()));
    }

    private static ClusterSecret secret(String value) {
        return ClusterSecret.fromEnvironment(Map.of(ClusterSecret.ENVIRONMENT_VARIABLE, value)).orElseThrow();
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

    /** A poll as the node received it, where it came from, and its bytes (a MAC covers them). */
    private record Received(Poll.Request poll, InetSocketAddress from, byte[] bytes) {}
}
