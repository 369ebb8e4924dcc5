package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The streams bench's request and the publisher its Neptune method returns, without a node. */
class StreamBurstTest {
    @Test
    void theGrpcEncodingRoundTrips() {
        StreamBurst burst = new StreamBurst(80_000, 16_384);

        assertThat(burst.encode()).hasSize(8);
        assertThat(StreamBurst.decode(burst.encode())).isEqualTo(burst);
        assertThatThrownBy(() -> StreamBurst.decode(new byte[7])).hasMessage("bytes: 7 (expected: 8)");
        assertThatThrownBy(() -> new StreamBurst(0, 100)).hasMessage("items: 0 (expected: >= 1)");
    }

    @Test
    void thePayloadHasTheRequestedSize() {
        assertThat(new StreamBurst(1, 100).payload()).hasSize(100).startsWith((byte) 'a', (byte) 'b');
    }

    @Test
    void theRepeatingPublisherEmitsOnlyWhatWasRequestedAlsoFromWithinOnNext() {
        Recording subscriber = new Recording(2, s -> {
            if (s.signals.size() == 2) {
                s.subscription.request(1); // re-entrant: must not start a second emitting loop
                s.signals.add("requested");
            }
        });
        new RepeatingPublisher<>("x", 5).subscribe(subscriber);

        assertThat(subscriber.signals).containsExactly("x", "x", "requested", "x");
    }

    @Test
    void theRepeatingPublisherCompletesAfterItsCount() {
        Recording subscriber = new Recording(Long.MAX_VALUE, s -> {});
        new RepeatingPublisher<>("x", 3).subscribe(subscriber);

        assertThat(subscriber.signals).containsExactly("x", "x", "x", "complete");
    }

    /** Records the signals it gets; requests {@code initial} items, then lets {@code afterItem} act. */
    private static final class Recording implements Flow.Subscriber<String> {
        final List<String> signals = new ArrayList<>();
        private final long initial;
        private final Consumer<Recording> afterItem;
        Flow.Subscription subscription;

        Recording(long initial, Consumer<Recording> afterItem) {
            this.initial = initial;
            this.afterItem = afterItem;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(initial);
        }

        @Override
        public void onNext(String item) {
            signals.add(item);
            afterItem.accept(this);
        }

        @Override
        public void onError(Throwable cause) {
            signals.add("error " + cause.getMessage());
        }

        @Override
        public void onComplete() {
            signals.add("complete");
        }
    }
}
