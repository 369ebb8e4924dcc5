package io.neptune.benchmarks.nemesis;

import io.neptune.benchmarks.nemesis.ListAppendService.Append;
import io.neptune.benchmarks.nemesis.ListAppendService.Appended;
import io.neptune.benchmarks.nemesis.ListAppendService.Listed;
import io.neptune.benchmarks.nemesis.ListAppendService.ReadList;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.AlreadyAppliedException;
import io.neptune.core.NeptuneException;
import io.neptune.core.OutcomeUnknownException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The list-append workload: {@code processes} threads, each a logical client process with its own
 * session ({@link NeptuneHandle}) and its own {@link Random} seeded from the run's seed and its
 * slot, loop: pick one of {@code keys} active keys at random, then append a fresh unique value to
 * it or read it (50/50), recording each invocation and completion in the history; between
 * operations a random think time (uniform, mean {@code think}).
 *
 * <p>Keys rotate as in Jepsen's list-append: after {@value #APPENDS_PER_KEY} appends were invoked
 * on a key, its slot moves on to a fresh key, so lists stay short (a read returns at most about
 * that many values) while few keys keep contention real.
 *
 * <p>Thread-safety: {@link #start} and {@link #stop} from one thread; the workers share only the
 * thread-safe recorder, key slots and counters.
 */
final class Workload {
    /** Appends invoked on a key before its slot moves to a fresh key. */
    static final int APPENDS_PER_KEY = 64;

    private final NeptuneClient client;
    private final String service;
    private final HistoryRecorder history;
    private final long seed;
    private final int processes;
    private final Duration think;
    private final KeySlots slots;
    private final AtomicLong values = new AtomicLong();
    private final AtomicLong ok = new AtomicLong();
    private final AtomicLong fail = new AtomicLong();
    private final AtomicLong info = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;

    Workload(NeptuneClient client, String service, HistoryRecorder history, long seed, int processes, int keys,
            Duration think) {
        this.client = client;
        this.service = service;
        this.history = history;
        this.seed = seed;
        this.processes = processes;
        this.think = think;
        this.slots = new KeySlots(keys);
    }

    /** Starts the worker threads. */
    void start() {
        for (int slot = 0; slot < processes; slot++) {
            int s = slot;
            Thread thread = new Thread(() -> run(s), "nemesis-process-" + slot);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
    }

    /** Completed operations so far: ok, fail, info. */
    long[] counts() {
        return new long[] {ok.get(), fail.get(), info.get()};
    }

    /** Stops invoking; waits up to {@code grace} for the operations in flight to complete. */
    void stop(Duration grace) throws InterruptedException {
        stopping = true;
        long deadline = System.nanoTime() + grace.toNanos();
        for (Thread thread : threads) {
            thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
    }

    private void run(int slot) {
        Random random = new Random(new SplittableRandom(seed).split().nextLong() + slot * 0x9E3779B97F4A7C15L);
        int process = slot;
        int sessions = 0;
        NeptuneHandle handle = NeptuneHandle.create();
        String session = "s" + slot + "-" + sessions;
        while (!stopping) {
            String key = slots.pick(random.nextInt(slots.size()));
            int partition = ListAppendService.partitionOf(key);
            boolean unknown = random.nextBoolean()
                    ? append(process, handle, session, key, partition)
                    : read(process, handle, session, key, partition);
            if (unknown) {   // the process may still have an operation in flight: it is replaced
                process += processes;
                sessions++;
                handle = NeptuneHandle.create();
                session = "s" + slot + "-" + sessions;
            }
            long pause = (long) (random.nextDouble() * 2 * think.toNanos());
            LockSupport.parkNanos(pause);
        }
    }

    /** Appends a fresh value; returns whether the outcome is unknown. */
    private boolean append(int process, NeptuneHandle handle, String session, String key, int partition) {
        long value = values.incrementAndGet();
        slots.appended(key);
        history.invoke(process, "append", key, partition, value, session);
        try {
            Appended done = client.call(handle, service, partition, "append", AccessMode.WRITE, new Append(key, value),
                    Appended.class);
            history.ok(process, "append", key, partition, value, done.node(), done.lsn(), session);
            ok.incrementAndGet();
            return false;
        } catch (RuntimeException e) {
            boolean unknown = mayHaveRun(e);
            history.failed(process, unknown, "append", key, partition, value, session, describe(e));
            (unknown ? info : fail).incrementAndGet();
            return unknown;
        }
    }

    /** Reads a key; a failed read did not happen, so its outcome is never unknown. */
    private boolean read(int process, NeptuneHandle handle, String session, String key, int partition) {
        history.invoke(process, "read", key, partition, null, session);
        try {
            Listed done = client.call(handle, service, partition, "read", AccessMode.READ, new ReadList(key),
                    Listed.class);
            history.ok(process, "read", key, partition, done.values(), done.node(), done.version(), session);
            ok.incrementAndGet();
        } catch (RuntimeException e) {
            history.failed(process, false, "read", key, partition, null, session, describe(e));
            fail.incrementAndGet();
        }
        return false;
    }

    /**
     * Whether a failed write may have run. The client says so itself: every write failure that may
     * have run is an {@link OutcomeUnknownException}; any other Neptune exception proves it did not
     * (the phantom-reads checker holds the client to that), except {@link AlreadyAppliedException},
     * which says it ran. A failure from outside Neptune proves nothing.
     */
    static boolean mayHaveRun(Throwable e) {
        return !(e instanceof NeptuneException) || e instanceof OutcomeUnknownException
                || e instanceof AlreadyAppliedException;
    }

    private static String describe(Throwable e) {
        String message = e.getMessage();
        return e.getClass().getSimpleName() + (message == null ? "" : ": " + message);
    }

    /** The active keys: slot {@code i} holds {@code "k" + (i + n * size)} after its n-th rotation. */
    private static final class KeySlots {
        private final String[] keys;
        private final int[] appends;

        KeySlots(int size) {
            keys = new String[size];
            appends = new int[size];
            for (int i = 0; i < size; i++) {
                keys[i] = "k" + i;
            }
        }

        int size() {
            return keys.length;
        }

        synchronized String pick(int slot) {
            return keys[slot];
        }

        /** Counts an append invoked on {@code key}; rotates its slot when the key is full. */
        synchronized void appended(String key) {
            int slot = Integer.parseInt(key.substring(1)) % keys.length;
            if (!keys[slot].equals(key)) {
                return;   // rotated meanwhile
            }
            if (++appends[slot] >= APPENDS_PER_KEY) {
                appends[slot] = 0;
                keys[slot] = "k" + (Integer.parseInt(key.substring(1)) + keys.length);
            }
        }
    }
}
