package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ClassStats;
import io.neptune.core.ServiceClass;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.SchedulingPolicy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The dissertation's node-level scheduler (section 4.4, Figure 4.5): one FIFO queue per service
 * class, and at each scheduling point (a worker asking for work)
 * <ol>
 *   <li>drop from each queue head the requests that can no longer yield anything: expected to
 *       finish after their deadline, or at a yield of at most {@link SchedulingConfig#dropBelow()} of
 *       their class's full yield;
 *   <li>if some classes with waiting requests used less than their guaranteed share of the workers'
 *       time recently, serve the one furthest below it;
 *   <li>else serve the queue head the policy ranks first (Table 4.1, the smaller the sooner): EDF by
 *       deadline left, YID by deadline left divided by expected yield, Greedy by expected resource
 *       use divided by expected yield, Adaptive by YID or, while more than a threshold of the
 *       arrivals in a recent window were dropped, by Greedy; FIFO by arrival, with no drops and no
 *       guarantees.
 * </ol>
 * Recent use (equation 4.4.3), expected service time and expected resource use per class are
 * time-decayed: a request completed one second ago weighs {@link SchedulingConfig#decay()} (β, 0.95
 * by default) of one completed now. Only
 * queue heads are ranked: within a class, requests are served in arrival order.
 *
 * <p>Thread-safety: thread-safe; one lock guards every queue and estimate. Dropped requests are
 * answered after the lock is released. {@link #size()} and {@link #load(String)} never take the
 * lock: load polls ask them on an event loop, while a worker may hold the lock in a provider's
 * yield function; they read counts published under the lock at every change.
 */
public final class ClassAwareScheduler implements Scheduler {
    private final SchedulingConfig config;
    private final int capacity;
    private final LongSupplier clock;
    private final BiConsumer<Task, String> dropped;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition waiting = lock.newCondition();
    private final Map<String, ClassState> classes = new HashMap<>();
    private final List<ClassState> ordered = new ArrayList<>();
    private final DropWindow window;
    private int size;
    /** {@link #size}, as polls read it without the lock: set with every change under the lock. */
    private volatile int publishedSize;

    /**
     * Creates the scheduler.
     *
     * @param config the classes and policy
     * @param capacity the most requests waiting, over all classes
     * @param clock the time in nanoseconds ({@link System#nanoTime()}, or a test's virtual clock)
     * @param dropped answers a request the scheduler dropped, with the reason; called outside the lock
     */
    public ClassAwareScheduler(SchedulingConfig config, int capacity, LongSupplier clock,
            BiConsumer<Task, String> dropped) {
        this.config = requireNonNull(config, "config");
        this.capacity = capacity;
        this.clock = requireNonNull(clock, "clock");
        this.dropped = requireNonNull(dropped, "dropped");
        for (ServiceClass serviceClass : config.classList()) {
            ClassState state = new ClassState(serviceClass, config.decay());
            classes.put(serviceClass.name(), state);
            ordered.add(state);
        }
        this.window = new DropWindow(config.adaptiveWindow());
    }

    /** Whether {@code serviceClass} is declared here. */
    public boolean knows(String serviceClass) {
        return classes.containsKey(serviceClass);
    }

    @Override
    public boolean offer(Task task) {
        ClassState state = state(task);
        long now = clock.getAsLong();
        lock.lock();
        try {
            state.arrivals++;
            state.offeredYield += state.fullYield;
            window.arrival(now);
            if (size >= capacity) {
                state.droppedQueueFull++;
                window.drop(now);
                return false;
            }
            state.queue.addLast(task);
            size++;
            waiting.signal();
            return true;
        } finally {
            publish();
            lock.unlock();
        }
    }

    @Override
    public @Nullable Task poll(long timeout, TimeUnit unit) throws InterruptedException {
        long remaining = unit.toNanos(timeout);
        List<Task> drops = new ArrayList<>();
        List<String> reasons = new ArrayList<>();
        lock.lockInterruptibly();
        try {
            while (true) {
                Task task = next(clock.getAsLong(), drops, reasons);
                if (task != null || remaining <= 0) {
                    return task;
                }
                publish(); // drops since the last change
                remaining = waiting.awaitNanos(remaining);
            }
        } finally {
            publish();
            lock.unlock();
            for (int i = 0; i < drops.size(); i++) {
                dropped.accept(drops.get(i), reasons.get(i));
            }
        }
    }

    /** One scheduling point: drops what yields nothing, then picks; null when every queue is empty. */
    private @Nullable Task next(long now, List<Task> drops, List<String> reasons) {
        if (size == 0) {
            return null;
        }
        boolean fifo = config.policy() == SchedulingPolicy.FIFO;
        if (!fifo) {
            for (ClassState state : ordered) {
                dropHeads(state, now, drops, reasons);
            }
        }
        ClassState chosen = fifo ? earliestArrival() : belowGuarantee(now);
        if (chosen == null) {
            chosen = byPolicy(now);
        }
        if (chosen == null) {
            return null;
        }
        size--;
        chosen.running++;
        return chosen.queue.pollFirst();
    }

    private void dropHeads(ClassState state, long now, List<Task> drops, List<String> reasons) {
        Task head;
        while ((head = state.queue.peekFirst()) != null) {
            String reason = dropReason(state, head, now);
            if (reason == null) {
                return;
            }
            state.queue.pollFirst();
            size--;
            state.droppedLowYield++;
            window.drop(now);
            drops.add(head);
            reasons.add(reason + " under policy " + config.policy().configName());
        }
    }

    /**
     * Why {@code head} yields nothing if served now, or null: then its expected yield is left in
     * {@link ClassState#headYield} for the policy to rank it by. A yield function that throws fails
     * the request it was asked about, never the worker asking.
     */
    private @Nullable String dropReason(ClassState state, Task head, long now) {
        long service = state.expectedServiceNanos(now);
        long finish = now + service;
        if (finish - head.deadlineNanos() > 0) {
            return "expected to finish " + millis(finish - head.arrivalNanos()) + " after it arrived (waited "
                    + millis(now - head.arrivalNanos()) + ", expected service " + millis(service)
                    + "), after its deadline " + millis(head.deadlineNanos() - head.arrivalNanos());
        }
        double yield;
        try {
            yield = state.serviceClass.yield().yieldAt(finish - head.arrivalNanos());
        } catch (RuntimeException e) {
            return "the yield function of class " + state.serviceClass.name() + " threw " + e + " at "
                    + millis(finish - head.arrivalNanos()) + "; not run";
        }
        if (yield <= config.dropBelow() * state.fullYield) {
            return String.format(Locale.ROOT, "expected yield %.3g of %.3g", yield, state.fullYield) + " at "
                    + millis(finish - head.arrivalNanos()) + " (waited " + millis(now - head.arrivalNanos()) + ")";
        }
        state.headYield = yield;
        return null;
    }

    private @Nullable ClassState earliestArrival() {
        ClassState best = null;
        for (ClassState state : ordered) {
            Task head = state.queue.peekFirst();
            if (head != null && (best == null || head.arrivalNanos() - best.queue.peekFirst().arrivalNanos() < 0)) {
                best = state;
            }
        }
        return best;
    }

    /** Step 2a: the waiting class with the largest gap between its guaranteed share and its recent use. */
    private @Nullable ClassState belowGuarantee(long now) {
        double total = 0;
        for (ClassState state : ordered) {
            total += state.consumption.at(now);
        }
        ClassState best = null;
        double bestGap = 0;
        for (ClassState state : ordered) {
            double g = state.serviceClass.guaranteedShare();
            if (g <= 0 || state.queue.isEmpty()) {
                continue;
            }
            double share = total > 0 ? state.consumption.at(now) / total : 0;
            double gap = g - share;
            if (gap > bestGap) {
                best = state;
                bestGap = gap;
            }
        }
        return best;
    }

    /** Step 2b: the queue head with the smallest priority value; ties go to the earlier arrival. */
    private @Nullable ClassState byPolicy(long now) {
        SchedulingPolicy policy = config.policy();
        if (policy == SchedulingPolicy.ADAPTIVE) {
            policy = overloaded(now) ? SchedulingPolicy.GREEDY : SchedulingPolicy.YID;
        }
        ClassState best = null;
        double bestPriority = Double.POSITIVE_INFINITY;
        for (ClassState state : ordered) {
            Task head = state.queue.peekFirst();
            if (head == null) {
                continue;
            }
            double priority = priority(policy, state, head, now);
            if (best == null || priority < bestPriority || priority == bestPriority
                    && head.arrivalNanos() - best.queue.peekFirst().arrivalNanos() < 0) {
                best = state;
                bestPriority = priority;
            }
        }
        return best;
    }

    /** The priority value of {@code head}, whose expected yield {@link #dropReason} found positive. */
    private static double priority(SchedulingPolicy policy, ClassState state, Task head, long now) {
        double deadlineLeft = head.deadlineNanos() - now;
        return switch (policy) {
            case EDF -> deadlineLeft;
            case YID -> deadlineLeft / state.headYield;
            case GREEDY -> state.resource.average(now) / state.headYield;
            default -> head.arrivalNanos();
        };
    }

    /** Whether {@link SchedulingPolicy#ADAPTIVE} runs Greedy now. */
    boolean overloaded(long now) {
        return window.dropFraction(now) > config.adaptiveDropThreshold();
    }

    @Override
    public void completed(Task task, long startedNanos, long finishedNanos, long resourceNanos) {
        ClassState state = state(task);
        lock.lock();
        try {
            state.running--;
            state.completed++;
            state.consumption.add(finishedNanos, Math.max(0, resourceNanos) / 1e9);
            state.usedSeconds += Math.max(0, resourceNanos) / 1e9;
            state.service.add(finishedNanos, Math.max(0, finishedNanos - startedNanos));
            state.resource.add(finishedNanos, Math.max(0, resourceNanos));
            if (finishedNanos - task.deadlineNanos() <= 0) {
                state.realizedYield += realizedYield(state, finishedNanos - task.arrivalNanos());
            }
        } finally {
            publish();
            lock.unlock();
        }
    }

    @Override
    public void expired(Task task) {
        ClassState state = state(task);
        long now = clock.getAsLong();
        lock.lock();
        try {
            state.running--;
            state.droppedDeadline++;
            window.drop(now);
        } finally {
            publish();
            lock.unlock();
        }
    }

    /** Requests waiting; never waits for the lock (polls ask it on an event loop). */
    @Override
    public int size() {
        return publishedSize;
    }

    /** Requests of {@code serviceClass} waiting or running, 0 for an unknown class; never waits for the lock. */
    @Override
    public int load(String serviceClass) {
        ClassState state = classes.get(serviceClass);
        return state == null ? 0 : state.publishedLoad;
    }

    /** Publishes the counts that {@link #size()} and {@link #load(String)} read; the caller holds the lock. */
    private void publish() {
        publishedSize = size;
        for (ClassState state : ordered) {
            state.publishedLoad = state.queue.size() + state.running;
        }
    }

    @Override
    public List<Task> drain() {
        lock.lock();
        try {
            List<Task> tasks = new ArrayList<>(size);
            for (ClassState state : ordered) {
                tasks.addAll(state.queue);
                state.queue.clear();
            }
            size = 0;
            return tasks;
        } finally {
            publish();
            lock.unlock();
        }
    }

    @Override
    public List<ClassStats> stats() {
        long now = clock.getAsLong();
        lock.lock();
        try {
            double total = 0;
            for (ClassState state : ordered) {
                total += state.consumption.at(now);
            }
            List<ClassStats> stats = new ArrayList<>(ordered.size());
            for (ClassState s : ordered) {
                stats.add(new ClassStats(s.serviceClass.name(), s.serviceClass.guaranteedShare(),
                        total > 0 ? s.consumption.at(now) / total : 0, s.queue.size(), s.arrivals, s.completed,
                        s.droppedLowYield, s.droppedQueueFull, s.droppedDeadline, s.offeredYield, s.realizedYield,
                        s.usedSeconds));
            }
            return stats;
        } finally {
            lock.unlock();
        }
    }

    /** The yield of a request answered after {@code responseNanos}; 0 if the class's yield function throws. */
    private static double realizedYield(ClassState state, long responseNanos) {
        try {
            return state.serviceClass.yield().yieldAt(responseNanos);
        } catch (RuntimeException e) {
            return 0; // the request was answered; the caller of completed() must not fail for it
        }
    }

    private ClassState state(Task task) {
        ClassState state = classes.get(task.request().serviceClass());
        if (state == null) {
            throw new IllegalArgumentException("service class '" + task.request().serviceClass()
                    + "' (expected: one of " + classes.keySet() + ")");
        }
        return state;
    }

    private static String millis(long nanos) {
        return Duration.ofNanos(nanos).toMillis() + " ms";
    }

    /** One class's queue, estimates and counters; guarded by the scheduler's lock. */
    private static final class ClassState {
        final ServiceClass serviceClass;
        /** C, asked of the yield function once (it is immutable), when its class was declared. */
        final double fullYield;
        final ArrayDeque<Task> queue = new ArrayDeque<>();
        /** u_k(t) of equation 4.4.3, in seconds of workers' time. */
        final Decaying consumption;
        final DecayingAverage service;
        final DecayingAverage resource;
        /** The expected yield of the queue head, as the last scheduling point's drop step found it. */
        double headYield;
        int running;
        /** {@code queue.size() + running}, as polls read it without the lock. */
        volatile int publishedLoad;
        long arrivals;
        long completed;
        long droppedLowYield;
        long droppedQueueFull;
        long droppedDeadline;
        double offeredYield;
        double realizedYield;
        double usedSeconds;

        ClassState(ServiceClass serviceClass, double beta) {
            this.serviceClass = serviceClass;
            this.fullYield = serviceClass.yield().fullYield();
            this.consumption = new Decaying(beta);
            this.service = new DecayingAverage(beta);
            this.resource = new DecayingAverage(beta);
        }

        long expectedServiceNanos(long now) {
            return (long) service.average(now);
        }
    }

    /** A sum whose terms lose weight by a factor β per second since they were added. */
    static final class Decaying {
        private final double beta;
        private double value;
        private long stamp;
        private boolean empty = true;

        Decaying(double beta) {
            this.beta = beta;
        }

        double at(long now) {
            return empty ? 0 : value * Math.pow(beta, (now - stamp) / 1e9);
        }

        void add(long now, double x) {
            value = at(now) + x;
            stamp = now;
            empty = false;
        }
    }

    /** A time-decayed mean: recent samples weigh more; 0 before the first. */
    static final class DecayingAverage {
        private final Decaying sum;
        private final Decaying weight;

        DecayingAverage(double beta) {
            this.sum = new Decaying(beta);
            this.weight = new Decaying(beta);
        }

        double average(long now) {
            double w = weight.at(now);
            return w > 0 ? sum.at(now) / w : 0;
        }

        void add(long now, double x) {
            sum.add(now, x);
            weight.add(now, 1);
        }
    }

    /** Arrivals and drops of the last window, in one-second buckets. */
    static final class DropWindow {
        private final long[] arrivals;
        private final long[] drops;
        private final long[] second;

        DropWindow(Duration window) {
            int buckets = (int) Math.max(1, Math.min(3600, (window.toMillis() + 999) / 1000));
            arrivals = new long[buckets];
            drops = new long[buckets];
            second = new long[buckets];
            Arrays.fill(second, Long.MIN_VALUE);
        }

        void arrival(long now) {
            arrivals[bucket(now)]++;
        }

        void drop(long now) {
            drops[bucket(now)]++;
        }

        double dropFraction(long now) {
            long s = Math.floorDiv(now, 1_000_000_000L);
            long a = 0;
            long d = 0;
            for (int i = 0; i < second.length; i++) {
                if (second[i] > s - second.length) {
                    a += arrivals[i];
                    d += drops[i];
                }
            }
            return a == 0 ? 0 : (double) d / a;
        }

        private int bucket(long now) {
            long s = Math.floorDiv(now, 1_000_000_000L);
            int i = Math.floorMod(s, second.length);
            if (second[i] != s) {
                second[i] = s;
                arrivals[i] = 0;
                drops[i] = 0;
            }
            return i;
        }
    }
}
