package io.neptune.core.internal.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.ClusterSecret;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.CorruptedFrameException;
import java.security.SecureRandom;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Polls that ask for a MAC and replies that carry one, as bytes: the layout of docs/protocols/wire.md,
 * and a MAC that verifies only for the poll it answers, the bytes the node wrote, and the same secret.
 */
class PollMacTest {
    private static final ClusterSecret SECRET = secret("the-cluster-secret-of-this-test");
    private static final ClusterSecret OTHER_SECRET = secret("another-cluster-secret-entirely");

    private final SecureRandom random = new SecureRandom();

    @Test
    void aPollWithANonceRoundTripsAsType12WithItsClassAlwaysWritten() {
        Poll.Request request = new Poll.Request(-7, "echo", 3, "default", Poll.Nonce.random(random));
        byte[] bytes = encode(request);

        assertThat(bytes[3]).isEqualTo(WireFormat.TYPE_MAC_POLL);
        assertThat(bytes).hasSize(4 + 8 + Poll.NONCE_BYTES + 2 + 4 + 4 + 2 + 7);
        Poll.Request decoded = Poll.decodeRequest(Unpooled.wrappedBuffer(bytes));
        assertThat(decoded).isEqualTo(request);
        assertThat(decoded.asksForMac()).isTrue();
        assertThat(decoded.namesClass()).isFalse();
    }

    @Test
    void aPollWithoutANonceIsTheSameBytesAsBefore() {
        byte[] bytes = encode(new Poll.Request(1, "echo", 3));
        assertThat(bytes[3]).isEqualTo(WireFormat.TYPE_POLL);
        assertThat(bytes).hasSize(4 + 8 + 2 + 4 + 4);
        assertThat(Poll.decodeRequest(Unpooled.wrappedBuffer(bytes)).asksForMac()).isFalse();
    }

    @Test
    void aSignedReplyVerifiesForItsPollAndDecodes() {
        byte[] poll = encode(new Poll.Request(42, "echo", 0, "gold", Poll.Nonce.random(random)));
        ByteBuf reply = sign(SECRET, poll, new Poll.Reply(42, 5, 9, 2));

        assertThat(reply.getByte(3)).isEqualTo(WireFormat.TYPE_MAC_POLL_REPLY);
        assertThat(reply.readableBytes()).isEqualTo(4 + 8 + 4 + 8 + 4 + PollMac.MAC_BYTES);
        assertThat(Poll.isMacReply(reply)).isTrue();
        assertThat(new PollMac(SECRET).verify(poll, reply)).isTrue();
        assertThat(Poll.decodeMacReply(reply.duplicate())).isEqualTo(new Poll.Reply(42, 5, 9, 2));
        assertThat(reply.readerIndex()).as("verify and the caller's duplicate leave the datagram unread").isZero();
    }

    @Test
    void anyChangedByteOfTheReplyFailsTheMac() {
        byte[] poll = encode(new Poll.Request(42, "echo", 0, "default", Poll.Nonce.random(random)));
        byte[] reply = ByteBufUtil.getBytes(sign(SECRET, poll, new Poll.Reply(42, 5, 9, 5)));
        PollMac mac = new PollMac(SECRET);

        for (int i = 0; i < reply.length; i++) {
            byte[] changed = reply.clone();
            changed[i] ^= 0x01;
            assertThat(mac.verify(poll, Unpooled.wrappedBuffer(changed))).as("byte %d changed", i).isFalse();
        }
        assertThat(mac.verify(poll, Unpooled.wrappedBuffer(reply))).as("the same MAC, after the failures").isTrue();
    }

    @Test
    void aReplyVerifiesForNoOtherPoll() {
        Poll.Nonce nonce = Poll.Nonce.random(random);
        byte[] poll = encode(new Poll.Request(42, "echo", 0, "default", nonce));
        ByteBuf reply = sign(SECRET, poll, new Poll.Reply(42, 0, 0));
        PollMac mac = new PollMac(SECRET);

        byte[] sameIdOtherNonce = encode(new Poll.Request(42, "echo", 0, "default", Poll.Nonce.random(random)));
        byte[] otherPartition = encode(new Poll.Request(42, "echo", 1, "default", nonce));
        byte[] otherClass = encode(new Poll.Request(42, "echo", 0, "gold", nonce));
        assertThat(mac.verify(sameIdOtherNonce, reply)).as("another nonce: a replay to a later poll").isFalse();
        assertThat(mac.verify(otherPartition, reply)).as("the poll's partition changed on the way").isFalse();
        assertThat(mac.verify(otherClass, reply)).as("the poll's class changed on the way").isFalse();
    }

    @Test
    void aReplySignedWithAnotherSecretOrTruncatedFails() {
        byte[] poll = encode(new Poll.Request(42, "echo", 0, "default", Poll.Nonce.random(random)));
        ByteBuf forged = sign(OTHER_SECRET, poll, new Poll.Reply(42, 0, 0));
        PollMac mac = new PollMac(SECRET);

        assertThat(mac.verify(poll, forged)).isFalse();
        assertThat(mac.verify(poll, forged.slice(0, forged.readableBytes() - 1))).isFalse();
        assertThat(mac.verify(poll, Unpooled.wrappedBuffer(new byte[PollMac.MAC_BYTES]))).isFalse();
        assertThat(mac.verify(poll, Unpooled.EMPTY_BUFFER)).isFalse();
    }

    @Test
    void aMacReplyOfTheWrongLengthIsRefusedByTheDecoder() {
        byte[] poll = encode(new Poll.Request(42, "echo", 0, "default", Poll.Nonce.random(random)));
        ByteBuf reply = sign(SECRET, poll, new Poll.Reply(42, 0, 0));

        assertThatThrownBy(() -> Poll.decodeMacReply(reply.slice(0, reply.readableBytes() - 1)))
                .isInstanceOf(CorruptedFrameException.class).hasMessageContaining("truncated");
        ByteBuf longer = Unpooled.buffer().writeBytes(reply.duplicate()).writeByte(0);
        assertThatThrownBy(() -> Poll.decodeMacReply(longer))
                .isInstanceOf(CorruptedFrameException.class).hasMessageContaining("1 trailing bytes");
        assertThatThrownBy(() -> Poll.decodeReply(reply.duplicate()))
                .as("a client without a secret never asked for one").isInstanceOf(CorruptedFrameException.class);
    }

    @Test
    void theMacDoesNotNameTheKey() {
        assertThat(new PollMac(SECRET)).hasToString("PollMac[neptune poll mac v1]");
    }

    private static byte[] encode(Poll.Request request) {
        ByteBuf buf = Unpooled.buffer();
        Poll.encode(request, buf);
        return ByteBufUtil.getBytes(buf);
    }

    private static ByteBuf sign(ClusterSecret secret, byte[] poll, Poll.Reply reply) {
        ByteBuf out = Unpooled.buffer();
        new PollMac(secret).encodeReply(Unpooled.wrappedBuffer(poll), reply, out);
        return out;
    }

    private static ClusterSecret secret(String value) {
        return ClusterSecret.fromEnvironment(Map.of(ClusterSecret.ENVIRONMENT_VARIABLE, value)).orElseThrow();
    }
}
