package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.AlreadyAppliedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;

/**
 * Writes to {@link KvTestService} with a bounded window of async calls, and audits replicas
 * afterwards: write {@code id} appends {@code "," + id} to key {@code k<(id / partitions) % KEYS>}
 * of partition {@code id % partitions}, so every replica's values tell exactly which writes it
 * applied, how often, and (through the digests) in which order.
 *
 * <p>Thread-safety: thread-safe; {@link #start}/{@link #stop} and {@link #write} are called by the
 * test thread.
 */
final class KvWriteLoad implements AutoCloseable {
    static final String SERVICE = "kv";
    static final int KEYS = 4;
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(60);

    private final NeptuneClient client;
    private final int partitions;
    private final int window;
    private final CallOptions options;
    private final Semaphore permits;
    private final AtomicLong nextId = new AtomicLong();
    private final Set<Long> acknowledged = ConcurrentHashMap.newKeySet();
    private final Set<Long> unknown = ConcurrentHashMap.newKeySet();
    private final Map<String, Long> failureKinds = new ConcurrentHashMap<>();
    /** How many acknowledgements came in at each {@link System#nanoTime()}: their rate and their gaps. */
    private final ConcurrentSkipListMap<Long, Integer> acknowledgedAt = new ConcurrentSkipListMap<>();
    private volatile long startNanos = System.nanoTime();
    private volatile long stopNanos;
    private volatile boolean running;
    private volatile @Nullable Throwable writerFailure;
    private @Nullable Thread writer;

    /** A load of at most {@code window} calls in flight, each with {@code timeout}. */
    KvWriteLoad(NeptuneClient client, int partitions, int window, Duration timeout) {
        this.client = client;
        this.partitions = partitions;
        this.window = window;
        this.options = CallOptions.timeout(timeout);
        this.permits = new Semaphore(window);
    }

    /** Issues {@code count} writes and returns once every one completed. */
    void write(int count) {
        for (int i = 0; i < count; i++) {
            issueNext();
        }
        drain();
    }

    /** Starts writing continuously on a background thread until {@link #stop}. */
    void start() {
        start(0);
    }

    /**
     * Starts writing continuously on a background thread until {@link #stop}, at most
     * {@code perSecond} writes a second (0: as fast as the window allows).
     */
    void start(int perSecond) {
        running = true;
        startNanos = System.nanoTime();
        long interval = perSecond == 0 ? 0 : TimeUnit.SECONDS.toNanos(1) / perSecond;
        Thread thread = new Thread(() -> {
            try {
                long next = System.nanoTime();
                while (running) {
                    if (interval > 0) {
                        next += interval;   // pacing the load, not waiting for anything
                        LockSupport.parkNanos(next - System.nanoTime());
                    }
                    issueNext();
                }
            } catch (Throwable e) {
                writerFailure = e;
            }
        }, "kv-write-load");
        thread.setDaemon(true);
        writer = thread;
        thread.start();
    }

    /** Stops the background writer and waits until every call in flight completed. */
    void stop() {
        running = false;
        stopNanos = System.nanoTime();
        Thread thread = writer;
        if (thread != null) {
            try {
                thread.join(DRAIN_TIMEOUT.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            writer = null;
        }
        drain();
        Throwable failure = writerFailure;
        if (failure != null) {
            throw new AssertionError("the write load failed", failure);
        }
    }

    private void issueNext() {
        try {
            if (!permits.tryAcquire(DRAIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("no write completed within " + DRAIN_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
        long id = nextId.getAndIncrement();
        KvTestService.Append append = new KvTestService.Append(key(id), "," + id);
        client.callAsync(NeptuneHandle.create(), SERVICE, partition(id), "append", AccessMode.WRITE, append,
                KvTestService.Written.class, options).whenComplete((written, error) -> {
                    if (error == null) {
                        acknowledged.add(id);
                        acknowledgedAt.merge(System.nanoTime(), 1, Integer::sum);
                    } else if (cause(error) instanceof AlreadyAppliedException) {
                        acknowledged.add(id); // a retry found it applied: as good as an acknowledgement
                    } else {
                        unknown.add(id);
                        failureKinds.merge(cause(error).getClass().getSimpleName(), 1L, Long::sum);
                    }
                    permits.release();
                });
    }

    private static Throwable cause(Throwable error) {
        return error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private void drain() {
        try {
            if (!permits.tryAcquire(window, DRAIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("writes still in flight after " + DRAIN_TIMEOUT);
            }
            permits.release(window);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    int partition(long id) {
        return (int) (id % partitions);
    }

    String key(long id) {
        return "k" + (id / partitions) % KEYS;
    }

    /** Writes acknowledged so far. */
    int acknowledged() {
        return acknowledged.size();
    }

    /**
     * Writes acknowledged in each whole second between {@link #start} and {@link #stop} (a retry that
     * found its write applied is not counted: it says nothing of when the write ran).
     */
    List<Long> acknowledgedPerSecond() {
        long seconds = (stopNanos - startNanos) / 1_000_000_000L;
        List<Long> rates = new ArrayList<>();
        for (long second = 0; second < seconds; second++) {
            long from = startNanos + second * 1_000_000_000L;
            rates.add(acknowledgedAt.subMap(from, from + 1_000_000_000L).values().stream().mapToLong(n -> n).sum());
        }
        return rates;
    }

    /**
     * The longest time without an acknowledgement between {@code fromNanos} and {@code fromNanos +
     * window} ({@link System#nanoTime()}): how long writes stalled around an event at {@code fromNanos}.
     */
    Duration longestGap(long fromNanos, Duration window) {
        long end = fromNanos + window.toNanos();
        long previous = fromNanos;
        long longest = 0;
        for (long at : acknowledgedAt.subMap(fromNanos, end).keySet()) {
            longest = Math.max(longest, at - previous);
            previous = at;
        }
        return Duration.ofNanos(Math.max(longest, end - previous));
    }

    /** Whole seconds since {@link #start}: the index in {@link #acknowledgedPerSecond()} of the second now under way. */
    int secondsSinceStart() {
        return (int) ((System.nanoTime() - startNanos) / 1_000_000_000L);
    }

    /** The ids of the writes acknowledged so far. */
    Set<Long> acknowledgedIds() {
        return Set.copyOf(acknowledged);
    }

    /** Writes that failed: their outcome is unknown (applied at most once). */
    int unknown() {
        return unknown.size();
    }

    /** Failed writes by exception type, for the report. */
    Map<String, Long> failureKinds() {
        return Map.copyOf(failureKinds);
    }

    /**
     * Waits until {@code nodes} converged on every partition (each applied its whole log; equal
     * versions and digests), then checks each replica's data: every acknowledged write present
     * exactly once, nothing but acknowledged or failed writes, and one {@code kv_log} row per
     * write. Returns the number of writes the replicas hold.
     */
    long audit(ReplicatedProcesses cluster, List<String> nodes, Duration convergence) {
        return audit(cluster.observer(), nodes, convergence);
    }

    /**
     * Like {@link #audit(ReplicatedProcesses, List, Duration)}, asking {@code nodes} through {@code observer},
     * a member of their cluster (a client process of its own, say).
     */
    long audit(NeptuneNode observer, List<String> nodes, Duration convergence) {
        awaitConverged(observer, nodes, convergence);
        long total = 0;
        for (int p = 0; p < partitions; p++) {
            Set<Long> expected = new HashSet<>();
            Set<Long> allowed = new HashSet<>();
            for (long id : acknowledged) {
                if (partition(id) == p) {
                    expected.add(id);
                }
            }
            allowed.addAll(expected);
            for (long id : unknown) {
                if (partition(id) == p) {
                    allowed.add(id);
                }
            }
            Set<Long> first = null;
            for (String node : nodes) {
                List<Long> held = new ArrayList<>();
                for (int k = 0; k < KEYS; k++) {
                    KvTestService.Value value = ReplicatedProcesses.readFrom(observer, node, SERVICE, p, "get",
                            new KvTestService.Get("k" + k), KvTestService.Value.class);
                    if (value.v() != null) {
                        for (String token : value.v().split(",")) {
                            if (!token.isEmpty()) {
                                held.add(Long.parseLong(token));
                            }
                        }
                    }
                }
                long count = ReplicatedProcesses.readFrom(observer, node, SERVICE, p, "count", new KvTestService.Count(),
                        Long.class);
                Set<Long> distinct = new HashSet<>(held);
                String where = node + " " + SERVICE + "#" + p;
                assertThat(held).as("no write applied twice on %s", where).doesNotHaveDuplicates();
                assertThat(distinct).as("every acknowledged write on %s", where).containsAll(expected);
                assertThat(allowed).as("only writes that were issued on %s", where).containsAll(distinct);
                assertThat(count).as("kv_log rows on %s = writes in its values", where).isEqualTo(held.size());
                if (first == null) {
                    first = distinct;
                    total += distinct.size();
                } else {
                    assertThat(distinct).as("same writes on every replica of %s#%d", SERVICE, p).isEqualTo(first);
                }
            }
        }
        return total;
    }

    /** Waits until every node applied its whole log and all agree on versions and digests. */
    void awaitConverged(ReplicatedProcesses cluster, List<String> nodes, Duration timeout) {
        awaitConverged(cluster.observer(), nodes, timeout);
    }

    /** Like {@link #awaitConverged(ReplicatedProcesses, List, Duration)}, asking through {@code observer}. */
    void awaitConverged(NeptuneNode observer, List<String> nodes, Duration timeout) {
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            String[] last = {""};
            try {
                ReplicatedProcesses.await(() -> {
                    Set<String> states = new HashSet<>();
                    boolean complete = true;
                    StringBuilder seen = new StringBuilder();
                    for (String node : nodes) {
                        Map<String, Object> s = ReplicatedProcesses.status(observer, node, SERVICE, partition);
                        complete &= s.get("applied").equals(s.get("logEnd")) && !"RECOVERING".equals(s.get("role"));
                        states.add(s.get("applied") + "/" + s.get("digest"));
                        seen.append(node).append('=').append(s).append(' ');
                    }
                    last[0] = seen.toString();
                    return complete && states.size() == 1;
                }, timeout, "convergence of " + SERVICE + "#" + partition + " on " + nodes);
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; last: " + last[0] + differences(observer, nodes, p), e);
            }
        }
    }

    /** Where the replicas' values of {@code partition} first differ, key by key. */
    private static String differences(NeptuneNode observer, List<String> nodes, int partition) {
        StringBuilder report = new StringBuilder();
        for (int k = 0; k < KEYS; k++) {
            List<List<String>> values = new ArrayList<>();
            for (String node : nodes) {
                String v = ReplicatedProcesses.readFrom(observer, node, SERVICE, partition, "get",
                        new KvTestService.Get("k" + k), KvTestService.Value.class).v();
                values.add(v == null ? List.of() : List.of(v.split(",")));
            }
            int at = 0;
            int common = values.stream().mapToInt(List::size).min().orElse(0);
            while (at < common) {
                int i = at;
                if (values.stream().map(v -> v.get(i)).distinct().count() > 1) {
                    break;
                }
                at++;
            }
            report.append("\n  k").append(k).append(": first difference at token ").append(at).append(':');
            for (int n = 0; n < nodes.size(); n++) {
                List<String> v = values.get(n);
                report.append("\n    ").append(nodes.get(n)).append(" (").append(v.size()).append(" tokens) ")
                        .append(v.subList(Math.min(at, v.size()), Math.min(at + 8, v.size())));
            }
        }
        return report.toString();
    }

    /** Stops the load; idempotent. */
    @Override
    public void close() {
        running = false;
    }
}
