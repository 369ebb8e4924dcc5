package io.neptune.server.internal;

import io.netty.channel.Channel;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The admin port's places: at most {@code maxConnections} connections open, of which at most
 * {@code maxConnections - healthReserve} may have a {@code /metrics} (or other non-health) answer
 * in progress, so that the rest stay for health probes however slowly scrapers read.
 *
 * <p>A connection accepted when every place is taken takes the place of the oldest connection that
 * has no request being answered (idle between requests, or still sending one): that one is
 * closed. When every connection has an answer in progress the new one is closed as it is accepted.
 * Since at most {@code maxConnections - healthReserve} answers in progress are slow ones, a probe
 * finds a place while slow scrapers hold theirs.
 *
 * <p>Thread-safety: thread-safe; {@link #admit} runs on the event loops that initialize accepted
 * channels.
 */
final class AdminConnections {
    private final int maxConnections;
    private final int maxBusy;
    private final Predicate<Channel> answering;
    private final Object lock = new Object();

    /** Open connections in the order they were accepted (guarded by lock). */
    private final Set<Channel> open = new LinkedHashSet<>();

    /** Non-health answers in progress (guarded by lock). */
    private int busy;

    private final LongAdder refused = new LongAdder();
    private final LongAdder evicted = new LongAdder();
    private final LongAdder busyRefused = new LongAdder();

    /**
     * Places for {@code maxConnections}, {@code healthReserve} of them never held by a non-health answer.
     *
     * @param answering whether a connection has a request being answered (it is not taken over then)
     */
    AdminConnections(int maxConnections, int healthReserve, Predicate<Channel> answering) {
        if (maxConnections < 2 || healthReserve < 1 || healthReserve >= maxConnections) {
            throw new IllegalArgumentException("maxConnections: " + maxConnections + ", healthReserve: " + healthReserve
                    + " (expected: 1 <= healthReserve < maxConnections)");
        }
        this.maxConnections = maxConnections;
        this.maxBusy = maxConnections - healthReserve;
        this.answering = answering;
    }

    /**
     * Whether {@code channel}, just accepted, may stay open; if not it is counted and the caller
     * closes it. An idle connection may be closed to make room.
     */
    boolean admit(Channel channel) {
        @Nullable Channel victim = null;
        synchronized (lock) {
            if (open.size() >= maxConnections) {
                victim = oldestIdle();
                if (victim == null) {
                    refused.increment();
                    return false;
                }
                open.remove(victim);
                evicted.increment();
            }
            open.add(channel);
        }
        if (victim != null) {
            victim.close();
        }
        channel.closeFuture().addListener(f -> {
            synchronized (lock) {
                open.remove(channel);
            }
        });
        return true;
    }

    /** Holding lock. */
    private @Nullable Channel oldestIdle() {
        for (Channel candidate : open) { // in the order they were accepted
            if (!answering.test(candidate)) {
                return candidate;
            }
        }
        return null;
    }

    /**
     * Takes a place for a non-health answer, if one is free; the caller gives it back with
     * {@link #release} once the answer is written (or failed to be).
     */
    boolean tryAcquireBusy() {
        synchronized (lock) {
            if (busy >= maxBusy) {
                busyRefused.increment();
                return false;
            }
            busy++;
            return true;
        }
    }

    /** Gives back a place {@link #tryAcquireBusy} took. */
    void release() {
        synchronized (lock) {
            busy--;
        }
    }

    /** Non-health answers in progress; for tests. */
    int busy() {
        synchronized (lock) {
            return busy;
        }
    }

    /** Open connections; for tests. */
    int open() {
        synchronized (lock) {
            return open.size();
        }
    }

    /** Connections closed as they were accepted: every place had an answer in progress. */
    long refused() {
        return refused.sum();
    }

    /** Idle connections closed to make room for a new one. */
    long evicted() {
        return evicted.sum();
    }

    /** Non-health requests answered 503 because every place for them had an answer in progress. */
    long busyRefused() {
        return busyRefused.sum();
    }
}
