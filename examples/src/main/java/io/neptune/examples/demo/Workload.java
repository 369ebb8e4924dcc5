package io.neptune.examples.demo;

import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.examples.echo.EchoService.EchoReply;
import io.neptune.examples.echo.EchoService.EchoRequest;
import io.neptune.examples.echo.WorkService.WorkReply;
import io.neptune.examples.echo.WorkService.WorkRequest;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * A closed-loop workload: {@code clients} callers, each sending its next call when the last one
 * answered, half echo and half work calls on random partitions. Prints one progress line per second
 * and a summary with the {@code RESULT} line.
 *
 * <p>Thread-safety: run once from one thread; callers are its own threads.
 */
final class Workload {
    private final NeptuneClient client;
    private final int clients;
    private final Duration duration;
    private final long workMillis;
    private final int partitions;
    private final PrintStream out;
    private final Recorder recorder = new Recorder(3);
    private final Histogram total = new Histogram(3);
    private final LongAdder errors = new LongAdder();
    private final Map<String, LongAdder> servedBy = new ConcurrentHashMap<>();
    private final Map<String, AtomicLong> errorKinds = new ConcurrentHashMap<>();
    private volatile boolean running = true;

    Workload(NeptuneClient client, int clients, Duration duration, long workMillis, int partitions, PrintStream out) {
        this.client = client;
        this.partitions = partitions;
        this.clients = clients;
        this.duration = duration;
        this.workMillis = workMillis;
        this.out = out;
    }

    /** Runs the workload and returns the RESULT line. */
    String run() throws InterruptedException {
        List<Thread> callers = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < clients; i++) {
            Thread caller = new Thread(this::callLoop, "demo-client-" + i);
            caller.setDaemon(true);
            callers.add(caller);
            caller.start();
        }
        long end = start + duration.toNanos();
        long errorsBefore = 0;
        for (int second = 1; System.nanoTime() < end; second++) {
            long next = start + TimeUnit.SECONDS.toNanos(second);
            TimeUnit.NANOSECONDS.sleep(Math.max(0, Math.min(next, end) - System.nanoTime()));
            Histogram interval = recorder.getIntervalHistogram();
            total.add(interval);
            long errorsNow = errors.sum();
            out.printf(Locale.ROOT, "[%3ds] %,8d req/s  p50=%7.2fms  p99=%7.2fms  errors=%d%n", second,
                    interval.getTotalCount(), millis(interval.getValueAtPercentile(50)),
                    millis(interval.getValueAtPercentile(99)), errorsNow - errorsBefore);
            errorsBefore = errorsNow;
        }
        running = false;
        for (Thread caller : callers) {
            caller.join(TimeUnit.SECONDS.toMillis(30));
        }
        total.add(recorder.getIntervalHistogram());
        double seconds = (System.nanoTime() - start) / 1e9;
        return summary(seconds);
    }

    private void callLoop() {
        NeptuneHandle handle = NeptuneHandle.create();
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (running) {
            boolean echo = random.nextBoolean();
            int partition = random.nextInt(partitions);
            long begin = System.nanoTime();
            try {
                String node;
                if (echo) {
                    node = client.call(handle, "echo", partition, "echo", AccessMode.READ,
                            new EchoRequest("hello " + partition), EchoReply.class).node();
                } else {
                    node = client.call(handle, "work", partition, "work", AccessMode.READ,
                            new WorkRequest(workMillis), WorkReply.class).node();
                }
                recorder.recordValue(Math.max(1, (System.nanoTime() - begin) / 1000));
                servedBy.computeIfAbsent(node, n -> new LongAdder()).increment();
            } catch (RuntimeException e) {
                errors.increment();
                errorKinds.computeIfAbsent(e.getClass().getSimpleName() + ": " + e.getMessage(),
                        k -> new AtomicLong()).incrementAndGet();
            }
        }
    }

    private String summary(double seconds) {
        long requests = total.getTotalCount();
        out.println();
        out.println("Requests served per node:");
        out.printf(Locale.ROOT, "  %-12s %10s %7s%n", "node", "requests", "share");
        Map<String, Long> sorted = new TreeMap<>();
        servedBy.forEach((node, count) -> sorted.put(node, count.sum()));
        sorted.forEach((node, count) -> out.printf(Locale.ROOT, "  %-12s %,10d %6.1f%%%n", node, count,
                requests == 0 ? 0.0 : 100.0 * count / requests));
        if (!errorKinds.isEmpty()) {
            out.println("Errors:");
            errorKinds.entrySet().stream().limit(10).forEach(e -> out.printf("  %,d x %s%n", e.getValue().get(), e.getKey()));
        }
        long nodes = sorted.values().stream().filter(c -> c > 0).count();
        return String.format(Locale.ROOT, "RESULT requests=%d errors=%d throughput=%.1f/s p50=%.2fms p99=%.2fms nodes=%d",
                requests, errors.sum(), requests / seconds, millis(total.getValueAtPercentile(50)),
                millis(total.getValueAtPercentile(99)), nodes);
    }

    private static double millis(long micros) {
        return micros / 1000.0;
    }
}
