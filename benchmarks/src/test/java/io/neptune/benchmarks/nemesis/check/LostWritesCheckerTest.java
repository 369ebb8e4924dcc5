package io.neptune.benchmarks.nemesis.check;

import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.finalRead;
import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.finals;
import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.nemesis.check.Verdict.Validity;
import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.OpType;
import org.junit.jupiter.api.Test;

/** Every acknowledged append must be in the final list of its key at every replica read. */
class LostWritesCheckerTest {
    private final History history = new HistoryBuilder()
            .appendOk(1, "x", 1, 0, 10)
            .appendOk(2, "x", 2, 5, 15)
            .append(3, "x", 3, 20, OpType.INFO, 30, null)   // outcome unknown: it happened
            .append(4, "x", 4, 20, OpType.INFO, 30, null)   // outcome unknown: it did not
            .append(5, "x", 5, 20, OpType.FAIL, 30, null)   // definitely not
            .append(6, "x", 6, 40, null, 0, null)           // never completed
            .appendOk(1, "y", 1, 40, 50)
            .build();

    @Test
    void passesWhenEveryAcknowledgedAppendIsAtEveryReplicaWhateverHappenedToTheUnknownOnes() {
        FinalState state = finals(finalRead("n1", "x", 1L, 2L, 3L), finalRead("n2", "x", 1L, 2L, 3L),
                finalRead("n1", "y", 1L), finalRead("n2", "y", 1L));

        Verdict verdict = LostWritesChecker.check(history, state);

        assertThat(verdict.validity()).isEqualTo(Validity.VALID);
        assertThat(verdict.measures()).containsEntry("acknowledged", 3L).containsEntry("lost", 0L)
                .containsEntry("infoApplied", 1L).containsEntry("infoNotApplied", 2L);
    }

    @Test
    void flagsAnAcknowledgedAppendMissingAtOneReplicaAndNamesTheReplica() {
        FinalState state = finals(finalRead("n1", "x", 1L, 2L), finalRead("n2", "x", 1L),
                finalRead("n3", "x", 1L), finalRead("n1", "y", 1L));

        Verdict verdict = LostWritesChecker.check(history, state);

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.count()).isEqualTo(1);
        assertThat(verdict.anomalies().get(0).description())
                .isEqualTo("acknowledged append of 2 to x is missing at n2, n3 (present at n1)");
        assertThat(verdict.anomalies().get(0).ops()).extracting(op -> op.type()).containsExactly(OpType.INVOKE,
                OpType.OK);
        assertThat(verdict.summary()).contains("(per replica: n2 1, n3 1)");
    }

    @Test
    void flagsAnAcknowledgedAppendLostEverywhere() {
        Verdict verdict = LostWritesChecker.check(history, finals(finalRead("n1", "x", 2L), finalRead("n1", "y", 1L)));

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().extracting(Verdict.Anomaly::description)
                .isEqualTo("acknowledged append of 1 to x is missing at n1 (every replica read)");
    }

    @Test
    void isUnknownWhenAnAcknowledgedAppendsKeyWasNeverReadAtTheEnd() {
        Verdict verdict = LostWritesChecker.check(history, finals(finalRead("n1", "x", 1L, 2L)));

        assertThat(verdict.validity()).isEqualTo(Validity.UNKNOWN);
        assertThat(verdict.measures()).containsEntry("unchecked", 1L);
        assertThat(LostWritesChecker.check(history, FinalState.empty()).validity()).isEqualTo(Validity.UNKNOWN);
    }
}
