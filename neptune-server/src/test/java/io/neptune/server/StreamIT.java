package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.CallOptions;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneClient;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.PartitionKey;
import io.neptune.core.Read;
import io.neptune.core.StreamFailedException;
import io.neptune.core.UnknownMethodException;
import io.neptune.core.Write;
import io.neptune.server.StreamTestService.Item;
import io.neptune.server.StreamTestService.Line;
import io.neptune.server.StreamTestService.Range;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Streams between real nodes over real sockets: node-0 hosts {@link StreamTestService}, node-1 hosts
 * nothing and opens the streams (over one connection, for the concurrency test). Ordering,
 * backpressure, cancellation from either end, deadline, remote errors, 1,000 concurrent streams and a
 * bidirectional chat.
 */
class StreamIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final CallOptions OPTIONS = CallOptions.timeout(Duration.ofSeconds(60));

    private static StreamTestService service;
    private static MiniCluster cluster;
    private static NeptuneClient client;

    @BeforeAll
    static void start() {
        service = new StreamTestService();
        cluster = MiniCluster.start(1, b -> b.host(service, HostingConfig.builder().queueCapacity(4096).build()));
        try {
            NeptuneNode caller = cluster.add("node-1", ClientConfig.builder().connectionsPerNode(1).build(), b -> b);
            client = caller.client();
            ReplicatedProcesses.await(() -> client.partitions("streams") == 2, WAIT, "node-1 to see the service");
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static <T> Flow.Publisher<T> open(String method, Object request, Class<T> type, CallOptions options) {
        return client.openStream(NeptuneHandle.create(), "streams", 0, method, request, type, options);
    }

    private static Throwable failure(CompletableFuture<Void> done) throws Exception {
        try {
            done.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("the stream completed (expected: it fails)");
    }

    @Test
    void tenThousandItemsArriveInOrderOneAtATimeOffTheIoThreads() throws Exception {
        RecordingSubscriber<Item> subscriber = RecordingSubscriber.all();
        open("produce", new Range(10_000, 64, 0, -1, -1), Item.class, OPTIONS).subscribe(subscriber);

        subscriber.done().get(WAIT.toSeconds(), TimeUnit.SECONDS);

        List<Item> items = subscriber.items();
        assertThat(items).hasSize(10_000);
        assertThat(items).extracting(Item::n).containsExactlyElementsOf(IntStream.range(0, 10_000).boxed().toList());
        assertThat(items.get(9_999).text()).isEqualTo("item-9999");
        assertThat(subscriber.overlapped()).as("signals overlapped").isFalse();
        assertThat(subscriber.onIoThread()).as("a signal came on an I/O thread").isFalse();
    }

    @Test
    void aSlowConsumerBoundsTheProducer() throws Exception {
        int buffer = 8;
        int count = 300;
        AtomicLong maxLag = new AtomicLong();
        long producedBefore = service.produced.get();
        RecordingSubscriber<Item> slow = new RecordingSubscriber<>(1, (s, item) -> {
            long lag = (service.produced.get() - producedBefore) - s.count();
            maxLag.accumulateAndGet(lag, Math::max);
            try {
                Thread.sleep(2); // a slow consumer, on Neptune's delivery thread
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            s.request(1);
        });
        open("produce", new Range(count, buffer, 0, -1, -1), Item.class, OPTIONS).subscribe(slow);

        slow.done().get(WAIT.toSeconds(), TimeUnit.SECONDS);

        assertThat(slow.count()).isEqualTo(count);
        // produced - consumed <= the publisher's buffer + the credit the slow consumer grants (1) + the item
        // being handed over on each hop (server publisher -> wire -> client queue): far below the 300 items
        // an unbounded producer would have run ahead.
        assertThat(maxLag.get()).as("most items produced and not yet consumed").isLessThanOrEqualTo(buffer + 4);
    }

    @Test
    void aClientCancelStopsTheProducer() throws Exception {
        int cancelledBefore = service.producersCancelled.get();
        RecordingSubscriber<Item> subscriber = new RecordingSubscriber<>(Long.MAX_VALUE, (s, item) -> {
            if (item.n() == 9) {
                s.cancel();
            }
        });
        open("produce", new Range(1_000_000, 8, 1, -1, -1), Item.class, OPTIONS).subscribe(subscriber);

        ReplicatedProcesses.await(() -> service.producersCancelled.get() > cancelledBefore, WAIT,
                "the producer to see the cancel");
        assertThat(subscriber.done()).isNotDone();
        assertThat(subscriber.items()).extracting(Item::n).startsWith(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
        assertThat(subscriber.count()).isLessThanOrEqualTo(10 + 256 /* the client's credit window */);
        ReplicatedProcesses.await(() -> cluster.node(0).openStreams() == 0, WAIT, "the server to forget the stream");
    }

    @Test
    void aPublisherThatCompletesEarlyEndsTheStream() throws Exception {
        RecordingSubscriber<Item> subscriber = RecordingSubscriber.all();
        open("produce", new Range(100, 8, 0, -1, 5), Item.class, OPTIONS).subscribe(subscriber);

        subscriber.done().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(subscriber.items()).extracting(Item::n).containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    void aPublisherErrorFailsTheStreamAfterTheItemsBeforeIt() throws Exception {
        RecordingSubscriber<Item> subscriber = RecordingSubscriber.all();
        open("produce", new Range(100, 8, 0, 5, -1), Item.class, OPTIONS).subscribe(subscriber);

        Throwable error = failure(subscriber.done());
        assertThat(error).isInstanceOf(StreamFailedException.class)
                .hasMessageContaining("IllegalStateException: producer failed at item 5");
        StreamFailedException failed = (StreamFailedException) error;
        assertThat(failed.reason()).isEqualTo(StreamFailedException.Reason.REMOTE_ERROR);
        assertThat(failed.node()).isEqualTo(cluster.node(0).node());
        // closeExceptionally may drop what the SubmissionPublisher still buffers; what arrived came in order
        assertThat(failed.itemsReceived()).isEqualTo(subscriber.count()).isLessThanOrEqualTo(5);
        assertThat(subscriber.items()).extracting(Item::n) // a prefix of 0..4, possibly empty
                .isEqualTo(List.of(0, 1, 2, 3, 4).subList(0, subscriber.count()));
    }

    @Test
    void aMethodThatThrowsFailsTheStream() throws Exception {
        RecordingSubscriber<Item> subscriber = RecordingSubscriber.all();
        open("explode", Range.of(1), Item.class, OPTIONS).subscribe(subscriber);

        assertThat(failure(subscriber.done())).isInstanceOf(StreamFailedException.class)
                .hasMessageContaining("IllegalArgumentException: no stream today")
                .satisfies(e -> assertThat(((StreamFailedException) e).reason())
                        .isEqualTo(StreamFailedException.Reason.REMOTE_ERROR));
    }

    @Test
    void theDeadlineBoundsTheWholeStreamAndStopsTheProducer() throws Exception {
        int cancelledBefore = service.producersCancelled.get();
        RecordingSubscriber<Item> subscriber = RecordingSubscriber.all();
        open("produce", new Range(1_000_000, 8, 20, -1, -1), Item.class, CallOptions.timeout(Duration.ofSeconds(1)))
                .subscribe(subscriber);

        Throwable error = failure(subscriber.done());
        assertThat(error).isInstanceOf(StreamFailedException.class);
        assertThat(((StreamFailedException) error).reason()).isEqualTo(StreamFailedException.Reason.DEADLINE_EXCEEDED);
        assertThat(subscriber.count()).isGreaterThan(0);
        ReplicatedProcesses.await(() -> service.producersCancelled.get() > cancelledBefore, WAIT,
                "the producer to see the cancel");
    }

    @Test
    void callingAPlainMethodAsAStreamIsRefused() throws Exception {
        RecordingSubscriber<Item> subscriber = RecordingSubscriber.all();
        open("plain", new Item(1, "x"), Item.class, OPTIONS).subscribe(subscriber);

        assertThat(failure(subscriber.done())).isInstanceOf(UnknownMethodException.class)
                .hasMessageContaining("'plain' is not a stream method");
    }

    @Test
    void aStreamHasOneSubscriber() throws Exception {
        Flow.Publisher<Item> stream = open("range", Range.of(3), Item.class, OPTIONS);
        RecordingSubscriber<Item> first = RecordingSubscriber.all();
        RecordingSubscriber<Item> second = RecordingSubscriber.all();
        stream.subscribe(first);
        stream.subscribe(second);

        first.done().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(first.items()).hasSize(3);
        assertThat(failure(second.done())).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void aThousandConcurrentStreamsOnOneConnectionAllComplete() throws Exception {
        int streams = 1_000;
        int items = 50;
        List<RecordingSubscriber<Item>> subscribers = new ArrayList<>();
        for (int i = 0; i < streams; i++) {
            RecordingSubscriber<Item> subscriber = new RecordingSubscriber<>(7, (s, item) -> {
                if (item.n() % 7 == 6) {
                    s.request(7);
                }
            });
            subscribers.add(subscriber);
            open("range", Range.of(items), Item.class, OPTIONS).subscribe(subscriber);
        }

        CompletableFuture.allOf(subscribers.stream().map(RecordingSubscriber::done).toArray(CompletableFuture[]::new))
                .get(60, TimeUnit.SECONDS);

        List<Integer> expected = IntStream.range(0, items).boxed().toList();
        for (RecordingSubscriber<Item> subscriber : subscribers) {
            assertThat(subscriber.items()).extracting(Item::n).containsExactlyElementsOf(expected);
            assertThat(subscriber.overlapped()).isFalse();
        }
    }

    @Test
    void byteArrayItemsTravelAsTheirBytesAndAreRefusedAsAnotherType() throws Exception {
        RecordingSubscriber<byte[]> bytes = RecordingSubscriber.all();
        open("bytes", Range.of(500), byte[].class, OPTIONS).subscribe(bytes);
        bytes.done().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(bytes.items()).hasSize(500);
        for (int i = 0; i < 500; i++) {
            assertThat(new String(bytes.items().get(i), java.nio.charset.StandardCharsets.US_ASCII))
                    .isEqualTo("item-" + i);
        }

        RecordingSubscriber<String> text = RecordingSubscriber.all();
        open("bytes", Range.of(50), String.class, OPTIONS).subscribe(text);
        // itemsReceived is where a caller resumes: items queued behind the one that failed were never delivered
        assertThat(failure(text.done())).isInstanceOfSatisfying(StreamFailedException.class,
                        e -> assertThat(e.itemsReceived()).isEqualTo(text.items().size()).isZero())
                .hasMessageContaining("cannot decode item 0 ")
                .hasMessageContaining("raw bytes (flag 0x02), but the stream's items are");
    }

    /**
     * A publisher's error message longer than a frame: the stream ends with the message cut to fit.
     * Written whole, the frame was over the client's limit, which closed the connection with every
     * call and stream on it.
     */
    @Test
    void aPublisherErrorLongerThanAFrameEndsTheStreamWithItsMessageCut() throws Exception {
        RecordingSubscriber<Item> items = RecordingSubscriber.all();
        open("failVerbosely", Range.of(3 * 1024 * 1024), Item.class, OPTIONS).subscribe(items); // 6 MiB in UTF-8
        assertThat(failure(items.done())).isInstanceOfSatisfying(StreamFailedException.class,
                e -> assertThat(e.reason()).isEqualTo(StreamFailedException.Reason.REMOTE_ERROR))
                .hasMessageContaining("éééé").hasMessageContaining("cut to fit max-frame-size");
    }

    /** A publisher that sends a null item fails the stream: a subscriber never gets onNext(null) (rule 2.13). */
    @Test
    void aNullItemFailsTheStreamInsteadOfReachingTheSubscriber() throws Exception {
        RecordingSubscriber<Item> items = RecordingSubscriber.all();
        open("nulls", Range.of(3), Item.class, OPTIONS).subscribe(items);
        assertThat(failure(items.done())).isInstanceOfSatisfying(StreamFailedException.class,
                e -> assertThat(e.reason()).isEqualTo(StreamFailedException.Reason.REMOTE_ERROR))
                .hasMessageContaining("null item").hasMessageContaining("2.13");
        assertThat(items.items()).containsExactly(new Item(0, "item-0"));
    }

    /** The stream methods as a typed proxy sees them. */
    interface Streams {
        @Read
        Flow.Publisher<Item> produce(@PartitionKey String key, Range range);

        @Read(name = "chat")
        Flow.Publisher<Line> talk(@PartitionKey String key, Flow.Publisher<Line> input);
    }

    interface WriteStream {
        @Write
        Flow.Publisher<Item> produce(@PartitionKey String key, Range range);
    }

    @Test
    void aTypedProxyOpensOutputAndBidirectionalStreams() throws Exception {
        Streams streams = client.proxy(Streams.class, "streams", OPTIONS);
        RecordingSubscriber<Item> items = RecordingSubscriber.all();
        streams.produce("some-key", Range.of(100)).subscribe(items);
        items.done().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(items.items()).extracting(Item::n).containsExactlyElementsOf(IntStream.range(0, 100).boxed().toList());

        SubmissionPublisher<Line> input = new SubmissionPublisher<>();
        RecordingSubscriber<Line> answers = RecordingSubscriber.all();
        streams.talk("some-key", input).subscribe(answers);
        ReplicatedProcesses.await(() -> input.getNumberOfSubscribers() == 1, WAIT, "the stream to take the input");
        input.submit(new Line(0, 41));
        input.close();
        answers.done().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        assertThat(answers.items()).containsExactly(new Line(0, 42));

        assertThatThrownBy(() -> client.proxy(WriteStream.class, "streams"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("WriteStream.produce(): @Write returning Flow.Publisher (expected: @Read; streams"
                        + " are read-only)");
    }

    @Test
    void aBidirectionalChatTakesSeveralRoundsEachDependingOnTheLastAnswer() throws Exception {
        int rounds = 6;
        SubmissionPublisher<Line> input = new SubmissionPublisher<>();
        RecordingSubscriber<Line> answers = new RecordingSubscriber<>(1, (s, answer) -> {
            if (answer.round() + 1 < rounds) {
                input.submit(new Line(answer.round() + 1, answer.value() * 2)); // the next line needs this answer
                s.request(1);
            } else {
                input.close();
            }
        });
        client.openStream(NeptuneHandle.create(), "streams", 1, "chat", input, Line.class, OPTIONS).subscribe(answers);
        // a SubmissionPublisher drops what it is given before anyone subscribed: wait for the stream to
        ReplicatedProcesses.await(() -> input.getNumberOfSubscribers() == 1, WAIT, "the stream to take the input");
        input.submit(new Line(0, 1));

        answers.done().get(WAIT.toSeconds(), TimeUnit.SECONDS);

        List<Line> expected = new ArrayList<>();
        long value = 1;
        for (int round = 0; round < rounds; round++) {
            expected.add(new Line(round, value + 1));
            value = (value + 1) * 2;
        }
        assertThat(answers.items()).containsExactlyElementsOf(expected);
    }

    @Test
    void aBidirectionalStreamOpenedWithARequestIsRefused() throws Exception {
        RecordingSubscriber<Line> subscriber = RecordingSubscriber.all();
        open("chat", new Line(0, 1), Line.class, OPTIONS).subscribe(subscriber);

        assertThat(failure(subscriber.done())).isInstanceOf(UnknownMethodException.class)
                .hasMessageContaining("'chat' takes the client's stream");
    }

    @Test
    void theInputPublishersErrorReachesTheServiceAndFailsTheStream() throws Exception {
        SubmissionPublisher<Line> input = new SubmissionPublisher<>();
        RecordingSubscriber<Line> answers = new RecordingSubscriber<>(Long.MAX_VALUE, null);
        client.openStream(NeptuneHandle.create(), "streams", 1, "chat", input, Line.class, OPTIONS).subscribe(answers);
        ReplicatedProcesses.await(() -> input.getNumberOfSubscribers() == 1, WAIT, "the stream to take the input");
        input.submit(new Line(0, 1));
        ReplicatedProcesses.await(() -> answers.count() == 1, WAIT, "the first answer");
        input.closeExceptionally(new IllegalStateException("keyboard unplugged"));

        assertThat(failure(answers.done())).isInstanceOf(StreamFailedException.class)
                .hasMessageContaining("keyboard unplugged");
        assertThatThrownBy(() -> answers.done().join()).hasCauseInstanceOf(StreamFailedException.class);
    }
}
