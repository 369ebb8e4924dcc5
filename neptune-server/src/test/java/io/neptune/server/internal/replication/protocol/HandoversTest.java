package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import org.junit.jupiter.api.Test;

class HandoversTest {
    private static final NodeId B = NodeId.of("b");

    @Test
    void onlyAPrimaryHandsOver() {
        assertThat(Handovers.refusal(false, null, false, true)).isEqualTo("not the primary");
        assertThat(Handovers.refusal(false, null, false, false)).isEqualTo("not the primary");
    }

    @Test
    void oneOperatorsHandoverAtATime() {
        assertThat(Handovers.refusal(true, B, false, true)).isEqualTo("a handover to b is under way");
        assertThat(Handovers.refusal(true, B, true, false)).isEqualTo("a handover to b is under way");
    }

    @Test
    void aPrimaryPinnedByAnOperatorHandsOverToAnOperatorOnlyNotByPriority() {
        assertThat(Handovers.refusal(true, null, true, false)).isEqualTo("primary by an operator's move-primary");
        assertThat(Handovers.refusal(true, null, true, true)).isNull();
    }

    @Test
    void anUnpinnedPrimaryWithNoHandoverUnderWayMayGoAhead() {
        assertThat(Handovers.refusal(true, null, false, false)).isNull();
        assertThat(Handovers.refusal(true, null, false, true)).isNull();
    }
}
