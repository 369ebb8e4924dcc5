package io.neptune.benchmarks;

import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * The receiving end of one measured stream, for Neptune ({@link Flow.Subscriber}, asking for
 * everything at once: the client turns that into credit of at most its window) and for gRPC
 * ({@link StreamObserver}, with gRPC's default inbound flow control). It counts the items, checks
 * each one's size, and notes when the stream was opened, when its first item came and when it ended.
 *
 * <p>Thread-safety: the signals of one stream are serialized by both frameworks (Reactive Streams
 * rule 1.3, gRPC's serializing executor), so the counters are plain fields; {@link #done()} hands
 * the result to other threads.
 */
final class StreamTally implements Flow.Subscriber<byte[]>, StreamObserver<byte[]> {
    /**
     * One stream's timing.
     *
     * @param items items received
     * @param openedNanos {@link System#nanoTime()} just before the stream was opened
     * @param firstItemNanos when the first item arrived
     * @param endedNanos when the stream completed
     */
    record Result(long items, long openedNanos, long firstItemNanos, long endedNanos) {
        /** From opening the stream to its first item, ms. */
        double firstItemMillis() {
            return (firstItemNanos - openedNanos) / 1e6;
        }
    }

    private final long expectedItems;
    private final int itemBytes;
    private final long openedNanos = System.nanoTime();
    private final CompletableFuture<Result> done = new CompletableFuture<>();
    private long items;
    private long firstItemNanos;

    /** A tally for a stream of {@code burst}; create it just before opening the stream. */
    StreamTally(StreamBurst burst) {
        this.expectedItems = burst.items();
        this.itemBytes = burst.itemBytes();
    }

    /** Completes when the stream has ended with every item of the expected size, or fails with why not. */
    CompletableFuture<Result> done() {
        return done;
    }

    @Override
    public void onSubscribe(Flow.Subscription subscription) {
        subscription.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(byte[] item) {
        if (items++ == 0) {
            firstItemNanos = System.nanoTime();
        }
        if (item.length != itemBytes && !done.isDone()) {
            done.completeExceptionally(new IllegalStateException("item " + items + ": " + item.length
                    + " bytes (expected: " + itemBytes + ")"));
        }
    }

    @Override
    public void onError(Throwable cause) {
        done.completeExceptionally(cause);
    }

    /** The Neptune stream completed. */
    @Override
    public void onComplete() {
        long now = System.nanoTime();
        if (items != expectedItems) {
            done.completeExceptionally(new IllegalStateException("stream ended after " + items + " items (expected: "
                    + expectedItems + ")"));
        }
        done.complete(new Result(items, openedNanos, firstItemNanos, now));
    }

    /** The gRPC call completed. */
    @Override
    public void onCompleted() {
        onComplete();
    }
}
