package io.neptune.benchmarks;

import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import java.util.concurrent.Flow;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The service the echo and stream benchmarks call: {@link #echo} answers at once, {@link #hold}
 * keeps a worker busy until {@link #release()} so a replica's load index can be raised on purpose
 * (the setup uses it to check that random polling really polls), and {@link #stream} streams
 * identical byte arrays as fast as the client takes them.
 *
 * <p>Thread-safety: thread-safe.
 */
@NeptuneService(name = BenchEchoService.NAME, partitions = 3)
public final class BenchEchoService {
    /** The service name. */
    public static final String NAME = "bench-echo";

    private final Semaphore gate = new Semaphore(0);
    private final AtomicInteger holding = new AtomicInteger();

    /**
     * An echo request.
     *
     * @param text echoed back verbatim
     */
    public record Ping(String text) {}

    /**
     * An echo reply.
     *
     * @param text the request's text
     * @param node the node that served the call
     */
    public record Pong(String text, String node) {}

    /**
     * A request to keep one worker busy.
     *
     * @param millis the longest time to hold it
     */
    public record Hold(long millis) {}

    /** Returns the request's text and the serving node. */
    @Read
    public Pong echo(RequestContext context, Ping ping) {
        return new Pong(ping.text(), context.node().value());
    }

    /** {@link #echo} declared non-blocking: it runs on the serving node's I/O thread, not a worker. */
    @Read(blocking = false)
    public Pong echoInline(RequestContext context, Ping ping) {
        return echo(context, ping);
    }

    /** Blocks the calling worker until {@link #release()} or the request's time runs out. */
    @Read
    public Pong hold(RequestContext context, Hold hold) throws InterruptedException {
        holding.incrementAndGet();
        try {
            boolean released = gate.tryAcquire(hold.millis(), TimeUnit.MILLISECONDS);
            return new Pong(released ? "released" : "timed out", context.node().value());
        } finally {
            holding.decrementAndGet();
        }
    }

    /**
     * Streams {@code burst.items()} copies of {@link StreamBurst#payload()}, produced on the thread
     * that asks for them ({@link RepeatingPublisher}); each goes on the wire as a JSON string
     * (base64, as Jackson writes a {@code byte[]}).
     */
    @Read
    public Flow.Publisher<byte[]> stream(RequestContext context, StreamBurst burst) {
        return new RepeatingPublisher<>(burst.payload(), burst.items());
    }

    /** Calls of {@link #hold} currently blocking a worker of this instance. */
    public int holding() {
        return holding.get();
    }

    /** Lets one held call return. */
    public void release() {
        gate.release();
    }
}
