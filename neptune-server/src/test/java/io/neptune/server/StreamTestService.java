package io.neptune.server;

import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Stream methods for the stream tests: a producer thread behind a {@link SubmissionPublisher} (real
 * backpressure: {@code offer} waits while its buffer is full), a synchronous range, a method that
 * throws, and a bidirectional echo. Counts what its producers did, for the tests to check.
 */
@NeptuneService(name = "streams", partitions = 2)
public final class StreamTestService {
    /**
     * What to produce.
     *
     * @param count items
     * @param buffer the SubmissionPublisher's buffer
     * @param delayMillis pause after each item
     * @param failAt fail instead of producing this item (-1: never)
     * @param stopAt complete instead of producing this item (-1: never)
     */
    public record Range(int count, int buffer, long delayMillis, int failAt, int stopAt) {
        /** {@code count} items as fast as they are taken. */
        public static Range of(int count) {
            return new Range(count, 8, 0, -1, -1);
        }
    }

    /** One produced item. */
    public record Item(int n, String text) {}

    /** One round of the chat: the client sends a value, the server answers it plus one. */
    public record Line(int round, long value) {}

    /** Items the producers handed to their publishers. */
    final AtomicLong produced = new AtomicLong();
    /** Producer threads running. */
    final AtomicInteger producersRunning = new AtomicInteger();
    /** Producers that stopped because their subscriber cancelled. */
    final AtomicInteger producersCancelled = new AtomicInteger();

    @Read
    public Flow.Publisher<Item> produce(RequestContext context, Range range) {
        return subscriber -> {
            SubmissionPublisher<Item> publisher = new SubmissionPublisher<>(Runnable::run, range.buffer());
            publisher.subscribe(subscriber);
            Thread producer = new Thread(() -> run(publisher, range), "stream-test-producer");
            producer.setDaemon(true);
            producersRunning.incrementAndGet();
            producer.start();
        };
    }

    /**
     * {@link #produce} declared resumable: the same range gives the same items on every node, so a
     * stream broken off by a failed node continues on another.
     */
    @Read(resumable = true)
    public Flow.Publisher<Item> produceResumable(RequestContext context, Range range) {
        return produce(context, range);
    }

    /** {@code range.count()} byte arrays, item i holding the bytes of "item-i" (they travel raw, not as base64). */
    @Read
    public Flow.Publisher<byte[]> bytes(RequestContext context, Range range) {
        return subscriber -> {
            SubmissionPublisher<byte[]> publisher = new SubmissionPublisher<>(Runnable::run, range.buffer());
            publisher.subscribe(subscriber);
            Thread producer = new Thread(() -> {
                for (int i = 0; i < range.count(); i++) {
                    publisher.submit(("item-" + i).getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                }
                publisher.close();
            }, "stream-test-bytes");
            producer.setDaemon(true);
            producer.start();
        };
    }

    private void run(SubmissionPublisher<Item> publisher, Range range) {
        try {
            for (int i = 0; i < range.count(); i++) {
                if (i == range.failAt()) {
                    publisher.closeExceptionally(new IllegalStateException("producer failed at item " + i));
                    return;
                }
                if (i == range.stopAt()) {
                    break;
                }
                Item item = new Item(i, "item-" + i);
                while (publisher.offer(item, 50, TimeUnit.MILLISECONDS, (s, dropped) -> false) < 0) {
                    if (publisher.getNumberOfSubscribers() == 0) {
                        producersCancelled.incrementAndGet();
                        return;
                    }
                }
                if (publisher.getNumberOfSubscribers() == 0) {
                    producersCancelled.incrementAndGet();
                    return;
                }
                produced.incrementAndGet();
                if (range.delayMillis() > 0) {
                    Thread.sleep(range.delayMillis());
                }
            }
            publisher.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            publisher.close();
            producersRunning.decrementAndGet();
        }
    }

    /** A publisher that fails with a message of {@code range.count()} characters. */
    @Read
    public Flow.Publisher<Item> failVerbosely(RequestContext context, Range range) {
        return subscriber -> subscriber.onSubscribe(new Flow.Subscription() {
            private boolean failed;

            @Override
            public void request(long n) {
                if (!failed) {
                    failed = true;
                    subscriber.onError(new IllegalStateException("é".repeat(range.count())));
                }
            }

            @Override
            public void cancel() {}
        });
    }

    /** Item 0, then a null item (against Reactive Streams 2.13), then item 2: a publisher with a bug. */
    @Read
    @SuppressWarnings("NullAway") // the bug under test
    public Flow.Publisher<Item> nulls(RequestContext context, Range range) {
        return subscriber -> subscriber.onSubscribe(new Flow.Subscription() {
            private boolean sent;

            @Override
            public void request(long n) {
                if (!sent) {
                    sent = true;
                    subscriber.onNext(new Item(0, "item-0"));
                    subscriber.onNext(null);
                    subscriber.onNext(new Item(2, "item-2"));
                    subscriber.onComplete();
                }
            }

            @Override
            public void cancel() {}
        });
    }

    /** {@code range.count()} items produced on the thread that asks for them, no producer thread. */
    @Read
    public Flow.Publisher<Item> range(RequestContext context, Range range) {
        return subscriber -> subscriber.onSubscribe(new Flow.Subscription() {
            private final AtomicLong demand = new AtomicLong();
            private final AtomicInteger next = new AtomicInteger();
            private volatile boolean cancelled;

            @Override
            public void request(long n) {
                if (demand.getAndAdd(n) != 0) {
                    return; // the thread emitting now sees the new demand
                }
                long want = n;
                while (true) {
                    long emitted = 0;
                    while (emitted < want && !cancelled) {
                        int i = next.getAndIncrement();
                        subscriber.onNext(new Item(i, "item-" + i));
                        emitted++;
                        if (i + 1 >= range.count()) {
                            cancelled = true;
                            subscriber.onComplete();
                            return;
                        }
                    }
                    want = demand.addAndGet(-emitted);
                    if (want == 0 || cancelled) {
                        return;
                    }
                }
            }

            @Override
            public void cancel() {
                cancelled = true;
            }
        });
    }

    @Read
    public Flow.Publisher<Item> explode(RequestContext context, Range range) {
        throw new IllegalArgumentException("no stream today");
    }

    /** Not a stream method. */
    @Read
    public Item plain(RequestContext context, Item item) {
        return item;
    }

    /** Answers each of the client's lines with its value plus one; completes when the client's input does. */
    @Read
    public Flow.Publisher<Line> chat(RequestContext context, Flow.Publisher<Line> input) {
        return subscriber -> {
            SubmissionPublisher<Line> out = new SubmissionPublisher<>();
            out.subscribe(subscriber);
            input.subscribe(new Flow.Subscriber<Line>() {
                private Flow.Subscription subscription;

                @Override
                public void onSubscribe(Flow.Subscription s) {
                    subscription = s;
                    s.request(1);
                }

                @Override
                public void onNext(Line line) {
                    out.submit(new Line(line.round(), line.value() + 1));
                    subscription.request(1);
                }

                @Override
                public void onError(Throwable error) {
                    out.closeExceptionally(error);
                }

                @Override
                public void onComplete() {
                    out.close();
                }
            });
        };
    }
}
