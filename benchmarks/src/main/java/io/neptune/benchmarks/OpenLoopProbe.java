package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntFunction;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;
import org.jspecify.annotations.Nullable;

/**
 * One open-loop load step: requests at Poisson arrival times of a given rate for a given time,
 * each counted as a success only if it completes within {@link #DEADLINE} of its <em>scheduled</em>
 * send time (so a late sender cannot hide queueing: no coordinated omission). Each request goes to
 * a partition drawn from {@link ZipfPartitions}, and the service's {@link RequestMix} (e.g. the
 * discussion group's {@link DiscussionMix}) decides what it is. Each simulated user (a
 * {@link NeptuneHandle}) sends about one request per second, the client rate the dissertation
 * chose to show the worst case of level 3.
 *
 * <p>Thread-safety: {@link #run} is called from one thread at a time; completions arrive on the
 * client's threads and only touch thread-safe counters.
 */
final class OpenLoopProbe {
    /** The dissertation's bound: a request counts only if it completes within 2 s. */
    static final Duration DEADLINE = Duration.ofSeconds(2);
    /** The share of requests that must meet {@link #DEADLINE} for a rate to pass. */
    static final double REQUIRED = 0.98;

    private final NeptuneClient client;
    private final RequestMix mix;
    private final ZipfPartitions partitions;
    private final SplittableRandom seeds;
    private final IntFunction<String> primaryOf;

    /**
     * The outcome of one step.
     *
     * @param rate the offered rate, requests per second
     * @param scheduled requests whose send time fell within the step (up to an early stop)
     * @param onTime requests that completed successfully within the deadline
     * @param planned requests a full step would have scheduled
     * @param stoppedEarly whether the step stopped once more than 2% of {@code planned} had failed
     * @param p50Millis median latency of the successful requests
     * @param p99Millis 99th percentile latency of the successful requests
     * @param writeP50Millis median latency of the successful requests the mix reported as writes
     *     ({@link RequestMix#WRITE}); NaN if it reported none
     * @param writeP99Millis 99th percentile latency of those writes; NaN if none
     * @param failures failures by kind (exception class, or "late" for a success after the deadline)
     * @param readsAtPrimary share of successful reads served by the partition's first replica (the
     *     level-2 and level-3 primary): 1/degree if reads were spread evenly; NaN if no read reply
     *     named its node
     */
    record Result(double rate, long scheduled, long onTime, long planned, boolean stoppedEarly, double p50Millis,
            double p99Millis, double writeP50Millis, double writeP99Millis, Map<String, Long> failures,
            double readsAtPrimary) {
        /** Whether at least {@link #REQUIRED} of the planned requests met the deadline. */
        boolean passed() {
            return !stoppedEarly && onTime >= Math.ceil(REQUIRED * scheduled);
        }

        /** Share of scheduled requests that met the deadline. */
        double onTimeShare() {
            return scheduled == 0 ? 1 : (double) onTime / scheduled;
        }
    }

    /**
     * Creates a probe of the discussion group {@code service} with {@code writeFraction} posts, on a
     * cluster of {@code nodes} whose partition {@code p} has its first replica on
     * {@code primaryOf.apply(p)}.
     */
    OpenLoopProbe(NeptuneClient client, String service, double writeFraction, ZipfPartitions partitions, int nodes,
            IntFunction<String> primaryOf, long seed) {
        this(client, new DiscussionMix(service, writeFraction, partitions.partitions(), nodes), partitions, primaryOf,
                seed);
    }

    /** Creates a probe that sends {@code mix} to partitions drawn from {@code partitions}. */
    OpenLoopProbe(NeptuneClient client, RequestMix mix, ZipfPartitions partitions, IntFunction<String> primaryOf,
            long seed) {
        this.primaryOf = requireNonNull(primaryOf, "primaryOf");
        this.client = requireNonNull(client, "client");
        this.mix = requireNonNull(mix, "mix");
        this.partitions = requireNonNull(partitions, "partitions");
        this.seeds = new SplittableRandom(seed);
    }

    /**
     * What a caller may learn about each call of {@link #runThrough}. Called on client threads, so
     * implementations must be thread-safe.
     */
    interface Listener {
        /**
         * A call scheduled at {@code scheduledNanos} ended at {@code endNanos} (both {@link System#nanoTime}):
         * successfully within the deadline if {@code failure} is {@code null}, else failed with that
         * kind (exception class, "late", "sender-late").
         */
        void ended(long scheduledNanos, long endNanos, @Nullable String failure);
    }

    /** Offers {@code rate} requests per second for {@code duration}, then waits for every call to end. */
    Result run(double rate, Duration duration) {
        return run(rate, duration, null);
    }

    /**
     * Like {@link #run} but never stops early, however many calls fail, and tells {@code listener}
     * about every call: for a timeline of a cluster under failures.
     */
    Result runThrough(double rate, Duration duration, Listener listener) {
        return run(rate, duration, requireNonNull(listener, "listener"));
    }

    /** With a listener: no early stop, every call reported. */
    private Result run(double rate, Duration duration, @Nullable Listener listener) {
        Random random = new Random(seeds.nextLong());
        long planned = Math.max(1, Math.round(rate * duration.toNanos() / 1e9));
        long allowedFailures = (long) Math.floor((1 - REQUIRED) * planned);
        NeptuneHandle[] users = new NeptuneHandle[(int) Math.max(1, Math.min(100_000, Math.round(rate)))];
        for (int i = 0; i < users.length; i++) {
            users[i] = NeptuneHandle.create();
        }
        Histogram latencies = new ConcurrentHistogram(TimeUnit.SECONDS.toMicros(60), 3);
        Histogram writeLatencies = new ConcurrentHistogram(TimeUnit.SECONDS.toMicros(60), 3);
        LongAdder onTime = new LongAdder();
        AtomicLong failed = new AtomicLong();
        AtomicInteger outstanding = new AtomicInteger();
        Map<String, LongAdder> failures = new ConcurrentHashMap<>();
        LongAdder reads = new LongAdder();
        LongAdder readsAtPrimary = new LongAdder();
        long deadlineNanos = DEADLINE.toNanos();
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(20);
        long end = start + duration.toNanos();
        double next = start;
        long scheduledCount = 0;
        boolean stopped = false;
        while (true) {
            next += -Math.log(1 - random.nextDouble()) / rate * 1e9;
            long scheduled = (long) next;
            if (scheduled - end >= 0) {
                break;
            }
            if (listener == null && failed.get() > allowedFailures) {
                stopped = true;
                break;
            }
            long wait;
            while ((wait = scheduled - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            scheduledCount++;
            long remaining = deadlineNanos - (System.nanoTime() - scheduled);
            if (remaining < TimeUnit.MILLISECONDS.toNanos(1)) {
                fail(failures, failed, "sender-late");
                if (listener != null) {
                    listener.ended(scheduled, System.nanoTime(), "sender-late");
                }
                continue;
            }
            outstanding.incrementAndGet();
            int partition = partitions.next(random);
            mix.send(client, users[(int) (scheduledCount % users.length)], partition, random,
                    CallOptions.timeout(Duration.ofNanos(remaining)))
                    .whenComplete((servedBy, e) -> {
                        boolean write = RequestMix.WRITE.equals(servedBy);
                        if (servedBy != null && !write && !servedBy.equals(RequestMix.NOT_A_NAMED_READ)) {
                            reads.increment();
                            if (servedBy.equals(primaryOf.apply(partition))) {
                                readsAtPrimary.increment();
                            }
                        }
                        long ended = System.nanoTime();
                        long latency = ended - scheduled;
                        if (listener != null) {
                            listener.ended(scheduled, ended,
                                    e != null ? kind(e) : latency > deadlineNanos ? "late" : null);
                        }
                        if (e != null) {
                            fail(failures, failed, kind(e));
                        } else {
                            long micros = Math.min(TimeUnit.NANOSECONDS.toMicros(latency),
                                    latencies.getHighestTrackableValue());
                            latencies.recordValue(micros);
                            if (write) {
                                writeLatencies.recordValue(micros);
                            }
                            if (latency <= deadlineNanos) {
                                onTime.increment();
                            } else {
                                fail(failures, failed, "late");
                            }
                        }
                        outstanding.decrementAndGet();
                    });
        }
        long waitUntil = System.nanoTime() + deadlineNanos + TimeUnit.SECONDS.toNanos(1);
        while (outstanding.get() > 0 && System.nanoTime() - waitUntil < 0) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        Map<String, Long> byKind = new TreeMap<>();
        failures.forEach((kind, count) -> byKind.put(kind, count.sum()));
        if (outstanding.get() > 0) {
            byKind.put("never-completed", (long) outstanding.get());
        }
        return new Result(rate, scheduledCount, onTime.sum(), planned, stopped,
                latencies.getValueAtPercentile(50) / 1000.0, latencies.getValueAtPercentile(99) / 1000.0,
                percentileMillis(writeLatencies, 50), percentileMillis(writeLatencies, 99), byKind,
                reads.sum() == 0 ? Double.NaN : (double) readsAtPrimary.sum() / reads.sum());
    }

    private static double percentileMillis(Histogram micros, double percentile) {
        return micros.getTotalCount() == 0 ? Double.NaN : micros.getValueAtPercentile(percentile) / 1000.0;
    }

    private static void fail(Map<String, LongAdder> failures, AtomicLong failed, String kind) {
        failed.incrementAndGet();
        failures.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    private static String kind(Throwable e) {
        Throwable cause = e;
        while (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getClass().getSimpleName();
    }
}
