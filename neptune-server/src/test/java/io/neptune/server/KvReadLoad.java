package io.neptune.server;

import io.neptune.client.CallOptions;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Closed-loop reads of random partitions and keys of a {@link KvTestService}, load balanced over
 * their replicas, from a few threads until {@link #stop()}: the reads a rolling restart must not fail.
 */
final class KvReadLoad {
    private final NeptuneClient client;
    private final String service;
    private final int partitions;
    private final Duration callTimeout;
    private final List<Thread> threads = new ArrayList<>();
    final AtomicLong succeeded = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    /** Each failure's kind and message, with how often it came. */
    final Map<String, Long> failures = new ConcurrentHashMap<>();
    private volatile boolean running;

    KvReadLoad(NeptuneClient client, String service, int partitions, Duration callTimeout) {
        this.client = client;
        this.service = service;
        this.partitions = partitions;
        this.callTimeout = callTimeout;
    }

    /** Starts {@code callers} reading threads. */
    void start(int callers) {
        running = true;
        for (int i = 0; i < callers; i++) {
            Thread thread = new Thread(this::run, "kv-reads-" + i);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    private void run() {
        NeptuneHandle handle = NeptuneHandle.create();
        while (running) {
            int partition = ThreadLocalRandom.current().nextInt(partitions);
            try {
                client.callAsync(handle, service, partition, "get", AccessMode.READ,
                        new KvTestService.Get("k" + ThreadLocalRandom.current().nextInt(KvWriteLoad.KEYS)),
                        KvTestService.Value.class, CallOptions.timeout(callTimeout)).join();
                succeeded.incrementAndGet();
            } catch (RuntimeException e) {
                failed.incrementAndGet();
                Throwable cause = e.getCause() == null ? e : e.getCause();
                failures.merge(cause.getClass().getSimpleName() + ": " + cause.getMessage(), 1L, Long::sum);
            }
        }
    }

    /** Stops the threads and waits until each finished its last call. */
    void stop() throws InterruptedException {
        running = false;
        for (Thread thread : threads) {
            thread.join(callTimeout.toMillis() * 2);
        }
    }
}
