package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A cold publisher of the same item {@code count} times, emitted on the thread that requests them
 * (no producer thread, no buffer): the cheapest producer a Neptune stream method can return, the
 * counterpart of a gRPC handler that sends while its call is ready. One subscriber per instance.
 *
 * <p>Thread-safety: {@code request} and {@code cancel} may be called from any thread, also from
 * within {@code onNext}; a demand counter keeps a single thread emitting at a time.
 */
final class RepeatingPublisher<T> implements Flow.Publisher<T> {
    private final T item;
    private final long count;
    private final AtomicBoolean subscribed = new AtomicBoolean();

    RepeatingPublisher(T item, long count) {
        this.item = requireNonNull(item, "item");
        this.count = count;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super T> subscriber) {
        requireNonNull(subscriber, "subscriber");
        if (!subscribed.compareAndSet(false, true)) {
            subscriber.onSubscribe(new Flow.Subscription() {
                @Override
                public void request(long n) {}

                @Override
                public void cancel() {}
            });
            subscriber.onError(new IllegalStateException("RepeatingPublisher: one subscriber only"));
            return;
        }
        subscriber.onSubscribe(new Emission<>(item, count, subscriber));
    }

    /** The subscription: emits while there is demand, on whichever thread raised it from zero. */
    private static final class Emission<T> implements Flow.Subscription {
        private final T item;
        private final Flow.Subscriber<? super T> subscriber;
        private final AtomicLong demand = new AtomicLong();
        private long remaining; // touched only by the emitting thread, handed over through demand
        private volatile boolean stopped;

        Emission(T item, long count, Flow.Subscriber<? super T> subscriber) {
            this.item = item;
            this.remaining = count;
            this.subscriber = subscriber;
        }

        @Override
        public void request(long n) {
            if (n <= 0) {
                stopped = true;
                subscriber.onError(new IllegalArgumentException("n: " + n + " (expected: > 0, Reactive Streams 3.9)"));
                return;
            }
            if (demand.getAndAccumulate(n, (a, b) -> a + b < 0 ? Long.MAX_VALUE : a + b) != 0) {
                return; // the thread emitting now sees the new demand
            }
            long want = n;
            while (true) {
                long emitted = 0;
                while (emitted < want && !stopped) {
                    subscriber.onNext(item);
                    emitted++;
                    if (--remaining == 0) {
                        stopped = true;
                        subscriber.onComplete();
                        return;
                    }
                }
                want = demand.addAndGet(-emitted);
                if (want == 0 || stopped) {
                    return;
                }
            }
        }

        @Override
        public void cancel() {
            stopped = true;
        }
    }
}
