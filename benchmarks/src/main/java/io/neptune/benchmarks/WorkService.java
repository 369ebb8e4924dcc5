package io.neptune.benchmarks;

import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The emulated server of {@link LoadBalancingExperiment}: {@link #work} holds the calling worker
 * for the service time the request names, sleeping (not spinning), so that a node with one worker
 * behaves like the dissertation's server model (one non-preemptive processing unit and a FIFO
 * queue) whatever the host's core count. The service has only {@link Read} methods, so it is not
 * replicated through REDO logs and any replica may serve a call.
 *
 * <p>The experiment runs several policies side by side on the same 16 nodes, each on a service of
 * its own; a service name comes from the {@link NeptuneService} annotation, hence one tiny subclass
 * per slot ({@link #forSlot}). Each slot is an independent emulated 16-server system: its own
 * worker and queue on every node, its own load index, its own announcements and tracker entries.
 *
 * <p>Thread-safety: thread-safe; the oversleep estimate is an atomic value, approximate when
 * several workers update it at once.
 */
public abstract class WorkService {
    /** How many slots (independent emulated clusters) one node can host. */
    static final int SLOTS = 10;

    /**
     * A request to hold a worker.
     *
     * @param micros the service time in microseconds
     */
    public record Work(long micros) {}

    /**
     * The reply.
     *
     * @param heldMicros how long the worker was really held, sleep overshoot included
     */
    public record Done(long heldMicros) {}

    /** Running mean of how late a sleep woke up; see {@link #work}. */
    private final AtomicLong oversleepNanos = new AtomicLong();

    /** Subclasses only: one per slot. */
    protected WorkService() {}

    /**
     * Holds the calling worker for {@code work.micros()} by sleeping, then answers.
     *
     * <p>A sleeping thread wakes up late, and on a busy 2-core host late by a millisecond or more,
     * which would raise the load above the level the experiment asks for. So the worker sleeps
     * until {@code start + micros - oversleep}, where {@code oversleep} is a running mean (weight
     * 1/16) of how late its recent sleeps woke: the time a worker is held then averages the
     * requested service time. {@link Done#heldMicros()} reports what it really was, and so does
     * {@link RequestContext#reportResourceUse} to a class-aware node's scheduler ({@link QosExperiment}),
     * which would otherwise measure the sleeping thread's CPU time: nearly nothing.
     */
    @Read
    public Done work(RequestContext context, Work work) throws InterruptedException {
        long start = System.nanoTime();
        long estimate = oversleepNanos.get();
        long end = start + Math.max(0, TimeUnit.MICROSECONDS.toNanos(work.micros()) - estimate);
        for (long left = end - start; left > 0; left = end - System.nanoTime()) {
            LockSupport.parkNanos(left); // sub-millisecond sleep; Thread.sleep rounds to whole milliseconds
            if (Thread.interrupted()) {
                throw new InterruptedException("work interrupted");
            }
        }
        long now = System.nanoTime();
        long late = now - end;
        oversleepNanos.set(estimate + (late - estimate) / 16);
        context.reportResourceUse(Duration.ofNanos(now - start)); // the emulated cost; the sleep uses no CPU
        return new Done(TimeUnit.NANOSECONDS.toMicros(now - start));
    }

    /** The service name of {@code slot}. */
    static String name(int slot) {
        return forSlot(slot).getClass().getAnnotation(NeptuneService.class).name();
    }

    /** A new instance of the service of {@code slot} ({@code 0..SLOTS-1}). */
    static WorkService forSlot(int slot) {
        return switch (slot) {
            case 0 -> new Slot0();
            case 1 -> new Slot1();
            case 2 -> new Slot2();
            case 3 -> new Slot3();
            case 4 -> new Slot4();
            case 5 -> new Slot5();
            case 6 -> new Slot6();
            case 7 -> new Slot7();
            case 8 -> new Slot8();
            case 9 -> new Slot9();
            default -> throw new IllegalArgumentException("slot: " + slot + " (expected: 0.." + (SLOTS - 1) + ")");
        };
    }

    /** Slot 0. */
    @NeptuneService(name = "lb-0", partitions = 1)
    public static final class Slot0 extends WorkService {}

    /** Slot 1. */
    @NeptuneService(name = "lb-1", partitions = 1)
    public static final class Slot1 extends WorkService {}

    /** Slot 2. */
    @NeptuneService(name = "lb-2", partitions = 1)
    public static final class Slot2 extends WorkService {}

    /** Slot 3. */
    @NeptuneService(name = "lb-3", partitions = 1)
    public static final class Slot3 extends WorkService {}

    /** Slot 4. */
    @NeptuneService(name = "lb-4", partitions = 1)
    public static final class Slot4 extends WorkService {}

    /** Slot 5. */
    @NeptuneService(name = "lb-5", partitions = 1)
    public static final class Slot5 extends WorkService {}

    /** Slot 6. */
    @NeptuneService(name = "lb-6", partitions = 1)
    public static final class Slot6 extends WorkService {}

    /** Slot 7. */
    @NeptuneService(name = "lb-7", partitions = 1)
    public static final class Slot7 extends WorkService {}

    /** Slot 8. */
    @NeptuneService(name = "lb-8", partitions = 1)
    public static final class Slot8 extends WorkService {}

    /** Slot 9. */
    @NeptuneService(name = "lb-9", partitions = 1)
    public static final class Slot9 extends WorkService {}
}
