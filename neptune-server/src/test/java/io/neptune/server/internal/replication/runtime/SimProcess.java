package io.neptune.server.internal.replication.runtime;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One node's process in a {@link Simulator}: everything it runs (its replica's executor, its timers,
 * messages delivered to it) is an event of the simulator that belongs to one incarnation. A crash
 * ends the incarnation, and its events are dropped when they come due, as a killed process runs
 * nothing more; a pause holds them until {@link #resume}, as SIGSTOP does.
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class SimProcess {
    private final Simulator sim;
    private final int index;
    private int incarnation;
    private boolean alive;
    private boolean paused;
    private final List<Runnable> held = new ArrayList<>();

    SimProcess(Simulator sim, int index) {
        this.sim = sim;
        this.index = index;
    }

    int index() {
        return index;
    }

    boolean alive() {
        return alive;
    }

    boolean paused() {
        return paused;
    }

    /** Whether the process runs now: alive and not paused. */
    boolean running() {
        return alive && !paused;
    }

    /** Starts a new incarnation. */
    void start() {
        incarnation++;
        alive = true;
        paused = false;
        held.clear();
    }

    /** Ends the incarnation: nothing it scheduled runs any more. */
    void crash() {
        incarnation++;
        alive = false;
        paused = false;
        held.clear();
    }

    void pause() {
        paused = true;
    }

    /** Thaws the process: what came due while it was frozen runs now, in the order it came due. */
    void resume() {
        paused = false;
        List<Runnable> due = List.copyOf(held);
        held.clear();
        for (Runnable action : due) {
            sim.schedule(0, index, "thawed", action); // already bound to this incarnation
        }
    }

    /** The current incarnation: a crash or a restart starts another. */
    int incarnation() {
        return incarnation;
    }

    /**
     * Runs {@code action} in this incarnation {@code delayNanos} from now: dropped if the process
     * crashed meanwhile, held while it is paused.
     */
    ScheduledFuture<?> schedule(long delayNanos, String what, Runnable action) {
        return scheduleIn(incarnation, delayNanos, what, action);
    }

    /**
     * Runs {@code action} {@code delayNanos} from now if incarnation {@code bound} still runs then: an
     * answer to a call that an earlier incarnation made must not reach the next one (its connection
     * died with it).
     */
    ScheduledFuture<?> scheduleIn(int bound, long delayNanos, String what, Runnable action) {
        return sim.schedule(delayNanos, index, what, guarded(bound, action));
    }

    /** {@code action} bound to the current incarnation: dropped once it ended, held while paused. */
    Runnable guarded(Runnable action) {
        return guarded(incarnation, action);
    }

    private Runnable guarded(int bound, Runnable action) {
        return new Runnable() {
            @Override
            public void run() {
                if (bound != incarnation || !alive) {
                    return;
                }
                if (paused) {
                    held.add(this);
                    return;
                }
                action.run();
            }
        };
    }

    /**
     * The pool under this incarnation's serial executors: each task is an event, run soon after it is
     * queued; tasks queued after the incarnation ended never run.
     */
    Executor pool() {
        int bound = incarnation;
        return task -> scheduleIn(bound, sim.random().nextInt(20_000), "task", task);
    }

    /** This incarnation's timer. */
    ScheduledExecutorService timer() {
        return new Timer(incarnation);
    }

    /** A timer on simulated time: only the one-shot {@code schedule}s, what the replicas use. */
    private final class Timer extends AbstractExecutorService implements ScheduledExecutorService {
        private final int bound;

        Timer(int bound) {
            this.bound = bound;
        }

        @Override
        public ScheduledFuture<?> schedule(Runnable command, long delay, TimeUnit unit) {
            return scheduleIn(bound, unit.toNanos(delay), "timer", command);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <V> ScheduledFuture<V> schedule(Callable<V> callable, long delay, TimeUnit unit) {
            // a lambda that returns a value is a Callable (within's completeExceptionally): run it, drop the value
            return (ScheduledFuture<V>) scheduleIn(bound, unit.toNanos(delay), "timer", () -> {
                try {
                    callable.call();
                } catch (Exception e) {
                    throw new IllegalStateException("a timer task threw", e);
                }
            });
        }

        @Override
        public ScheduledFuture<?> scheduleAtFixedRate(Runnable command, long initialDelay, long period, TimeUnit unit) {
            throw new UnsupportedOperationException("not used by the replicas");
        }

        @Override
        public ScheduledFuture<?> scheduleWithFixedDelay(Runnable command, long initialDelay, long delay,
                TimeUnit unit) {
            throw new UnsupportedOperationException("not used by the replicas");
        }

        @Override
        public void execute(Runnable command) {
            scheduleIn(bound, 0, "timer", command);
        }

        @Override
        public void shutdown() {
        }

        @Override
        public List<Runnable> shutdownNow() {
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return false;
        }

        @Override
        public boolean isTerminated() {
            return false;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }
}
