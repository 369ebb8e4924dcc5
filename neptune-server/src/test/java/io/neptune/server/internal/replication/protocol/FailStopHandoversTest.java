package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import org.junit.jupiter.api.Test;

class FailStopHandoversTest {
    private static final NodeId B = NodeId.of("b");

    @Test
    void onlyAPrimaryHandsOver() {
        assertThat(FailStopHandovers.refusal(false, null, false, true)).isEqualTo("not the primary");
        assertThat(FailStopHandovers.refusal(false, null, false, false)).isEqualTo("not the primary");
    }

    @Test
    void oneOperatorsHandoverAtATime() {
        assertThat(FailStopHandovers.refusal(true, B, false, true)).isEqualTo("a handover to b is under way");
        assertThat(FailStopHandovers.refusal(true, B, true, false)).isEqualTo("a handover to b is under way");
    }

    @Test
    void aPrimaryPinnedByAnOperatorHandsOverToAnOperatorOnlyNotByPriority() {
        assertThat(FailStopHandovers.refusal(true, null, true, false)).isEqualTo("primary by an operator's move-primary");
        assertThat(FailStopHandovers.refusal(true, null, true, true)).isNull();
    }

    @Test
    void anUnpinnedPrimaryWithNoHandoverUnderWayMayGoAhead() {
        assertThat(FailStopHandovers.refusal(true, null, false, false)).isNull();
        assertThat(FailStopHandovers.refusal(true, null, false, true)).isNull();
    }
}
