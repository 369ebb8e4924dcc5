package io.neptune.server.internal.replication.runtime;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The world of a deterministic simulation: one thread, a clock that moves only from event to event,
 * a seeded PRNG, and a queue of events ordered by due time. Events due at the same time run in an
 * order the PRNG picks, so a seed explores one interleaving of the tasks that are ready together, and
 * the same seed always the same one (FoundationDB's simulator, TigerBeetle's VOPR).
 *
 * <p>Every event run is mixed into a {@link #traceHash()}: two runs of one seed that differ anywhere
 * differ there. The last {@value #TRACE_KEPT} events are kept for a failure's report.
 *
 * <p>Thread-safety: none; one thread runs a simulation from start to end.
 */
final class Simulator {
    /** How many of the last events a failure report shows. */
    static final int TRACE_KEPT = 64;
    /** Where the clock starts: far from zero, so that code comparing nanosecond times by subtraction is exercised. */
    private static final long EPOCH_NANOS = 1L << 40;

    private final long seed;
    private final SplittableRandom random;
    private final EventQueue events = new EventQueue();
    private final Event[] recent = new Event[TRACE_KEPT];
    private long now = EPOCH_NANOS;
    private long scheduled;
    private long steps;
    private long hash = 0xcbf29ce484222325L;
    private java.io.@org.jspecify.annotations.Nullable PrintStream traceOut;

    Simulator(long seed) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    /** Prints every event as it runs to {@code out}: a replay's full trace. */
    void traceTo(java.io.PrintStream out) {
        traceOut = out;
    }

    long seed() {
        return seed;
    }

    /** The simulated monotonic clock, in nanoseconds. */
    long nanos() {
        return now;
    }

    /** The PRNG every choice of the simulation draws from. */
    SplittableRandom random() {
        return random;
    }

    /** How many events ran. */
    long steps() {
        return steps;
    }

    /** Whether {@code probability} (0 to 1) came up. */
    boolean chance(double probability) {
        return random.nextDouble() < probability;
    }

    /** A delay drawn uniformly between {@code minMillis} and {@code maxMillis}, in nanoseconds. */
    long millisBetween(double minMillis, double maxMillis) {
        return (long) ((minMillis + random.nextDouble() * (maxMillis - minMillis)) * 1_000_000);
    }

    /**
     * Runs {@code action} {@code delayNanos} from now, as part of what {@code actor} (a node's index,
     * or -1 for the world) does; {@code what} names it in traces.
     */
    Event schedule(long delayNanos, int actor, String what, Runnable action) {
        Event event = new Event(now + Math.max(0, delayNanos), random.nextLong(), scheduled++, actor, what, action);
        events.add(event);
        return event;
    }

    /**
     * Runs the next event that is due; returns false if none is left. The clock moves to its time.
     */
    boolean step() {
        Event event = events.poll();
        if (event == null) {
            return false;
        }
        now = event.time;
        recent[(int) (steps % TRACE_KEPT)] = event;
        steps++;
        mix(event.time);
        mix(event.actor);
        mix(event.what.hashCode());
        if (traceOut != null) {
            traceOut.println(describe(steps - 1, event));
        }
        event.action.run();
        return true;
    }

    /** Mixes {@code value} into the trace hash (FNV-1a over its eight bytes). */
    void mix(long value) {
        for (int i = 0; i < 8; i++) {
            hash ^= (value >>> (8 * i)) & 0xff;
            hash *= 0x100000001b3L;
        }
    }

    long traceHash() {
        return hash;
    }

    /** The last events run, oldest first, one per line: time (ms since the start), actor and what. */
    String recentTrace() {
        StringBuilder s = new StringBuilder();
        long from = Math.max(0, steps - TRACE_KEPT);
        for (long i = from; i < steps; i++) {
            s.append("  ").append(describe(i, recent[(int) (i % TRACE_KEPT)])).append(System.lineSeparator());
        }
        return s.toString();
    }

    private String describe(long step, Event e) {
        return String.format("step %d at %.6f ms: %s %s", step, (e.time - EPOCH_NANOS) / 1e6,
                e.actor < 0 ? "world" : "n" + e.actor, e.what);
    }

    /** Milliseconds of simulated time since the start. */
    double elapsedMillis() {
        return (now - EPOCH_NANOS) / 1e6;
    }

    /** One scheduled action; cancelling it removes it from the queue. */
    final class Event implements ScheduledFuture<Object> {
        private final long time;
        private final long tieBreak;
        private final long order;
        private final int actor;
        private final String what;
        private final Runnable action;
        private boolean cancelled;
        /** Where it is in the queue's heap; -1 once it left the queue (it ran, or was cancelled). */
        private int slot = -1;

        private Event(long time, long tieBreak, long order, int actor, String what, Runnable action) {
            this.time = time;
            this.tieBreak = tieBreak;
            this.order = order;
            this.actor = actor;
            this.what = what;
            this.action = action;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            return unit.convert(time - now, TimeUnit.NANOSECONDS);
        }

        @Override
        public int compareTo(Delayed other) {
            Event o = (Event) other;
            int c = Long.compare(time, o.time);
            if (c == 0) {
                c = Long.compare(tieBreak, o.tieBreak);
            }
            return c != 0 ? c : Long.compare(order, o.order);
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            boolean was = cancelled;
            cancelled = true;
            if (slot >= 0) {
                events.remove(this);
            }
            return !was;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return cancelled || time <= now;
        }

        @Override
        public Object get() {
            throw new UnsupportedOperationException("a simulation never blocks");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) {
            throw new UnsupportedOperationException("a simulation never blocks");
        }
    }

    /**
     * The events not run yet: a binary heap ordered by due time, then the PRNG's tie-break, then the
     * order of scheduling (a total order, so any correct heap runs the events in one order). The keys
     * sit in arrays beside the events, so a comparison reads no event; each event knows its slot, so a
     * cancelled one (most calls' timeouts are) leaves at once rather than weighing on the heap until
     * it comes due. A {@code PriorityQueue} of events cost a sixth of a run's time.
     */
    private static final class EventQueue {
        private Event[] heap = new Event[1024];
        private long[] times = new long[1024];
        private long[] ties = new long[1024];
        private long[] orders = new long[1024];
        private int size;

        void add(Event e) {
            if (size == heap.length) {
                int capacity = size * 2;
                heap = Arrays.copyOf(heap, capacity);
                times = Arrays.copyOf(times, capacity);
                ties = Arrays.copyOf(ties, capacity);
                orders = Arrays.copyOf(orders, capacity);
            }
            siftUp(size++, e);
        }

        @org.jspecify.annotations.Nullable Event poll() {
            if (size == 0) {
                return null;
            }
            Event first = heap[0];
            removeAt(0);
            return first;
        }

        void remove(Event e) {
            removeAt(e.slot);
        }

        private void removeAt(int slot) {
            Event removed = heap[slot];
            removed.slot = -1;
            int last = --size;
            Event moved = heap[last];
            heap[last] = null;
            if (slot == last) {
                return;
            }
            siftDown(slot, moved);
            if (heap[slot] == moved) {
                siftUp(slot, moved);
            }
        }

        /** Whether {@code e} comes before the event in slot {@code j}. */
        private boolean before(Event e, int j) {
            if (e.time != times[j]) {
                return e.time < times[j];
            }
            if (e.tieBreak != ties[j]) {
                return e.tieBreak < ties[j];
            }
            return e.order < orders[j];
        }

        /** Whether the event in slot {@code i} comes before the one in slot {@code j}. */
        private boolean before(int i, int j) {
            if (times[i] != times[j]) {
                return times[i] < times[j];
            }
            if (ties[i] != ties[j]) {
                return ties[i] < ties[j];
            }
            return orders[i] < orders[j];
        }

        private void siftUp(int slot, Event e) {
            int k = slot;
            while (k > 0) {
                int parent = (k - 1) >>> 1;
                if (!before(e, parent)) {
                    break;
                }
                place(k, heap[parent]);
                k = parent;
            }
            place(k, e);
        }

        private void siftDown(int slot, Event e) {
            int k = slot;
            int half = size >>> 1;
            while (k < half) {
                int child = 2 * k + 1;
                int right = child + 1;
                if (right < size && before(right, child)) {
                    child = right;
                }
                if (before(e, child)) {
                    break;
                }
                place(k, heap[child]);
                k = child;
            }
            place(k, e);
        }

        private void place(int slot, Event e) {
            heap[slot] = e;
            times[slot] = e.time;
            ties[slot] = e.tieBreak;
            orders[slot] = e.order;
            e.slot = slot;
        }
    }
}
