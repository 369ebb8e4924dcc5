package io.neptune.benchmarks.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When the bench calls a healed cluster settled, and what it writes for each replica. */
class FinalStateTest {
    @Test
    void agreeingReplicasAreSettled() {
        assertThat(FinalState.unsettled(answers(p -> List.of()), 3, true)).isNull();
    }

    @Test
    void aDifferentDigestAMissingReplicaOrARecoveringOneIsNot() {
        assertThat(FinalState.unsettled(answers(p -> p == 2 ? List.of("digest") : List.of()), 3, true))
                .startsWith("partition 2: versions/digests");
        List<Map<String, Object>> missing = answers(p -> List.of());
        missing.remove(0);
        assertThat(FinalState.unsettled(missing, 3, true)).startsWith("partition 0: replicas 2");
        assertThat(FinalState.unsettled(answers(p -> p == 5 ? List.of("recovering") : List.of()), 3, true))
                .startsWith("partition 5: roles");
        assertThat(FinalState.unsettled(answers(p -> p == 1 ? List.of("error") : List.of()), 3, true))
                .startsWith("partition 1: replicas");
    }

    @Test
    void afterPlacementChangesEachPartitionIsExpectedOnTheNodesThatHostItNow() {
        List<Map<String, Object>> moved = answers(p -> List.of());
        moved.remove(1);   // partition 0 now on two nodes (its first answer is the primary)
        assertThat(FinalState.unsettled(moved, p -> p == 0 ? 2 : 3, true)).isNull();
        assertThat(FinalState.unsettled(moved, p -> 3, true)).startsWith("partition 0: replicas 2 (expected: 3");
        assertThat(FinalState.unsettled(answers(p -> List.of()), p -> p == 4 ? 4 : 3, true))
                .startsWith("partition 4: replicas 3 (expected: 4");
    }

    @Test
    void levelOneReplicasSettleOnEqualDigestsWithoutAPrimaryOrEqualVersions() {
        List<Map<String, Object>> levelOne = answers(p -> List.of());
        for (Map<String, Object> answer : levelOne) {
            answer.put("role", "SECONDARY");   // level 1 has no primary
            answer.put("version", answer.get("node").equals("node-2") ? 12 : 10);   // each replica's own log length
        }
        assertThat(FinalState.unsettled(levelOne, 3, false)).isNull();
        assertThat(FinalState.unsettled(levelOne, 3, true)).as("with ordered writes").startsWith("partition 0: roles");
        levelOne.get(4).put("digest", "9:aa");   // its applied LSN stopped below a repeat at its log's end
        assertThat(FinalState.unsettled(levelOne, 3, false)).as("equal rows at level 1").isNull();
        assertThat(FinalState.unsettled(levelOne, 3, true)).startsWith("partition 0: roles");
        levelOne.get(5).put("digest", "10:bb");
        assertThat(FinalState.unsettled(levelOne, 3, false)).startsWith("partition 1: versions/digests");
    }

    @Test
    void replicaEntriesHaveTheFinalStateFieldsAndSkipReplicasThatDidNotAnswer() {
        List<Map<String, Object>> answers = answers(p -> p == 0 ? List.of("error") : List.of());
        List<Map<String, Object>> entries = FinalState.replicaEntries(answers);
        assertThat(entries).hasSize(ListAppendService.PARTITIONS * 3 - 1);
        assertThat(entries.get(0).keySet()).containsExactly("node", "service", "partition", "version", "digest");
    }

    /** Three agreeing replicas per partition, with the flaws {@code flaws} names for a partition. */
    private static List<Map<String, Object>> answers(java.util.function.IntFunction<List<String>> flaws) {
        List<Map<String, Object>> answers = new ArrayList<>();
        for (int p = 0; p < ListAppendService.PARTITIONS; p++) {
            for (int n = 1; n <= 3; n++) {
                boolean last = n == 3;
                Map<String, Object> answer = new LinkedHashMap<>();
                answer.put("node", "node-" + n);
                answer.put("service", "nemesis-list-l2");
                answer.put("partition", p);
                answer.put("role", n == 1 ? "PRIMARY" : last && flaws.apply(p).contains("recovering")
                        ? "RECOVERING" : "SECONDARY");
                answer.put("epoch", 1);
                answer.put("logEnd", 10);
                answer.put("version", 10);
                answer.put("digest", last && flaws.apply(p).contains("digest") ? "10:bb" : "10:aa");
                answer.put("error", last && flaws.apply(p).contains("error") ? "timed out" : "");
                answers.add(answer);
            }
        }
        return answers;
    }
}
