package io.neptune.benchmarks;

import io.neptune.benchmarks.WorkService.Done;
import io.neptune.benchmarks.WorkService.Work;
import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * One open-loop load generator: a thread that sends calls of one slot at arrival times drawn from
 * a {@link Workload}, spreading them over the client nodes in turn, without ever waiting for a
 * response. Latency is taken from the <em>scheduled</em> send time, so a generator that falls
 * behind still charges the delay to the call (no coordinated omission). Calls scheduled during the
 * warm-up are sent but not recorded; every recorded call is awaited, however slow.
 *
 * <p>The arrival times and service times come from a {@link Random} with a given seed, so runs of
 * different policies with the same seed see the very same request sequence. A {@link Workload} at
 * a fixed rate is the common source; an {@link Arrivals} may also vary each call's options (the
 * service class of {@link QosExperiment}) and hear of every call's end through a {@link Listener}.
 *
 * <p>Thread-safety: {@link #start} and {@link #awaitResult} from one thread; completions record
 * from client event loops into concurrent accumulators.
 */
final class OpenLoopRun {
    private static final long MAX_MICROS = TimeUnit.MINUTES.toMicros(10);

    private final List<NeptuneClient> clients;
    private final String service;
    private final Arrivals arrivals;
    private final Listener listener;
    private final long seed;
    private final NeptuneHandle handle = NeptuneHandle.create();
    private final Histogram latencies = new ConcurrentHistogram(MAX_MICROS, 3);
    private final LongAdder latencySum = new LongAdder();
    private final LongAdder heldSum = new LongAdder();
    private final LongAdder recorded = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong maxLagNanos = new AtomicLong();
    private final LongAdder lagNanos = new LongAdder();
    private volatile boolean generating = true;
    private volatile String firstFailure = "";
    private Thread thread = new Thread(() -> { });

    /**
     * Result of one run, times in milliseconds.
     *
     * @param requests recorded calls
     * @param failures recorded calls that failed (not in the latency figures)
     * @param mean mean response time from the scheduled send to the response
     * @param p50 median response time
     * @param p99 99th percentile response time
     * @param held mean time a worker was really held (the emulated service time, sleep overshoot included)
     * @param meanLag how far behind its schedule the generator sent a call, on average
     * @param maxLag the most the generator fell behind its schedule
     * @param firstFailure the first failure's message, or empty
     */
    record Result(long requests, long failures, double mean, double p50, double p99, double held, double meanLag,
            double maxLag, String firstFailure) {}

    /**
     * One call to send.
     *
     * @param intervalNanos the time since the previous call's scheduled send
     * @param micros the service time the call asks for
     * @param options the call's options
     * @param kind what the source wants to know the call by in {@link Listener#ended} (e.g. its class)
     */
    record Request(long intervalNanos, long micros, CallOptions options, int kind) {}

    /** Draws the calls of a run, in order, from the run's seeded {@link Random}; called on the generator thread. */
    interface Arrivals {
        /** The next call. */
        Request next(Random random);
    }

    /** Hears of every call's end, on client threads: implementations must be thread-safe. */
    interface Listener {
        /**
         * {@code request} ended {@code elapsedNanos} after its scheduled send, successfully if
         * {@code error} is null; {@code measured} if it was scheduled in the recorded window.
         */
        void ended(Request request, long elapsedNanos, @Nullable Throwable error, boolean measured);
    }

    OpenLoopRun(List<NeptuneClient> clients, String service, Workload workload, double rate, CallOptions options,
            long seed) {
        // draw the interval, then the service time: the order every earlier run used, so seeds keep their sequences
        this(clients, service, random -> {
            long interval = workload.arrivalNanos(random, rate);
            return new Request(interval, workload.serviceMicros(random), options, 0);
        }, (request, elapsed, error, measured) -> { }, seed);
    }

    OpenLoopRun(List<NeptuneClient> clients, String service, Arrivals arrivals, Listener listener, long seed) {
        this.clients = List.copyOf(clients);
        this.service = service;
        this.arrivals = arrivals;
        this.listener = listener;
        this.seed = seed;
    }

    /**
     * Starts generating at {@code startNanos}; records the calls scheduled in
     * [{@code measureFromNanos}, {@code endNanos}).
     */
    void start(String name, long startNanos, long measureFromNanos, long endNanos) {
        thread = new Thread(() -> generate(startNanos, measureFromNanos, endNanos), "lb-generator-" + name);
        thread.setDaemon(true);
        thread.start();
    }

    private void generate(long startNanos, long measureFromNanos, long endNanos) {
        Random random = new Random(seed);
        long scheduled = startNanos;
        for (long i = 0; ; i++) {
            Request request = arrivals.next(random);
            scheduled += request.intervalNanos();
            if (scheduled - endNanos >= 0) {
                break;
            }
            for (long now = System.nanoTime(); scheduled - now > 0; now = System.nanoTime()) {
                LockSupport.parkNanos(scheduled - now);
            }
            long lag = System.nanoTime() - scheduled;
            lagNanos.add(lag);
            if (lag > maxLagNanos.get()) {
                maxLagNanos.set(lag);
            }
            send(clients.get((int) (i % clients.size())), scheduled, request, scheduled - measureFromNanos >= 0);
        }
        generating = false;
    }

    private void send(NeptuneClient client, long scheduled, Request request, boolean measured) {
        sent.incrementAndGet();
        client.callAsync(handle, service, 0, "work", AccessMode.READ, new Work(request.micros()), Done.class,
                        request.options())
                .whenComplete((done, error) -> {
                    long elapsedNanos = System.nanoTime() - scheduled;
                    long elapsedMicros = TimeUnit.NANOSECONDS.toMicros(elapsedNanos);
                    listener.ended(request, elapsedNanos, error, measured);
                    if (measured) {
                        if (error != null) {
                            failures.increment();
                            if (firstFailure.isEmpty()) {
                                firstFailure = String.valueOf(error.getMessage());
                            }
                        } else {
                            latencies.recordValue(Math.min(elapsedMicros, MAX_MICROS));
                            latencySum.add(elapsedMicros);
                            heldSum.add(done.heldMicros());
                            recorded.increment();
                        }
                    }
                    completed.incrementAndGet();
                });
    }

    /** Waits until the generator has stopped and every call it sent has completed, then summarizes. */
    Result awaitResult(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        thread.join(TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
        while (generating || completed.get() < sent.get()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException(service + ": " + (sent.get() - completed.get())
                        + " calls still outstanding after " + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " s");
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
        long n = recorded.sum();
        double mean = n == 0 ? Double.NaN : latencySum.sum() / 1000.0 / n;
        double held = n == 0 ? Double.NaN : heldSum.sum() / 1000.0 / n;
        return new Result(n, failures.sum(), mean, latencies.getValueAtPercentile(50) / 1000.0,
                latencies.getValueAtPercentile(99) / 1000.0, held, lagNanos.sum() / 1e6 / Math.max(1, sent.get()),
                maxLagNanos.get() / 1e6, firstFailure);
    }
}
