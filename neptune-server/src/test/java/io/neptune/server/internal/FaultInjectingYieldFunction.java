package io.neptune.server.internal;

import io.neptune.core.YieldFunction;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A service provider's own yield function (throughput: 1 until the deadline, then 0) that, once a
 * test {@linkplain #inject injects} a fault, throws from {@link #yieldAt} or {@link #deadline()} or blocks in it or in
 * {@link #deadline()} until {@link #release()} (at most 30 s). It does not override
 * {@link YieldFunction#fullYield()}, as a provider's function need not.
 *
 * <p>Thread-safety: thread-safe.
 */
final class FaultInjectingYieldFunction implements YieldFunction {
    /** What the function does wrong. */
    enum Fault {
        NONE, THROW_FROM_YIELD_AT, THROW_FROM_DEADLINE, BLOCK_IN_YIELD_AT, BLOCK_IN_DEADLINE
    }

    private final YieldFunction real;
    private final CountDownLatch blocked = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile Fault fault = Fault.NONE;

    FaultInjectingYieldFunction(Duration deadline) {
        this.real = YieldFunction.throughput(1, deadline);
    }

    /** From now on, every call does {@code fault}. */
    void inject(Fault fault) {
        this.fault = fault;
    }

    /** Waits until a call blocks; false if none did within 30 s. */
    boolean awaitBlocked() throws InterruptedException {
        return blocked.await(30, TimeUnit.SECONDS);
    }

    /** Lets every blocked call, and every later one, return. */
    void release() {
        released.countDown();
    }

    @Override
    public double yieldAt(long responseNanos) {
        if (fault == Fault.THROW_FROM_YIELD_AT) {
            throw new IllegalStateException("a yield function failing on purpose");
        }
        if (fault == Fault.BLOCK_IN_YIELD_AT) {
            block();
        }
        return real.yieldAt(responseNanos);
    }

    @Override
    public Duration deadline() {
        if (fault == Fault.THROW_FROM_DEADLINE) {
            throw new IllegalStateException("a deadline failing on purpose");
        }
        if (fault == Fault.BLOCK_IN_DEADLINE) {
            block();
        }
        return real.deadline();
    }

    private void block() {
        blocked.countDown();
        try {
            released.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "FaultInjectingYieldFunction[" + fault + ", " + real + "]";
    }
}
