package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.server.internal.replication.protocol.PrimaryWatch.Announced;
import io.neptune.server.internal.replication.protocol.PrimaryWatch.Own;
import org.junit.jupiter.api.Test;

class PrimaryWatchTest {
    private static final long SILENCE = 1_000_000_000L;
    private static final Own SECONDARY_AT_3 = new Own(true, 3, 10, 10);

    @Test
    void aPrimaryAnnouncedAtANewerEpochIsAwaitedForTheSilenceBoundThenLeftForAJoin() {
        PrimaryWatch watch = new PrimaryWatch(SILENCE, 0);
        Announced newer = new Announced("p", 4, 10, 10);
        assertThat(watch.check(100, newer, SECONDARY_AT_3)).isNull();
        assertThat(watch.awaitingNewerPrimary()).isTrue();
        assertThat(watch.check(100 + SILENCE, newer, SECONDARY_AT_3)).as("not longer than the bound yet").isNull();
        assertThat(watch.check(101 + SILENCE, newer, SECONDARY_AT_3)).isEqualTo("p leads epoch 4 without this replica");
        assertThat(watch.awaitingNewerPrimary()).isFalse();
    }

    @Test
    void theNewerEpochArrivingEndsTheWait() {
        PrimaryWatch watch = new PrimaryWatch(SILENCE, 0);
        watch.check(100, new Announced("p", 4, 10, 10), SECONDARY_AT_3);
        assertThat(watch.check(200, new Announced("p", 4, 10, 10), new Own(true, 4, 10, 10))).isNull();
        assertThat(watch.awaitingNewerPrimary()).isFalse();
        assertThat(watch.check(300 + SILENCE, new Announced("p", 4, 10, 10), new Own(true, 4, 10, 10)))
                .as("caught up: silence alone says nothing").isNull();
    }

    @Test
    void aPrimaryAheadThatSentNothingForTheSilenceBoundExcludedThisSecondary() {
        PrimaryWatch watch = new PrimaryWatch(SILENCE, 0);
        Announced ahead = new Announced("p", 3, 12, 11);
        assertThat(watch.check(SILENCE, ahead, SECONDARY_AT_3)).isNull();
        watch.heard(SILENCE);
        assertThat(watch.check(2 * SILENCE, ahead, SECONDARY_AT_3)).as("heard since").isNull();
        assertThat(watch.check(2 * SILENCE + 1, ahead, SECONDARY_AT_3))
                .isEqualTo("p is at 12 (applied 11) but sent nothing for 1000 ms");
    }

    @Test
    void aReplicaThatIsNotASecondaryIsNeverToldToLeave() {
        PrimaryWatch watch = new PrimaryWatch(SILENCE, 0);
        Own recovering = new Own(false, 3, 5, 5);
        assertThat(watch.check(10 * SILENCE, new Announced("p", 4, 12, 11), recovering)).isNull();
        assertThat(watch.awaitingNewerPrimary()).isFalse();
    }
}
