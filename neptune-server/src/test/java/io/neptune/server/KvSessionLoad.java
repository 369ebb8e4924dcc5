package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.server.KvTestService.Get;
import io.neptune.server.KvTestService.Put;
import io.neptune.server.KvTestService.Value;
import io.neptune.server.KvTestService.Written;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Calls {@link KvTestService} from a few threads until closed, each thread a session of its own
 * that writes a new key and reads back one it wrote before, at a steady pace; every failed call and
 * every wrong answer is kept. {@link #verify} then reads every acknowledged write.
 *
 * <p>Thread-safety: thread-safe; {@link #close} and {@link #verify} are called by the test thread.
 */
final class KvSessionLoad implements AutoCloseable {
    private static final String SERVICE = "kv";
    private static final int PARTITIONS = 8;
    private static final CallOptions OPTIONS = CallOptions.timeout(Duration.ofSeconds(20));
    private static final long STOP_TIMEOUT_MILLIS = 60_000;

    private final NeptuneClient client;
    private final long paceNanos;
    private final List<Thread> threads = new ArrayList<>();
    private final List<NeptuneHandle> sessions = new ArrayList<>();
    /** Acknowledged writes: key → the session that wrote it. */
    private final Map<String, Integer> acknowledged = new ConcurrentHashMap<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private final AtomicLong calls = new AtomicLong();
    private volatile boolean running = true;

    private KvSessionLoad(NeptuneClient client, Duration pace) {
        this.client = client;
        this.paceNanos = pace.toNanos();
    }

    /** Starts {@code sessions} threads, each writing and reading once per {@code pace}. */
    static KvSessionLoad start(NeptuneClient client, int sessions, Duration pace) {
        KvSessionLoad load = new KvSessionLoad(client, pace);
        for (int i = 0; i < sessions; i++) {
            int session = i;
            load.sessions.add(NeptuneHandle.create());
            Thread thread = new Thread(() -> load.run(session), "kv-session-" + i);
            thread.setDaemon(true);
            load.threads.add(thread);
        }
        load.threads.forEach(Thread::start);
        return load;
    }

    private void run(int session) {
        NeptuneHandle handle = sessions.get(session);
        long next = System.nanoTime();
        for (int n = 0; running; n++) {
            next += paceNanos; // pacing the load, not waiting for anything
            LockSupport.parkNanos(next - System.nanoTime());
            String key = key(session, n);
            try {
                client.call(handle, SERVICE, partition(key), "put", AccessMode.WRITE, new Put(key, key), Written.class,
                        OPTIONS);
                acknowledged.put(key, session);
                calls.incrementAndGet();
                String earlier = key(session, ThreadLocalRandom.current().nextInt(n + 1));
                if (acknowledged.containsKey(earlier)) {
                    Value value = client.call(handle, SERVICE, partition(earlier), "get", AccessMode.READ,
                            new Get(earlier), Value.class, OPTIONS);
                    calls.incrementAndGet();
                    if (!earlier.equals(value.v())) {
                        failures.add("read of " + earlier + " answered " + value);
                    }
                }
            } catch (RuntimeException e) {
                failures.add(key + ": " + e);
            }
        }
    }

    private static String key(int session, int n) {
        return "s" + session + "-" + n;
    }

    private static int partition(String key) {
        return Math.floorMod(key.hashCode(), PARTITIONS);
    }

    /** Calls that succeeded so far. */
    long calls() {
        return calls.get();
    }

    /** Failed calls and wrong answers so far. */
    List<String> failures() {
        return List.copyOf(failures);
    }

    /** Stops the threads (after their call in progress) and waits for them. */
    @Override
    public void close() {
        running = false;
        for (Thread thread : threads) {
            try {
                thread.join(STOP_TIMEOUT_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            assertThat(thread.isAlive()).as("%s stopped", thread.getName()).isFalse();
        }
    }

    /** Reads every acknowledged write (in its writer's session) and checks its value; the number read. */
    int verify() throws Exception {
        Semaphore window = new Semaphore(64);
        List<CompletableFuture<Void>> reads = new ArrayList<>();
        for (Map.Entry<String, Integer> write : acknowledged.entrySet()) {
            String key = write.getKey();
            window.acquire();
            reads.add(client.callAsync(sessions.get(write.getValue()), SERVICE, partition(key), "get", AccessMode.READ,
                    new Get(key), Value.class, OPTIONS).handle((value, error) -> {
                        window.release();
                        if (error != null) {
                            failures.add("final read of " + key + ": " + error);
                        } else if (!key.equals(value.v())) {
                            failures.add("final read of " + key + " answered " + value);
                        }
                        return null;
                    }));
        }
        CompletableFuture.allOf(reads.toArray(new CompletableFuture<?>[0])).get(STOP_TIMEOUT_MILLIS,
                TimeUnit.MILLISECONDS);
        return reads.size();
    }
}
