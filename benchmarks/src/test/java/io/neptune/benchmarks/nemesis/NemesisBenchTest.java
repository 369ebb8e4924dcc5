package io.neptune.benchmarks.nemesis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.server.LogRetentionConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bench's command line: what each option sets, and a clear error for a bad value. */
class NemesisBenchTest {
    @Test
    void logRetentionSetsTheNodesRetentionWithAQuarterOfItAsTheCheckpointInterval() {
        NemesisBench.Options options = NemesisBench.parse(List.of("--quick", "--level", "1", "--log-retention", "200"));

        assertThat(options.retention()).isEqualTo(new LogRetentionConfig(200, 50));
        assertThat(NemesisBench.settings(options, 7).retention()).isEqualTo(new LogRetentionConfig(200, 50));
        assertThat(NemesisBench.parse(List.of("--quick")).retention()).as("default: the nodes' own").isNull();
    }

    @Test
    void aRetentionTooSmallToCheckpointIsRefused() {
        assertThatThrownBy(() -> NemesisBench.parse(List.of("--quick", "--log-retention", "3")))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("--log-retention: 3 (expected: >= 4 records)");
    }

    @Test
    void placementChangesAreOptInAndRefusedOutsideMajorityMode() {
        assertThat(NemesisBench.parse(List.of("--quick")).faults()).isEqualTo(FaultSchedule.Kind.defaults());
        NemesisBench.Options placed = NemesisBench.parse(List.of("--quick", "--nodes", "5", "--faults",
                "kill,move-replica,move-primary"));
        assertThat(placed.faults()).containsExactlyInAnyOrder(FaultSchedule.Kind.KILL, FaultSchedule.Kind.MOVE_REPLICA,
                FaultSchedule.Kind.MOVE_PRIMARY);
        assertThatThrownBy(() -> NemesisBench.parse(List.of("--quick", "--mode", "fail-stop", "--faults",
                "kill,move-replica"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--faults move-replica").hasMessageContaining("--mode majority");
        assertThat(NemesisBench.usage()).contains("move-replica", "move-primary", "partition-halves");
    }
}
