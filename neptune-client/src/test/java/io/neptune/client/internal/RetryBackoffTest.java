package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.ClientConfig;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The waits between a call's attempts, drawn from a scripted random source: no clock, no sleeping. */
class RetryBackoffTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    @Test
    void theBoundGrowsByTheMultiplierUpToTheMaximum() {
        RetryBackoff backoff = new RetryBackoff(50 * MS, 2, 1000 * MS, true);
        assertThat(new long[] {backoff.boundNanos(0), backoff.boundNanos(1), backoff.boundNanos(2),
                backoff.boundNanos(3), backoff.boundNanos(4), backoff.boundNanos(5), backoff.boundNanos(60)})
                .containsExactly(50 * MS, 100 * MS, 200 * MS, 400 * MS, 800 * MS, 1000 * MS, 1000 * MS);
    }

    @Test
    void aBoundBeyondTheRangeOfDoublesIsTheMaximum() {
        RetryBackoff backoff = new RetryBackoff(50 * MS, 100, 1000 * MS, true);
        assertThat(backoff.boundNanos(Integer.MAX_VALUE)).isEqualTo(1000 * MS);
    }

    @Test
    void fullJitterDrawsEachWaitUniformlyBelowItsBound() {
        RetryBackoff backoff = new RetryBackoff(50 * MS, 2, 1000 * MS, true);
        assertThat(backoff.delayNanos(0, () -> 0.0)).isZero();
        assertThat(backoff.delayNanos(0, () -> 0.5)).isEqualTo(25 * MS);
        assertThat(backoff.delayNanos(3, () -> 0.25)).isEqualTo(100 * MS);
        assertThat(backoff.delayNanos(9, () -> 0.999)).isLessThan(1000 * MS);
    }

    @Test
    void withoutJitterAndAMultiplierOfOneEveryWaitIsTheFixedPauseOfEarlierVersions() {
        RetryBackoff fixed = RetryBackoff.of(ClientConfig.builder().retryBackoffMultiplier(1)
                .retryBackoffMax(Duration.ofMillis(50)).retryJitter(false).build());
        for (int retry = 0; retry < 10; retry++) {
            assertThat(fixed.delayNanos(retry, () -> 0.3)).isEqualTo(50 * MS);
        }
    }

    @Test
    void theDefaultsStartAtTheFixedPauseOfEarlierVersionsAndGrowToOneSecond() {
        RetryBackoff defaults = RetryBackoff.of(ClientConfig.defaults());
        assertThat(defaults.boundNanos(0)).isEqualTo(50 * MS);
        assertThat(defaults.boundNanos(20)).isEqualTo(1000 * MS);
        assertThat(defaults.delayNanos(0, () -> 0.5)).as("jittered by default").isEqualTo(25 * MS);
    }

    @Test
    void aWaitThatEndsBeforeTheDeadlineIsKept() {
        assertThat(RetryBackoff.withinDeadline(400 * MS, 1000 * MS)).isEqualTo(400 * MS);
        assertThat(RetryBackoff.withinDeadline(0, 300 * MS)).isZero();
    }

    @Test
    void aCallWhoseNextWaitWouldReachItsDeadlineDoesNotWait() {
        assertThat(RetryBackoff.withinDeadline(400 * MS, 300 * MS)).isEqualTo(-1);
        assertThat(RetryBackoff.withinDeadline(299 * MS, 300 * MS)).as("under 2 ms left after it").isEqualTo(-1);
        assertThat(RetryBackoff.withinDeadline(0, -5 * MS)).isEqualTo(-1);
    }

    @Test
    void aMaximumBelowTheInitialWaitIsRefusedNamingBothSettings() {
        assertThatThrownBy(() -> ClientConfig.builder().retryBackoff(Duration.ofMillis(100))
                .retryBackoffMax(Duration.ofMillis(10)).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryBackoffMax: PT0.01S (expected: >= retryBackoff, PT0.1S)");
        assertThatThrownBy(() -> ClientConfig.builder().retryBackoffMultiplier(0.5).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryBackoffMultiplier: 0.5 (expected: 1 to 100)");
        assertThatThrownBy(() -> ClientConfig.builder().retryBackoffMultiplier(Double.NaN).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryBackoffMultiplier: NaN");
        assertThatThrownBy(() -> ClientConfig.builder().retryBackoff(Duration.ZERO).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("retryBackoff: PT0S (expected: > 0)");
    }
}
