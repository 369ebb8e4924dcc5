package io.neptune.server.internal.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ElectionTest {
    @Test
    void aLaterLastEpochIsMoreCompleteWhateverTheLengths() {
        assertThat(Election.atLeastAsComplete(3, 1, 2, 100)).isTrue();
        assertThat(Election.atLeastAsComplete(2, 100, 3, 1)).isFalse();
    }

    @Test
    void inOneEpochTheLongerLogIsMoreCompleteAndEqualLogsAreBothComplete() {
        assertThat(Election.atLeastAsComplete(2, 5, 2, 4)).isTrue();
        assertThat(Election.atLeastAsComplete(2, 4, 2, 5)).isFalse();
        assertThat(Election.atLeastAsComplete(2, 4, 2, 4)).isTrue();
        assertThat(Election.atLeastAsComplete(0, 0, 0, 0)).isTrue();
    }

    @Test
    void aMajorityIsMoreThanHalf() {
        assertThat(List.of(1, 2, 3, 4, 5, 6, 7).stream().map(Election::quorum)).containsExactly(1, 2, 2, 3, 3, 4, 4);
        assertThatThrownBy(() -> Election.quorum(0)).hasMessage("replicas: 0 (expected: >= 1)");
    }

    @Test
    void theMajorityPositionIsWhatTheQuorumThFurthestReplicaHas() {
        assertThat(Election.majorityPosition(List.of(10L, 7L, 3L), 2)).isEqualTo(7);
        assertThat(Election.majorityPosition(List.of(10L, 7L, 3L, 9L, 1L), 3)).isEqualTo(7);
        assertThat(Election.majorityPosition(List.of(10L), 2)).as("too few replicas known").isZero();
    }

    @Test
    void majorityContactIsTheQuorumThLatestAnswer() {
        assertThat(Election.majorityContact(List.of(100L, 50L, 70L), 2)).isEqualTo(70);
        assertThat(Election.majorityContact(List.of(100L), 2)).isEqualTo(Long.MIN_VALUE);
    }

    @Test
    void failStopCandidatesRankByLogThenPriorityThenTheLowerNodeId() {
        assertThat(Election.compare(2, 1, 0, "b", 1, 9, 9, "a")).isPositive();
        assertThat(Election.compare(2, 5, 0, "b", 2, 5, 1, "a")).isNegative();
        assertThat(Election.compare(2, 5, 1, "a", 2, 5, 1, "b")).isPositive();
    }
}
