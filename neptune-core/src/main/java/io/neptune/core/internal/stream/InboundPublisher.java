package io.neptune.core.internal.stream;

import static java.util.Objects.requireNonNull;

import io.neptune.core.internal.wire.StreamData;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The receiving end of a stream as a cold {@link Flow.Publisher} for one subscriber: items that
 * arrive as DATA frames are queued and delivered in order, one at a time, by a serial drain on
 * {@code executor}, never on the I/O thread that received them, so a slow subscriber does not block
 * the connection. The subscriber's demand becomes credit granted to the sender
 * ({@link Upstream#credit}); at most {@code window} items are ever granted and not yet delivered,
 * which bounds the queue. Items are decoded on the drain, just before delivery.
 *
 * <p>Thread-safety: thread-safe. The wire methods ({@link #offer}, {@link #complete}, {@link #fail})
 * run on the connection's event loop, {@code request}/{@code cancel} on any thread, deliveries on the
 * executor; the counters are guarded by {@code lock}.
 *
 * @param <T> the item type
 */
public final class InboundPublisher<T> implements Flow.Publisher<T> {
    /** The sending side, as the publisher sees it. */
    public interface Upstream {
        /** The subscriber subscribed: open the stream. Called once, on the subscribing thread. */
        void open();

        /** The subscriber may take {@code items} more: grant them to the sender. */
        void credit(int items);

        /** The subscriber cancelled: tell the sender to stop. Called at most once. */
        void cancel();
    }

    /** Deliveries in one run of the drain before it yields its thread to other streams. */
    private static final int DRAIN_BATCH = 64;
    private static final Object COMPLETE = new Object();

    private final Executor executor;
    private final Function<StreamData, T> decoder;
    private final int window;
    private final Upstream upstream;
    private final Object lock = new Object();
    private final AtomicInteger wip = new AtomicInteger();

    // @GuardedBy("lock")
    private Flow.@Nullable Subscriber<? super T> subscriber;
    private boolean subscribePending;
    private long demand;
    private int outstanding;
    private final ArrayDeque<StreamData> queue = new ArrayDeque<>();
    private @Nullable Object terminal;
    private boolean terminated;
    private boolean cancelled;
    private long received;
    /** Items handed to the subscriber. */
    private long handedOver;
    private @Nullable Throwable violation;

    /**
     * Creates the publisher; nothing happens until a subscriber subscribes.
     *
     * @param window most items granted and not yet delivered (the queue bound)
     */
    public InboundPublisher(Executor executor, Function<StreamData, T> decoder, int window, Upstream upstream) {
        this.executor = requireNonNull(executor, "executor");
        this.decoder = requireNonNull(decoder, "decoder");
        if (window < 1) {
            throw new IllegalArgumentException("window: " + window + " (expected: >= 1)");
        }
        this.window = window;
        this.upstream = requireNonNull(upstream, "upstream");
    }

    @Override
    public void subscribe(Flow.Subscriber<? super T> s) {
        requireNonNull(s, "subscriber");
        synchronized (lock) {
            if (subscriber != null) {
                s.onSubscribe(new Flow.Subscription() {
                    @Override
                    public void request(long n) {}

                    @Override
                    public void cancel() {}
                });
                s.onError(new IllegalStateException("a stream has one subscriber (expected: open another stream)"));
                return;
            }
            subscriber = s;
            subscribePending = true;
        }
        schedule();
        upstream.open();
    }

    // ---------------------------------------------------------------- wire side (event loop)

    /**
     * Queues one received item; false if the sender had no credit for it (a protocol error: the
     * caller ends the stream). Items after a cancel or the end are dropped.
     */
    public boolean offer(StreamData item) {
        synchronized (lock) {
            if (cancelled || terminal != null) {
                return true;
            }
            if (outstanding == 0) {
                return false;
            }
            outstanding--;
            received++;
            queue.add(item);
        }
        schedule();
        return true;
    }

    /** The sender completed: the subscriber gets {@code onComplete} after the queued items. */
    public void complete() {
        end(COMPLETE);
    }

    /** The stream failed: the subscriber gets {@code onError(cause)} after the queued items. */
    public void fail(Throwable cause) {
        end(requireNonNull(cause, "cause"));
    }

    private void end(Object how) {
        synchronized (lock) {
            if (terminal != null || cancelled) {
                return;
            }
            terminal = how;
        }
        schedule();
    }

    /**
     * Items handed to the subscriber so far; while an item is decoded, its index. An item that does
     * not decode ends the stream there, and the items received after it are never delivered.
     */
    public long delivered() {
        synchronized (lock) {
            return handedOver;
        }
    }

    /** Items received so far (all of them are delivered before a terminal signal). */
    public long received() {
        synchronized (lock) {
            return received;
        }
    }

    /** Whether the subscriber cancelled or the stream ended. */
    public boolean isDone() {
        synchronized (lock) {
            return cancelled || terminal != null;
        }
    }

    // ---------------------------------------------------------------- subscriber side

    private void request(long n) {
        if (n <= 0) {
            synchronized (lock) {
                if (cancelled) {
                    return; // after cancel every call is a no-op (Reactive Streams 3.6)
                }
            }
            cancel();
            signalLater(new IllegalArgumentException("request: " + n + " (expected: > 0, Reactive Streams 3.9)"));
            return;
        }
        int grant;
        synchronized (lock) {
            if (cancelled) {
                return;
            }
            demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
            grant = grant();
        }
        if (grant > 0) {
            upstream.credit(grant);
        }
        schedule();
    }

    /** The credit to grant now (and counts it as granted), or 0; never beyond the window. */
    private int grant() {
        long room = demand - queue.size() - outstanding;
        long free = window - queue.size() - outstanding;
        long n = Math.min(room, free);
        if (n <= 0 || terminal != null) {
            return 0;
        }
        if (n == room || n >= Math.max(1, window / 4)) { // batch small grants unless they satisfy all demand
            outstanding += (int) n;
            return (int) n;
        }
        return 0;
    }

    private void cancel() {
        synchronized (lock) {
            if (cancelled) {
                return;
            }
            cancelled = true;
            queue.clear();
            if (terminal != null) {
                return; // already ended: nothing to tell the sender
            }
        }
        upstream.cancel();
    }

    /** An error the drain delivers although the subscription is cancelled (a bad {@code request(n)}). */
    private void signalLater(Throwable error) {
        synchronized (lock) {
            violation = error;
        }
        schedule();
    }

    // ---------------------------------------------------------------- drain (executor)

    private void schedule() {
        if (wip.getAndIncrement() == 0) {
            try {
                executor.execute(this::drain);
            } catch (RejectedExecutionException e) {
                drain(); // the executor stopped (closing): deliver the end here rather than never
            }
        }
    }

    private void drain() {
        int missed = 1;
        int delivered = 0;
        Flow.Subscriber<? super T> s;
        boolean subscribe;
        synchronized (lock) {
            s = requireNonNull(subscriber, "subscriber");
            subscribe = subscribePending;
            subscribePending = false;
        }
        if (subscribe) {
            try {
                s.onSubscribe(new Subscription());
            } catch (RuntimeException e) { // Reactive Streams 2.13: a subscriber that throws is cancelled
                cancel();
                synchronized (lock) {
                    terminated = true;
                }
                wip.set(0);
                return;
            }
        }
        while (true) {
            while (true) {
                StreamData next = null;
                Object end = null;
                synchronized (lock) {
                    if (cancelled) {
                        if (violation == null || terminated) {
                            break;
                        }
                        terminated = true;
                        end = violation;
                    } else if (demand > 0 && !queue.isEmpty()) {
                        next = queue.poll();
                        if (demand != Long.MAX_VALUE) {
                            demand--;
                        }
                    } else if (queue.isEmpty() && terminal != null && !terminated) {
                        terminated = true;
                        end = terminal;
                    }
                }
                if (next != null) {
                    if (!deliver(s, next)) {
                        break;
                    }
                    if (++delivered >= DRAIN_BATCH) {
                        wip.set(1); // run again later, after other streams had their turn
                        try {
                            executor.execute(this::drain);
                            return;
                        } catch (RejectedExecutionException e) {
                            delivered = 0; // the executor stopped (closing): go on here
                        }
                    }
                } else if (end != null) {
                    if (end == COMPLETE) {
                        s.onComplete();
                    } else {
                        s.onError((Throwable) end);
                    }
                    break;
                } else {
                    break;
                }
            }
            missed = wip.addAndGet(-missed);
            if (missed == 0) {
                return;
            }
        }
    }

    /** Decodes and delivers one item; false if the stream ended because of it. */
    private boolean deliver(Flow.Subscriber<? super T> s, StreamData bytes) {
        T item;
        try {
            item = decoder.apply(bytes);
        } catch (RuntimeException e) {
            cancel();
            synchronized (lock) {
                terminated = true;
            }
            s.onError(e);
            return false;
        }
        int grant;
        synchronized (lock) {
            grant = grant();
            handedOver++;
        }
        if (grant > 0) {
            upstream.credit(grant);
        }
        try {
            s.onNext(item);
        } catch (RuntimeException e) { // Reactive Streams 2.13: a subscriber that throws is cancelled
            cancel();
            return false;
        }
        return true;
    }

    private final class Subscription implements Flow.Subscription {
        @Override
        public void request(long n) {
            InboundPublisher.this.request(n);
        }

        @Override
        public void cancel() {
            InboundPublisher.this.cancel();
        }
    }
}
