package io.neptune.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.client.ClientConfig;
import org.junit.jupiter.api.Test;

/** The client's retry budget (gRPC's retry throttling), driven by hand: no clock, no threads. */
class RetryBudgetTest {
    @Test
    void aFullBucketAllowsRetries() {
        RetryBudget budget = new RetryBudget(10, 0.1);
        assertThat(budget.allowsRetry()).isTrue();
        assertThat(budget.tokens()).isEqualTo(10.0);
    }

    @Test
    void retriesStopOnceHalfTheTokensAreSpentOnFailures() {
        RetryBudget budget = new RetryBudget(10, 0.1);
        for (int i = 0; i < 4; i++) {
            budget.failed();
        }
        assertThat(budget.allowsRetry()).as("6 of 10 left").isTrue();
        budget.failed();
        assertThat(budget.allowsRetry()).as("5 of 10 left: not more than half").isFalse();
    }

    @Test
    void answeredAttemptsRefillTheBucketByTheTokenRatio() {
        RetryBudget budget = new RetryBudget(10, 0.1);
        for (int i = 0; i < 5; i++) {
            budget.failed();
        }
        budget.succeeded();
        assertThat(budget.tokens()).isEqualTo(5.1);
        assertThat(budget.allowsRetry()).isTrue();
    }

    @Test
    void theBucketHoldsNeitherLessThanNothingNorMoreThanItsMaximum() {
        RetryBudget budget = new RetryBudget(4, 0.5);
        for (int i = 0; i < 100; i++) {
            budget.failed();
        }
        assertThat(budget.tokens()).isZero();
        for (int i = 0; i < 100; i++) {
            budget.succeeded();
        }
        assertThat(budget.tokens()).isEqualTo(4.0);
    }

    /** The share of failing attempts the budget tolerates is about ratio / (1 + ratio): 1 in 11 at 0.1. */
    @Test
    void retriesGoOnWhileFewerThanOneAttemptInElevenFailsAndStopBeyond() {
        RetryBudget tolerated = new RetryBudget(100, 0.1);
        RetryBudget throttled = new RetryBudget(100, 0.1);
        for (int round = 0; round < 1000; round++) {
            for (int i = 0; i < 11; i++) { // 1 in 12 fails
                tolerated.succeeded();
            }
            tolerated.failed();
            for (int i = 0; i < 9; i++) { // 1 in 10 fails
                throttled.succeeded();
            }
            throttled.failed();
        }
        assertThat(tolerated.allowsRetry()).isTrue();
        assertThat(throttled.allowsRetry()).isFalse();
    }

    @Test
    void noTokensMeansNoBudgetAndEveryRetryIsAllowed() {
        RetryBudget off = RetryBudget.of(ClientConfig.builder().retryBudgetTokens(0).build());
        for (int i = 0; i < 1000; i++) {
            off.failed();
        }
        assertThat(off.isEnabled()).isFalse();
        assertThat(off.allowsRetry()).isTrue();
    }

    @Test
    void theDefaultBudgetHasAHundredTokensRefilledByATenthPerAnswer() {
        RetryBudget defaults = RetryBudget.of(ClientConfig.defaults());
        assertThat(defaults.tokens()).isEqualTo(100.0);
        defaults.failed();
        defaults.succeeded();
        assertThat(defaults.tokens()).isEqualTo(99.1);
    }

    @Test
    void badBudgetSettingsAreRefusedNamingTheSetting() {
        assertThatThrownBy(() -> ClientConfig.builder().retryBudgetTokens(-1).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryBudgetTokens: -1 (expected: 0 for no budget, or 1 to 1000)");
        assertThatThrownBy(() -> ClientConfig.builder().retryBudgetTokenRatio(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("retryBudgetTokenRatio: 0.0 (expected: 0.001 to 1)");
        assertThatThrownBy(() -> new RetryBudget(10, 1.5)).isInstanceOf(IllegalArgumentException.class);
    }
}
