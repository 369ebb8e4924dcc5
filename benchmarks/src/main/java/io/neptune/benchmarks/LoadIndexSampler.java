package io.neptune.benchmarks;

import io.neptune.core.internal.wire.Poll;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Reads one node's load index of one service the way a client's poll does, on a fixed schedule:
 * a thread sends a UDP load poll ({@link PollProbe#datagram}) to the node's poll port at every
 * point of a grid and keeps the load the reply carries, stamped with the middle of its round trip
 * (when the node read its queue length, to within half a round trip). One poll is out at a time;
 * a point whose time has passed by a whole step when its turn comes is skipped, so the readings
 * stay on the grid's times. {@link #await} puts the readings back on the grid as a step function
 * ({@link LoadIndexInaccuracy#onGrid}).
 *
 * <p>Thread-safety: {@link #start} and {@link #await} from one thread.
 */
final class LoadIndexSampler {
    private static final int TIMEOUT_MILLIS = 200;

    private final InetSocketAddress target;
    private final String service;
    private final long startNanos;
    private final long stepNanos;
    private final int count;
    private final long[] times;
    private final int[] loads;
    private final Thread thread;
    // Written by the sampler thread only, read after it ended (Thread.join orders the two).
    private int readings;
    private int lost;
    private long maxRoundTripNanos;
    private @Nullable RuntimeException failure;

    /**
     * What the sampler read.
     *
     * @param grid the load index at every grid point, each the latest reading at or before it
     * @param readings polls answered
     * @param skipped grid points whose poll was not sent because the sampler was a step late
     * @param lost polls not answered within {@value #TIMEOUT_MILLIS} ms
     * @param maxRoundTripMillis the slowest answered poll
     */
    record Samples(int[] grid, int readings, int skipped, int lost, double maxRoundTripMillis) {}

    /**
     * A sampler of {@code service} (partition 0) at {@code target} over {@code count} points
     * {@code stepNanos} apart from {@code startNanos} ({@link System#nanoTime} time).
     */
    LoadIndexSampler(InetSocketAddress target, String service, long startNanos, long stepNanos, int count) {
        if (count <= 0 || stepNanos <= 0) {
            throw new IllegalArgumentException("count: " + count + ", stepNanos: " + stepNanos + " (expected: > 0)");
        }
        this.target = target;
        this.service = service;
        this.startNanos = startNanos;
        this.stepNanos = stepNanos;
        this.count = count;
        this.times = new long[count];
        this.loads = new int[count];
        this.thread = new Thread(this::run, "load-index-sampler-" + service);
        this.thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    /** Waits for the last grid point's poll and returns the samples; fails when no poll was answered. */
    Samples await(long timeoutNanos) throws InterruptedException {
        thread.join(TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
        if (thread.isAlive()) {
            thread.interrupt();
            throw new IllegalStateException(service + ": the sampler did not finish in time");
        }
        RuntimeException failed = failure;
        if (failed != null) {
            throw failed;
        }
        int answered = readings;
        if (answered == 0) {
            throw new IllegalStateException(service + ": no load poll to " + target + " was answered");
        }
        int[] grid = LoadIndexInaccuracy.onGrid(times, loads, answered, startNanos, stepNanos, count);
        return new Samples(grid, answered, count - answered - lost, lost, maxRoundTripNanos / 1e6);
    }

    private void run() {
        byte[] in = new byte[512];
        try (DatagramSocket socket = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
            socket.setSoTimeout(TIMEOUT_MILLIS);
            for (int i = 0; i < count; i++) {
                long at = startNanos + i * stepNanos;
                long now = System.nanoTime();
                if (now - at >= stepNanos) {
                    continue; // a step late: this point takes the previous reading
                }
                for (; at - now > 0; now = System.nanoTime()) {
                    LockSupport.parkNanos(at - now);
                }
                if (Thread.currentThread().isInterrupted()) {
                    return;
                }
                byte[] out = PollProbe.datagram(i + 1L, service);
                long sent = System.nanoTime();
                socket.send(new DatagramPacket(out, out.length, target));
                Poll.Reply reply = PollProbe.awaitReply(socket, in, i + 1L);
                long answered = System.nanoTime();
                if (reply == null) {
                    lost++;
                    continue;
                }
                if (reply.load() < 0) {
                    throw new IllegalStateException(target + " does not host " + service + " (load -1)");
                }
                times[readings] = sent + (answered - sent) / 2;
                loads[readings] = reply.load();
                readings++;
                maxRoundTripNanos = Math.max(maxRoundTripNanos, answered - sent);
            }
        } catch (IOException e) {
            failure = new UncheckedIOException("load index sampler of " + service + " failed", e);
        } catch (RuntimeException e) {
            failure = e;
        }
    }
}
