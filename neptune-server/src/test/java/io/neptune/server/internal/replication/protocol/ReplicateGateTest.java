package io.neptune.server.internal.replication.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.NodeId;
import io.neptune.server.internal.replication.protocol.ReplicateGate.Adopt;
import io.neptune.server.internal.replication.protocol.ReplicateGate.Refuse;
import io.neptune.server.internal.replication.protocol.ReplicateGate.Take;
import org.junit.jupiter.api.Test;

class ReplicateGateTest {
    private static final NodeId P = NodeId.of("p");
    private static final NodeId Q = NodeId.of("q");

    @Test
    void aMessageOfAnOlderEpochIsRefusedAsStaleWhateverTheReplicaDoes() {
        assertThat(ReplicateGate.check(3, P, 4, false, null)).isEqualTo(new Refuse("stale epoch 3 < 4", false));
        assertThat(ReplicateGate.check(3, P, 4, true, P)).isEqualTo(new Refuse("stale epoch 3 < 4", false));
    }

    @Test
    void aMessageOfANewerEpochIsTakenAfterAdoptingItEvenByAPrimaryOrAFollowerOfAnother() {
        assertThat(ReplicateGate.check(5, P, 4, true, null)).isEqualTo(new Adopt(5));
        assertThat(ReplicateGate.check(5, P, 4, false, Q)).isEqualTo(new Adopt(5));
    }

    @Test
    void withinOneEpochAPrimaryTakesNoRecordsAndAFollowerTakesOnlyThoseOfThePrimaryItFollows() {
        assertThat(ReplicateGate.check(4, Q, 4, true, P)).isEqualTo(new Refuse("primary at epoch 4", true));
        assertThat(ReplicateGate.check(4, Q, 4, false, P)).isEqualTo(new Refuse("following p at epoch 4", true));
        assertThat(ReplicateGate.check(4, P, 4, false, P)).isEqualTo(new Take());
        assertThat(ReplicateGate.check(4, Q, 4, false, null)).as("the first primary heard of at this epoch")
                .isEqualTo(new Take());
    }
}
