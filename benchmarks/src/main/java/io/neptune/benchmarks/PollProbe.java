package io.neptune.benchmarks;

import io.neptune.core.internal.wire.Poll;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * Measures how long load polls take while a round runs, the profile behind the dissertation's
 * Table 3.2 ("8.1% of the polls are not completed within 10 ms"): a thread sends one poll at a
 * time to a random server's load-index port, at most {@value #POLLS_PER_SECOND} per second, and
 * times the reply; a few percent of the hundreds to thousands of polls per second the policies of
 * a round send.
 *
 * <p>Thread-safety: {@link #start} and {@link #stop} from one thread.
 */
final class PollProbe {
    private static final int POLLS_PER_SECOND = 50;
    private static final int TIMEOUT_MILLIS = 1000;

    private final List<InetSocketAddress> targets;
    private final String service;
    private final Histogram micros = new Histogram(TimeUnit.SECONDS.toMicros(10), 3);
    private final Thread thread;
    private volatile boolean running = true;
    private long lost;

    /**
     * Summary of the polls.
     *
     * @param polls polls sent
     * @param over10ms percentage answered after 10 ms or never
     * @param over20ms percentage answered after 20 ms or never
     * @param p50 median round trip, ms
     * @param p99 99th percentile round trip, ms
     * @param lost polls not answered within 1 s
     */
    record Result(long polls, double over10ms, double over20ms, double p50, double p99, long lost) {}

    PollProbe(List<InetSocketAddress> targets, String service) {
        this.targets = List.copyOf(targets);
        this.service = service;
        this.thread = new Thread(this::run, "lb-poll-probe");
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Stops probing and summarizes. */
    Result stop() throws InterruptedException {
        running = false;
        thread.join(TimeUnit.SECONDS.toMillis(5));
        long answered = micros.getTotalCount();
        long polls = answered + lost;
        double over10 = polls == 0 ? Double.NaN
                : 100.0 * (answered - micros.getCountBetweenValues(0, 10_000) + lost) / polls;
        double over20 = polls == 0 ? Double.NaN
                : 100.0 * (answered - micros.getCountBetweenValues(0, 20_000) + lost) / polls;
        return new Result(polls, over10, over20, micros.getValueAtPercentile(50) / 1000.0,
                micros.getValueAtPercentile(99) / 1000.0, lost);
    }

    private void run() {
        Random random = new Random(1);
        byte[] in = new byte[512];
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            socket.setSoTimeout(TIMEOUT_MILLIS);
            for (long id = 1; running; id++) {
                InetSocketAddress target = targets.get(random.nextInt(targets.size()));
                byte[] out = datagram(id, service);
                long sent = System.nanoTime();
                socket.send(new DatagramPacket(out, out.length, target));
                if (awaitReply(socket, in, id) != null) {
                    micros.recordValue(Math.min(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - sent),
                            micros.getHighestTrackableValue()));
                } else {
                    lost++;
                }
                TimeUnit.MILLISECONDS.sleep(1000 / POLLS_PER_SECOND);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("poll probe failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The datagram of poll {@code id} for partition 0 of {@code service}, as a client sends it (no class, no MAC). */
    static byte[] datagram(long id, String service) {
        ByteBuf buf = Unpooled.buffer(64);
        Poll.encode(new Poll.Request(id, service, 0), buf);
        byte[] out = new byte[buf.readableBytes()];
        buf.readBytes(out);
        buf.release();
        return out;
    }

    /** Reads until the reply to {@code id} arrives (the reply) or the socket times out (null). */
    static Poll.@Nullable Reply awaitReply(DatagramSocket socket, byte[] in, long id) throws IOException {
        while (true) {
            DatagramPacket packet = new DatagramPacket(in, in.length);
            try {
                socket.receive(packet);
            } catch (SocketTimeoutException e) {
                return null;
            }
            Poll.Reply reply = Poll.decodeReply(Unpooled.wrappedBuffer(in, 0, packet.getLength()));
            if (reply.pollId() == id) {
                return reply;
            }
        }
    }
}
