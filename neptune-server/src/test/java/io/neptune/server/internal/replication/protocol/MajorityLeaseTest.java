package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MajorityLeaseTest {
    private static final long TIMEOUT = 300_000_000L;

    @Test
    void aPrimaryHoldsAMajorityUntilAWholeTimeoutPassedSinceAMajorityFollowedIt() {
        assertThat(new MajorityLease(1_000, 2, 1_000 + TIMEOUT - 1, TIMEOUT).holds()).isTrue();
        assertThat(new MajorityLease(1_000, 1, 1_000 + TIMEOUT, TIMEOUT).holds()).isFalse();
        assertThat(new MajorityLease(Long.MIN_VALUE, 1, 0, TIMEOUT).holds()).as("no majority ever followed it")
                .isFalse();
    }

    @Test
    void aPrimaryThatLostItsMajorityStepsDownUnlessJustWokenFromAPause() {
        MajorityLease lost = new MajorityLease(0, 1, TIMEOUT, TIMEOUT);

        assertThat(lost.stepDown(false)).isEqualTo("no majority answered within 300 ms");
        assertThat(lost.stepDown(true)).as("woken: the others get a timeout to answer").isNull();
        assertThat(new MajorityLease(0, 3, TIMEOUT - 1, TIMEOUT).stepDown(false)).isNull();
    }

    @Test
    void aPrimaryThatLostItsMajorityRefusesWritesSayingWhomItHeardFrom() {
        MajorityLease lost = new MajorityLease(0, 1, TIMEOUT, TIMEOUT);

        assertThat(lost.writeRefusal("s#0@n1", 3, 2)).isEqualTo("s#0@n1 has no majority: heard from 1 of 3 replicas"
                + " (2 needed) within 300 ms; the write did not run");
        assertThat(new MajorityLease(0, 2, TIMEOUT - 1, TIMEOUT).writeRefusal("s#0@n1", 3, 2)).isNull();
    }

    @Test
    void aPrimaryIsGivenTwoElectionTimeoutsToHearFromAMajority() {
        assertThat(MajorityLease.periodFor(TIMEOUT)).isEqualTo(2 * TIMEOUT);
    }

    /** Writes and step-downs follow one rule: a primary that refuses writes for want of a majority steps down. */
    @Test
    void writesAreRefusedExactlyWhenThePrimaryWouldStepDown() {
        for (long age = TIMEOUT - 2; age <= TIMEOUT + 2; age++) {
            MajorityLease lease = new MajorityLease(0, 2, age, TIMEOUT);
            assertThat(lease.writeRefusal("p", 3, 2) == null).as("age " + age).isEqualTo(lease.stepDown(false) == null);
        }
    }
}
