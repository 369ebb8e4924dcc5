package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ClassStats;
import io.neptune.core.ServiceClass;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.SchedulingPolicy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
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
 * A class's recent use of the workers' time (equation 4.4.3) is how long its requests held a
 * worker, from the scheduling point that gave them one to their answer, the running ones included:
 * not their CPU time, so a class that waits on I/O pays for the workers it keeps waiting (a
 * replicated write, which holds its worker only to hand it to the replication engine, is charged
 * its apply time). Recent use, expected service time and expected resource use per class are
 * time-decayed: a request completed one second ago weighs {@link SchedulingConfig#decay()} (β, 0.95
 * by default) of one completed now. Only
 * queue heads are ranked: within a class, requests are served in arrival order.
 *
 * <p>Admission ({@link #offer}): the classes share the queue's capacity, but a full queue may push
 * out the newest request of the class furthest beyond its guaranteed share of the queue, so that a
 * flood of one class locks no other out; and a class the full queue would refuse reports the whole
 * queue as its load, so clients go elsewhere.
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
    private final Unserved unserved;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition waiting = lock.newCondition();
    private final Map<String, ClassState> classes = new HashMap<>();
    private final List<ClassState> ordered = new ArrayList<>();
    private final DropWindow window;
    private int size;
    /** Set by {@link #shutdown()}: every later offer is refused. */
    private boolean shut;
    /** {@link #size}, as polls read it without the lock: set with every change under the lock. */
    private volatile int publishedSize;

    /**
     * Creates the scheduler.
     *
     * @param config the classes and policy
     * @param capacity the most requests waiting, over all classes
     * @param clock the time in nanoseconds ({@link System#nanoTime()}, or a test's virtual clock)
     * @param unserved answers a request the scheduler took out of its queue unrun; called outside the lock
     */
    public ClassAwareScheduler(SchedulingConfig config, int capacity, LongSupplier clock, Unserved unserved) {
        this.config = requireNonNull(config, "config");
        this.capacity = capacity;
        this.clock = requireNonNull(clock, "clock");
        this.unserved = requireNonNull(unserved, "unserved");
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

    /**
     * Queues {@code task}, first answering the queue heads whose deadline passed. A full queue
     * refuses it unless another class is further above its part of the queue than the task's class
     * would be (see {@link #victimFor}): then that class's newest request is pushed out (answered
     * {@code OVERLOADED}) to make room. Under {@link SchedulingPolicy#FIFO}, the baseline, a full queue
     * refuses whatever the class.
     */
    @Override
    public boolean offer(Task task) {
        ClassState state = state(task);
        long now = clock.getAsLong();
        List<Unrun> unrun = new ArrayList<>();
        lock.lock();
        try {
            if (shut) {
                return false;
            }
            state.arrivals++;
            state.offeredYield += state.fullYield;
            window.arrival(now);
            purgeExpiredHeads(now, unrun);
            if (size >= capacity && !pushOut(state, now, unrun)) {
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
            answer(unrun);
        }
    }

    /** Answers every queue head whose deadline has passed: no worker may start it any more. */
    private void purgeExpiredHeads(long now, List<Unrun> unrun) {
        for (ClassState state : ordered) {
            Task head;
            while ((head = state.queue.peekFirst()) != null && now - head.deadlineNanos() > 0) {
                state.queue.pollFirst();
                size--;
                state.droppedDeadline++;
                window.drop(now);
                unrun.add(new Unrun(head, Status.DEADLINE_EXCEEDED, "deadline passed while queued (waited "
                        + millis(now - head.arrivalNanos()) + ", deadline " + millis(head.deadlineNanos()
                        - head.arrivalNanos()) + "); not run"));
            }
        }
    }

    /** Makes room in the full queue for a request of {@code arriving}, if {@link #victimFor} finds a class to push out. */
    private boolean pushOut(ClassState arriving, long now, List<Unrun> unrun) {
        ClassState victim = victimFor(arriving);
        if (victim == null) {
            return false;
        }
        int held = victim.queue.size();
        Task pushed = victim.queue.pollLast();
        size--;
        victim.droppedQueueFull++;
        window.drop(now);
        unrun.add(new Unrun(requireNonNull(pushed, "pushed"), Status.OVERLOADED, "pushed out of the full queue ("
                + capacity + " waiting) by a request of class " + arriving.serviceClass.name() + ": class "
                + victim.serviceClass.name() + " held " + held + ", the most beyond its share "
                + victim.serviceClass.guaranteedShare() + " of the queue; not run"));
        return true;
    }

    /**
     * The class whose newest request a request of {@code arriving} would push out of the full
     * queue, or null if it would be refused. A class's excess is how many requests it holds beyond
     * its guaranteed share of the queue ({@code g × capacity}); the victim is the class of the
     * largest excess, if that is larger than {@code arriving}'s would be with the new request in.
     * So a class always gets its share's part of the queue, the rest is split evenly among the
     * classes that want it, no flood of one class locks the others out, and two classes never push
     * each other out in turn. The newest request goes: its caller has the most time left to be
     * served by another replica. FIFO, the baseline, pushes nothing out.
     */
    private @Nullable ClassState victimFor(ClassState arriving) {
        if (config.policy() == SchedulingPolicy.FIFO) {
            return null;
        }
        ClassState victim = null;
        double most = excess(arriving, arriving.queue.size() + 1);
        for (ClassState state : ordered) {
            double excess = excess(state, state.queue.size());
            if (state != arriving && excess > most) {
                victim = state;
                most = excess;
            }
        }
        return victim;
    }

    private double excess(ClassState state, int queued) {
        return queued - state.serviceClass.guaranteedShare() * capacity;
    }

    @Override
    public @Nullable Task poll(long timeout, TimeUnit unit) throws InterruptedException {
        long remaining = unit.toNanos(timeout);
        List<Unrun> drops = new ArrayList<>();
        lock.lockInterruptibly();
        try {
            while (true) {
                Task task = next(clock.getAsLong(), drops);
                if (task != null || remaining <= 0) {
                    return task;
                }
                publish(); // drops since the last change
                remaining = waiting.awaitNanos(remaining);
            }
        } finally {
            publish();
            lock.unlock();
            answer(drops);
        }
    }

    /** Answers the requests taken out of the queue unrun; the caller has released the lock. */
    private void answer(List<Unrun> unrun) {
        for (Unrun u : unrun) {
            unserved.answer(u.task(), u.status(), u.reason());
        }
    }

    /** One scheduling point: drops what yields nothing, then picks; null when every queue is empty. */
    private @Nullable Task next(long now, List<Unrun> drops) {
        if (size == 0) {
            return null;
        }
        boolean fifo = config.policy() == SchedulingPolicy.FIFO;
        if (!fifo) {
            for (ClassState state : ordered) {
                dropHeads(state, now, drops);
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
        Task task = requireNonNull(chosen.queue.pollFirst(), "chosen: a class with a waiting request");
        if (task.handoff() == null) {
            chosen.holding.put(task, now); // a hand-off holds the worker only to give the task away
        }
        return task;
    }

    private void dropHeads(ClassState state, long now, List<Unrun> drops) {
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
            drops.add(new Unrun(head, Status.DROPPED, reason + " under policy " + config.policy().configName()));
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
            total += state.use(now);
        }
        ClassState best = null;
        double bestGap = 0;
        for (ClassState state : ordered) {
            double g = state.serviceClass.guaranteedShare();
            if (g <= 0 || state.queue.isEmpty()) {
                continue;
            }
            double share = total > 0 ? state.use(now) / total : 0;
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
        finished(task, startedNanos, finishedNanos, resourceNanos, true);
    }

    @Override
    public void failed(Task task, long startedNanos, long finishedNanos, long resourceNanos) {
        finished(task, startedNanos, finishedNanos, resourceNanos, false);
    }

    /** A request answered by its worker: its time counts; only a {@code succeeded} one in time realises yield. */
    private void finished(Task task, long startedNanos, long finishedNanos, long resourceNanos, boolean succeeded) {
        ClassState state = state(task);
        lock.lock();
        try {
            state.running--;
            state.completed++;
            Long took = state.holding.remove(task);
            long held = took != null ? finishedNanos - took : resourceNanos; // a hand-off: its apply time
            state.consumption.add(finishedNanos, Math.max(0, held) / 1e9);
            state.usedSeconds += Math.max(0, resourceNanos) / 1e9;
            state.service.add(finishedNanos, Math.max(0, finishedNanos - startedNanos));
            state.resource.add(finishedNanos, Math.max(0, resourceNanos));
            if (succeeded && finishedNanos - task.deadlineNanos() <= 0) {
                state.realizedYield += realizedYield(state, finishedNanos - task.arrivalNanos());
            }
        } finally {
            publish();
            lock.unlock();
        }
    }

    @Override
    public void refused(Task task) {
        ClassState state = state(task);
        long now = clock.getAsLong();
        lock.lock();
        try {
            state.running--;
            state.holding.remove(task);
            state.droppedQueueFull++;
            window.drop(now);
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
            state.holding.remove(task);
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

    /**
     * Requests of {@code serviceClass} waiting or running, or of every class if the full queue would
     * refuse one of {@code serviceClass}; 0 for an unknown class. Never waits for the lock.
     */
    @Override
    public int load(String serviceClass) {
        ClassState state = classes.get(serviceClass);
        return state == null ? 0 : state.publishedLoad;
    }

    /**
     * Publishes the counts that {@link #size()} and {@link #load(String)} read; the caller holds the
     * lock. A class the full queue would refuse shows the load of the whole queue, waiting and
     * running: the node is full for it, and its clients should go elsewhere.
     */
    private void publish() {
        publishedSize = size;
        int whole = size;
        for (ClassState state : ordered) {
            whole += state.running;
        }
        for (ClassState state : ordered) {
            boolean refused = size >= capacity && victimFor(state) == null;
            state.publishedLoad = refused ? whole : state.queue.size() + state.running;
        }
    }

    @Override
    public List<Task> shutdown() {
        lock.lock();
        try {
            shut = true;
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
                total += state.use(now);
            }
            List<ClassStats> stats = new ArrayList<>(ordered.size());
            for (ClassState s : ordered) {
                stats.add(new ClassStats(s.serviceClass.name(), s.serviceClass.guaranteedShare(),
                        total > 0 ? s.use(now) / total : 0, s.queue.size(), s.arrivals, s.completed,
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

    /** A request taken out of the queue unrun, and its answer, given once the lock is released. */
    private record Unrun(Task task, Status status, String reason) {}

    /** Answers a request the scheduler took out of its queue without running it. */
    @FunctionalInterface
    public interface Unserved {
        /**
         * Answers {@code task} with {@code status}: {@link Status#DROPPED} (it would yield nothing),
         * {@link Status#OVERLOADED} (pushed out of the full queue) or {@link Status#DEADLINE_EXCEEDED}
         * (its deadline passed while it waited); {@code reason} says why. Called outside the lock.
         */
        void answer(Task task, Status status, String reason);
    }

    /** One class's queue, estimates and counters; guarded by the scheduler's lock. */
    private static final class ClassState {
        final ServiceClass serviceClass;
        /** C, asked of the yield function once (it is immutable), when its class was declared. */
        final double fullYield;
        final ArrayDeque<Task> queue = new ArrayDeque<>();
        /**
         * u_k(t) of equation 4.4.3 over the completed requests: how long each held a worker, from
         * the scheduling point that gave it one to its answer, in seconds.
         */
        final Decaying consumption;
        /** The requests of the class a worker holds now, with when it took them. */
        final Map<Task, Long> holding = new IdentityHashMap<>();
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

        /** The class's recent use of the workers' time, in seconds: the completed requests' and the running ones'. */
        double use(long now) {
            double running = 0;
            for (long took : holding.values()) {
                running += Math.max(0, now - took) / 1e9;
            }
            return consumption.at(now) + running;
        }
    }
}
