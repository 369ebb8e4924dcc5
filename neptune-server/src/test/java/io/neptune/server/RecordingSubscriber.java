package io.neptune.server;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A subscriber that records what a stream delivers: the items in order, the end, and whether any
 * signal came concurrently with another or on a Neptune I/O thread.
 *
 * <p>Thread-safety: signals may come from any thread; the records are synchronized.
 */
final class RecordingSubscriber<T> implements Flow.Subscriber<T> {
    private final long initialRequest;
    private final @Nullable BiConsumer<RecordingSubscriber<T>, T> onItem;
    private final List<T> items = new ArrayList<>();
    private final CompletableFuture<Void> done = new CompletableFuture<>();
    private volatile Flow.@Nullable Subscription subscription;
    private volatile boolean inSignal;
    private volatile boolean overlapped;
    private volatile boolean onIoThread;

    /**
     * Records a stream, asking for {@code initialRequest} items at subscription; {@code onItem} (may be
     * null) runs after each item is recorded, e.g. to request more or cancel.
     */
    RecordingSubscriber(long initialRequest, @Nullable BiConsumer<RecordingSubscriber<T>, T> onItem) {
        this.initialRequest = initialRequest;
        this.onItem = onItem;
    }

    /** Asks for everything at once. */
    static <T> RecordingSubscriber<T> all() {
        return new RecordingSubscriber<>(Long.MAX_VALUE, null);
    }

    @Override
    public void onSubscribe(Flow.Subscription s) {
        subscription = s;
        if (initialRequest > 0) {
            s.request(initialRequest);
        }
    }

    @Override
    public void onNext(T item) {
        enter();
        try {
            synchronized (items) {
                items.add(item);
            }
            if (onItem != null) {
                onItem.accept(this, item);
            }
        } finally {
            inSignal = false;
        }
    }

    @Override
    public void onError(Throwable error) {
        enter();
        inSignal = false;
        done.completeExceptionally(error);
    }

    @Override
    public void onComplete() {
        enter();
        inSignal = false;
        done.complete(null);
    }

    private void enter() {
        if (inSignal) {
            overlapped = true;
        }
        inSignal = true;
        if (Thread.currentThread().getName().contains("-io-")) {
            onIoThread = true;
        }
    }

    void request(long n) {
        Flow.Subscription s = subscription;
        if (s != null) {
            s.request(n);
        }
    }

    void cancel() {
        Flow.Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
    }

    List<T> items() {
        synchronized (items) {
            return List.copyOf(items);
        }
    }

    int count() {
        synchronized (items) {
            return items.size();
        }
    }

    CompletableFuture<Void> done() {
        return done;
    }

    /** Whether two signals ever overlapped (Reactive Streams 1.3 forbids it). */
    boolean overlapped() {
        return overlapped;
    }

    /** Whether any signal came on a Neptune I/O (event loop) thread. */
    boolean onIoThread() {
        return onIoThread;
    }
}
