package io.neptune.server.internal;

import io.neptune.server.StopOutcome;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serving until stopped, as {@code NeptuneNode.runUntilStopped()} does: the first stop signal
 * (SIGTERM, Ctrl-C) drains the node within its budget and then closes it, so a pod stop or a rolling
 * upgrade hands primaries over instead of failing them over by election; a second signal closes it
 * at once. Where the JVM does not let the process handle its signals ({@link StopSignals}), a
 * shutdown hook drains within the budget instead, and a second signal changes nothing.
 *
 * <p>Thread-safety: {@link #run} is called once; signals arrive on the JVM's signal dispatcher
 * thread, the drain runs on a thread of its own.
 */
public final class SignalledStop {
    private static final Logger logger = LoggerFactory.getLogger(SignalledStop.class);

    /** Drains the node within a budget, then closes it; returns whether the drain finished in time. */
    @FunctionalInterface
    public interface Drain {
        boolean drain(Duration budget) throws InterruptedException;
    }

    /** Blocks until the node is closed. */
    @FunctionalInterface
    public interface AwaitClose {
        void await() throws InterruptedException;
    }

    private final String node;
    private final Duration budget;
    private final Drain drain;
    private final Runnable close;
    private final AwaitClose awaitClose;
    private final AtomicInteger signals = new AtomicInteger();
    private volatile StopOutcome outcome = StopOutcome.CLOSED;
    private volatile @Nullable Thread drainer;

    public SignalledStop(String node, Duration budget, Drain drain, Runnable close, AwaitClose awaitClose) {
        this.node = node;
        this.budget = budget;
        this.drain = drain;
        this.close = close;
        this.awaitClose = awaitClose;
    }

    /**
     * Serves until the node is closed, by a signal or otherwise; returns how it stopped. Calls
     * {@code serving} once signals are handled.
     */
    public StopOutcome run(Runnable serving) throws InterruptedException {
        Optional<StopSignals.Registration> registration = StopSignals.listen(this::onSignal);
        // A JVM that exits otherwise (System.exit, the last non-daemon thread) still closes the node; one that
        // does not let us handle signals drains it here, within the budget, when a signal comes.
        Thread hook = new Thread(registration.isPresent() ? close : this::drainThenClose, "neptune-" + node + "-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            serving.run();
            awaitClose.await();
            Thread d = drainer;
            if (d != null) {
                d.join(); // the drain closes the node before it knows whether it finished in time
            }
            return outcome;
        } finally {
            registration.ifPresent(StopSignals.Registration::close);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook is what closed the node
            }
        }
    }

    private void onSignal(String signal) {
        int received = signals.incrementAndGet();
        if (received == 1) {
            logger.info("{}: SIG{}: draining (at most {} s; a second signal stops it at once)", node, signal,
                    budget.toSeconds());
            Thread thread = new Thread(this::drainThenClose, "neptune-" + node + "-drain-on-signal");
            drainer = thread;
            thread.start();
        } else if (received == 2) {
            logger.warn("{}: SIG{} again: stopping now, before the drain finished", node, signal);
            outcome = StopOutcome.FORCED;
            Thread d = drainer;
            if (d != null) {
                d.interrupt();
            }
            new Thread(close, "neptune-" + node + "-stop-now").start();
        }
    }

    private void drainThenClose() {
        try {
            boolean finished = drain.drain(budget);
            if (outcome != StopOutcome.FORCED) {
                outcome = finished ? StopOutcome.DRAINED : StopOutcome.DRAIN_INCOMPLETE;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the second signal: the drain closed the node on its way out
        }
    }
}
