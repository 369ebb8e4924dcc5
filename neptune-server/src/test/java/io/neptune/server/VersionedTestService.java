package io.neptune.server;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.Digest;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.Write;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An in-memory level-3 register per partition that remembers the LSN of the write that set it, so
 * every read tells which version of the partition it saw. Each instance can be made slow to apply
 * writes ({@link #applyDelayMillis}) or held at a gate ({@link #hold}), which makes the node's
 * replicas lag: that is how the level-3 tests create lagging secondaries on an in-JVM cluster.
 *
 * <p>Thread-safety: thread-safe; each partition's state is guarded by its own monitor.
 */
@NeptuneService(name = "versioned", partitions = 2, consistency = ConsistencyLevel.LEVEL_3, stalenessMillis = 1000)
public final class VersionedTestService {
    /** Sets the register. */
    public record Set(String value) {}

    /** The LSN the write was applied at. */
    public record Written(long lsn) {}

    /** Reads the register. */
    public record Get() {}

    /** The register, the LSN of the last write applied here, and the node that answered. */
    public record Value(String value, long lsn, String node) {}

    private static final class Register {
        String value = "";
        long applied;
    }

    /** Where {@link #hold} stops writes. */
    public enum Gate {
        /** Before the write changes the register: the replica's state and version both lag. */
        BEFORE_APPLYING,
        /** After the write changed the register, before the method returns: reads already see it. */
        AFTER_APPLYING
    }

    /** Writes stopped by {@link #hold}; closing it releases them. */
    public interface Hold extends AutoCloseable {
        /** Waits until a write is held at the gate (so the replica's replication executor is busy with it). */
        void awaitHeld(Duration timeout) throws InterruptedException;

        /** Releases the held writes and lets later ones pass; idempotent. */
        @Override
        void close();
    }

    private static final long MAX_HOLD_SECONDS = 30;

    private final ConcurrentHashMap<Integer, Register> registers = new ConcurrentHashMap<>();
    private final AtomicLong reads = new AtomicLong();
    private volatile long applyDelayMillis;
    private volatile CountDownLatch gate = new CountDownLatch(0);
    private volatile CountDownLatch held = new CountDownLatch(0);
    private volatile Gate gatePosition = Gate.BEFORE_APPLYING;

    /** A service that applies writes at once. */
    public VersionedTestService() {
        this(0);
    }

    /** A service that sleeps {@code applyDelayMillis} in every write before applying it. */
    public VersionedTestService(long applyDelayMillis) {
        this.applyDelayMillis = applyDelayMillis;
    }

    /** Changes how long every write sleeps before it applies. */
    public void applyDelayMillis(long millis) {
        this.applyDelayMillis = millis;
    }

    /**
     * Holds every write at {@code position} until the returned handle is closed (or for at most
     * {@value #MAX_HOLD_SECONDS} s, so a failed test never leaves a replica stuck).
     */
    public Hold hold(Gate position) {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch arrived = new CountDownLatch(1);
        gatePosition = position;
        held = arrived;
        gate = release;
        return new Hold() {
            @Override
            public void awaitHeld(Duration timeout) throws InterruptedException {
                if (!arrived.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new AssertionError("no write reached the gate within " + timeout);
                }
            }

            @Override
            public void close() {
                release.countDown();
            }
        };
    }

    private void pass(Gate position) throws InterruptedException {
        CountDownLatch release = gate;
        if (gatePosition == position && release.getCount() > 0) {
            held.countDown();
            if (!release.await(MAX_HOLD_SECONDS, TimeUnit.SECONDS)) {
                throw new IllegalStateException("write held for more than " + MAX_HOLD_SECONDS + " s");
            }
        }
    }

    private Register register(int partition) {
        return registers.computeIfAbsent(partition, p -> new Register());
    }

    @Write
    public Written set(RequestContext context, Set request) throws InterruptedException {
        long delay = applyDelayMillis;
        if (delay > 0) {
            TimeUnit.MILLISECONDS.sleep(delay);
        }
        pass(Gate.BEFORE_APPLYING);
        Register register = register(context.partition());
        synchronized (register) {
            if (context.lsn() <= register.applied) { // a new primary's no-op takes an LSN: numbers may be skipped
                throw new IllegalStateException("partition " + context.partition() + ": lsn " + context.lsn()
                        + " applied after " + register.applied + " (expected: above it)");
            }
            register.value = request.value();
            register.applied = context.lsn();
        }
        pass(Gate.AFTER_APPLYING);
        return new Written(context.lsn());
    }

    @Read
    public Value get(RequestContext context, Get request) {
        reads.incrementAndGet();
        Register register = register(context.partition());
        synchronized (register) {
            return new Value(register.value, register.applied, context.node().value());
        }
    }

    /** How many {@link #get} calls ran. */
    public long reads() {
        return reads.get();
    }

    @Check
    public boolean check(int partition, long lsn) {
        Register register = register(partition);
        synchronized (register) {
            return register.applied >= lsn;
        }
    }

    @Digest
    public String digest(int partition) {
        Register register = register(partition);
        synchronized (register) {
            return register.applied + ":" + register.value;
        }
    }
}
