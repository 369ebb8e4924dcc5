package io.neptune.core.internal.stream;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.internal.wire.StreamData;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Reactive Streams rules at the receiving end of a stream, with deliveries on the calling thread:
 * each case was found by review and failed before its fix.
 */
class InboundPublisherTest {
    private final AtomicInteger cancels = new AtomicInteger();
    private final InboundPublisher<String> publisher = new InboundPublisher<>(Runnable::run,
            data -> new String(data.payload(), StandardCharsets.UTF_8), 16, new InboundPublisher.Upstream() {
                @Override
                public void open() {}

                @Override
                public void credit(int items) {}

                @Override
                public void cancel() {
                    cancels.incrementAndGet();
                }
            });

    /** Rule 3.6: after cancel, request(n) is a no-op, even a bad n (3.9 applies only to a live subscription). */
    @Test
    void aBadRequestAfterCancelSignalsNothing() {
        List<Object> signals = new ArrayList<>();
        AtomicReference<Flow.Subscription> subscription = new AtomicReference<>();
        publisher.subscribe(new Recorder(signals) {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription.set(s);
            }
        });
        subscription.get().cancel();
        subscription.get().request(0);

        assertThat(signals).isEmpty();
        assertThat(cancels).hasValue(1);
    }

    /** Rule 2.13: a subscriber whose onSubscribe throws is cancelled; the drain does not die with work pending. */
    @Test
    void aSubscriberWhoseOnSubscribeThrowsIsCancelled() {
        List<Object> signals = new ArrayList<>();
        publisher.subscribe(new Recorder(signals) {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                throw new IllegalStateException("a subscriber's bug");
            }
        });
        assertThat(cancels).as("the sender is told to stop").hasValue(1);

        publisher.offer(new StreamData(1, "x".getBytes(StandardCharsets.UTF_8), false, false));
        publisher.complete();
        assertThat(signals).as("nothing after the throw").isEmpty();
        assertThat(publisher.isDone()).isTrue();
    }

    private static class Recorder implements Flow.Subscriber<String> {
        private final List<Object> signals;

        Recorder(List<Object> signals) {
            this.signals = signals;
        }

        @Override
        public void onSubscribe(Flow.Subscription subscription) {}

        @Override
        public void onNext(String item) {
            signals.add(item);
        }

        @Override
        public void onError(Throwable throwable) {
            signals.add(throwable);
        }

        @Override
        public void onComplete() {
            signals.add("complete");
        }
    }
}
