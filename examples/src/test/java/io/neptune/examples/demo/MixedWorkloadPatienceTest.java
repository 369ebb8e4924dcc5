package io.neptune.examples.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.AlreadyAppliedException;
import io.neptune.core.NoReplicaAvailableException;
import io.neptune.core.NodeId;
import io.neptune.core.OutcomeUnknownException;
import io.neptune.core.RemoteMethodException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The demo's seeding and verification survive a fail-over instead of ending the demo (an unknown
 * outcome during seeding used to stop the whole demo with exit status 2 on a loaded machine), and
 * never run a write twice to get there.
 */
class MixedWorkloadPatienceTest {
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    @Test
    void aCallThatDidNotRunIsCalledAgainUntilItSucceeds() {
        AtomicInteger calls = new AtomicInteger();
        String answer = MixedWorkload.patiently(() -> {
            if (calls.incrementAndGet() < 3) {
                throw new NoReplicaAvailableException("discussion", 3, "none in the yellow page", null);
            }
            return "ok";
        }, String.class, PATIENCE);
        assertThat(answer).isEqualTo("ok");
        assertThat(calls).hasValue(3);
    }

    @Test
    void aWriteOfUnknownOutcomeIsRetriedWithItsRequestIdNotCalledAgain() {
        AtomicInteger calls = new AtomicInteger();
        AtomicInteger retries = new AtomicInteger();
        String answer = MixedWorkload.patiently(() -> {
            calls.incrementAndGet();
            throw new OutcomeUnknownException("discussion#3.AddMsg", "0".repeat(32), "the primary stepped down", null,
                    () -> {
                        retries.incrementAndGet();
                        return CompletableFuture.completedFuture("ran once");
                    });
        }, String.class, PATIENCE);
        assertThat(answer).isEqualTo("ran once");
        assertThat(calls).as("a new call would get a new request id and could run the write twice").hasValue(1);
        assertThat(retries).hasValue(1);
    }

    @Test
    void aRetryThatFindsTheWriteAppliedEndsWithoutAnAnswer() {
        String answer = MixedWorkload.patiently(() -> {
            throw new OutcomeUnknownException("auction#1.AddItem", "1".repeat(32), "connection reset", null,
                    () -> CompletableFuture.failedFuture(new AlreadyAppliedException("auction#1.AddItem", 7)));
        }, String.class, PATIENCE);
        assertThat(answer).isNull();
    }

    @Test
    void aFailureOfTheMethodItselfIsNotRetried() {
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> MixedWorkload.patiently(() -> {
            calls.incrementAndGet();
            throw new RemoteMethodException("auction#1.AddItem", NodeId.of("node-1"), "price must be positive");
        }, String.class, PATIENCE)).isInstanceOf(RemoteMethodException.class);
        assertThat(calls).hasValue(1);
    }

    @Test
    void patienceRunsOutWithTheLastFailure() {
        assertThatThrownBy(() -> MixedWorkload.patiently(() -> {
            throw new NoReplicaAvailableException("cache", 9, "none in the yellow page", null);
        }, String.class, Duration.ZERO)).isInstanceOf(NoReplicaAvailableException.class).hasMessageContaining("cache");
    }
}
