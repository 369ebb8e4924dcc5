package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
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
        List<String> signals = new ArrayList<>();
        new RepeatingPublisher<>("x", 5).subscribe(new Flow.Subscriber<String>() {
            private Flow.Subscription subscription;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(2);
            }

            @Override
            public void onNext(String item) {
                signals.add(item);
                if (signals.size() == 2) {
                    subscription.request(1); // re-entrant: must not recurse into a second emitting loop
                    signals.add("requested");
                }
            }

            @Override
            public void onError(Throwable cause) {
                signals.add("error " + cause.getMessage());
            }

            @Override
            public void onComplete() {
                signals.add("complete");
            }
        });

        assertThat(signals).containsExactly("x", "x", "requested", "x");
    }

    @Test
    void theRepeatingPublisherCompletesAfterItsCount() {
        List<String> signals = new ArrayList<>();
        new RepeatingPublisher<>("x", 3).subscribe(new Flow.Subscriber<String>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(String item) {
                signals.add(item);
            }

            @Override
            public void onError(Throwable cause) {
                signals.add("error");
            }

            @Override
            public void onComplete() {
                signals.add("complete");
            }
        });

        assertThat(signals).containsExactly("x", "x", "x", "complete");
    }
}
