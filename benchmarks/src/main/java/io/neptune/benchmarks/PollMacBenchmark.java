package io.neptune.benchmarks;

import io.neptune.core.ClusterSecret;
import io.neptune.core.internal.wire.Poll;
import io.neptune.core.internal.wire.PollMac;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a cluster secret adds to each load poll (issue 23, polls; docs/SECURITY.md, Load polls), in
 * CPU on one thread, with the pooled direct buffers the UDP channels use:
 *
 * <ul>
 *   <li>{@link #plainReply}: the baseline, a node's reply without a MAC encoded and the client's
 *       decode of it;
 *   <li>{@link #signAndVerify}: the same with a MAC, the per-poll cost of the secret: the node
 *       writes the reply and its HMAC-SHA256 over the poll and the reply ({@link PollMac#encodeReply}),
 *       the client checks the MAC and decodes the reply;
 *   <li>{@link #sign} and {@link #verify}: each side alone;
 *   <li>{@link #pollWithNonce} and {@link #plainPoll}: the client's poll datagram with its fresh nonce
 *       (two more longs from the {@link SecureRandom} that already draws poll ids) and the bytes it
 *       keeps for the check, against a poll without one.
 * </ul>
 *
 * The HMAC key is derived once per node and client (at start), so it is not measured.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgs = {"-Xms256m", "-Xmx256m"})
public class PollMacBenchmark {
    /** One node's and one client's MAC, a poll as the client sent it and the node's signed reply to it. */
    @State(Scope.Thread)
    public static class Polls {
        final SecureRandom random = new SecureRandom();
        final PooledByteBufAllocator alloc = PooledByteBufAllocator.DEFAULT;
        PollMac node;
        PollMac client;
        ByteBuf poll;
        byte[] pollBytes;
        ByteBuf signedReply;
        Poll.Reply reply;

        @Setup(Level.Trial)
        public void setUp() {
            ClusterSecret secret = ClusterSecret.fromEnvironment(Map.of(ClusterSecret.ENVIRONMENT_VARIABLE,
                    "bench-secret-" + random.nextLong())).orElseThrow();
            node = new PollMac(secret);
            client = new PollMac(secret);
            long id = random.nextLong();
            poll = alloc.directBuffer(64);
            Poll.encode(new Poll.Request(id, "echo", 3, "default", Poll.Nonce.random(random)), poll);
            pollBytes = ByteBufUtil.getBytes(poll);
            reply = new Poll.Reply(id, 17, 0, 17);
            signedReply = alloc.directBuffer(48);
            node.encodeReply(poll, reply, signedReply);
            System.err.printf("%npoll with nonce %d bytes, signed reply %d bytes%n", pollBytes.length,
                    signedReply.readableBytes());
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            poll.release();
            signedReply.release();
        }
    }

    /** The baseline: a reply without a MAC, encoded by the node and decoded by the client. */
    @Benchmark
    public Poll.Reply plainReply(Polls s) {
        ByteBuf out = s.alloc.directBuffer(48);
        try {
            Poll.encode(s.reply, true, out);
            return Poll.decodeReply(out);
        } finally {
            out.release();
        }
    }

    /** The per-poll cost with a secret: the node signs its reply, the client verifies and decodes it. */
    @Benchmark
    public Poll.Reply signAndVerify(Polls s) {
        ByteBuf out = s.alloc.directBuffer(48);
        try {
            s.node.encodeReply(s.poll, s.reply, out);
            if (!s.client.verify(s.pollBytes, out)) {
                throw new IllegalStateException("the MAC does not verify");
            }
            return Poll.decodeMacReply(out);
        } finally {
            out.release();
        }
    }

    /** The node's side: the reply and its MAC written. */
    @Benchmark
    public int sign(Polls s) {
        ByteBuf out = s.alloc.directBuffer(48);
        try {
            s.node.encodeReply(s.poll, s.reply, out);
            return out.readableBytes();
        } finally {
            out.release();
        }
    }

    /** The client's side: the MAC of a received reply checked. */
    @Benchmark
    public boolean verify(Polls s) {
        return s.client.verify(s.pollBytes, s.signedReply);
    }

    /** The client's poll with a nonce: the nonce drawn, the datagram encoded, its bytes kept for the check. */
    @Benchmark
    public byte[] pollWithNonce(Polls s) {
        ByteBuf out = s.alloc.directBuffer(64);
        try {
            Poll.encode(new Poll.Request(s.random.nextLong(), "echo", 3, "default", Poll.Nonce.random(s.random)), out);
            return ByteBufUtil.getBytes(out);
        } finally {
            out.release();
        }
    }

    /** The client's poll without a nonce, as without a secret. */
    @Benchmark
    public int plainPoll(Polls s) {
        ByteBuf out = s.alloc.directBuffer(64);
        try {
            Poll.encode(new Poll.Request(s.random.nextLong(), "echo", 3, "default"), out);
            return out.readableBytes();
        } finally {
            out.release();
        }
    }
}
