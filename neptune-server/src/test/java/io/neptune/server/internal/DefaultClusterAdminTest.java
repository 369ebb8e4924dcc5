package io.neptune.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Which failed rebalance steps {@link DefaultClusterAdmin#rebalance} runs again before it gives up. */
class DefaultClusterAdminTest {
    @Test
    void aStepThatFailedBecauseALiveNodeWasBrieflyMissingFromTheYellowPageRunsAgain() {
        // the message a CI run's RebalanceIT stopped on: node-0 was alive and primary, but its announcements had
        // lapsed for one expiry in node-3's yellow page on a loaded machine
        assertThat(DefaultClusterAdmin.passesByItself("node-3 did not take over the primary role of journal#2: node-0"
                + " did not answer the handover: io.neptune.client.internal.CallFailure: node-0 is not in the yellow"
                + " page")).isTrue();
        assertThat(DefaultClusterAdmin.passesByItself("node-3 did not take over the primary role of journal#2: node-0"
                + " did not answer the handover: no reply")).isTrue();
    }

    @Test
    void aStepThatRanIntoAnElectionOrAnotherHandoverOrALaggingReplicaRunsAgain() {
        assertThat(DefaultClusterAdmin.passesByItself("node-3 did not take over the primary role of journal#2: an"
                + " election is under way")).isTrue();
        assertThat(DefaultClusterAdmin.passesByItself("node-3 did not take over the primary role of journal#2: the"
                + " replica's state changed while node-0 handed over; ask again")).isTrue();
        assertThat(DefaultClusterAdmin.passesByItself("node-3 did not take over the primary role of journal#2: not"
                + " caught up: it is recovering (catching up with the primary) or out of service")).isTrue();
        assertThat(DefaultClusterAdmin.passesByItself("NEP-PLACE-002 journal#2 has no primary in the yellow page:"
                + " retry once one is elected")).isTrue();
        // a take-over election lost (CI saw one in RebalanceIT, right after an add-replica made 4 voters)
        assertThat(DefaultClusterAdmin.passesByItself("node-1 did not take over the primary role of journal#0: vote"
                + " got 1 of 3 needed votes")).isTrue();
    }

    @Test
    void aStepThatWasRefusedForGoodStopsTheRebalance() {
        assertThat(DefaultClusterAdmin.passesByItself("node-3 did not take over the primary role of journal#2: node-0"
                + " refused the handover: it is draining")).isFalse();
        assertThat(DefaultClusterAdmin.passesByItself("NEP-PLACE-001 journal#2 is not in majority mode")).isFalse();
        assertThat(DefaultClusterAdmin.passesByItself("node-9 does not run journal")).isFalse();
    }
}
