package io.neptune.benchmarks.nemesis.check;

import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.finalRead;
import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.finals;
import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.check.Verdict.Validity;
import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.OpType;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.FailoverMode;
import org.junit.jupiter.api.Test;

/** With ordered writes every read of a key is a prefix of its final list, and writes keep real-time order. */
class ListAppendCheckerTest {
    private static final Guarantees LEVEL_2 = Guarantees.of(ConsistencyLevel.LEVEL_2, FailoverMode.MAJORITY);

    /** Reads of all lengths, some stale (allowed at level 2), two appends concurrent, one unknown. */
    private final HistoryBuilder clean = new HistoryBuilder()
            .appendOk(1, "x", 1, 0, 10)
            .appendOk(2, "x", 2, 20, 40)
            .appendOk(3, "x", 3, 25, 45)                     // concurrent with 2: either order is fine
            .append(4, "x", 4, 50, OpType.INFO, 60, null)   // unknown, happened
            .append(5, "x", 5, 50, OpType.INFO, 60, null)   // unknown, did not happen
            .readOk(6, "x", 41, 42, 1L, 3L)
            .readOk(7, "x", 70, 80, 1L, 3L, 2L, 4L)
            .readOk(6, "x", 90, 95, 1L)                      // stale, but a prefix
            .readOk(7, "x", 96, 99);

    @Test
    void passesACleanHistory() {
        Verdict verdict = ListAppendChecker.check(clean.build(), finals(finalRead("n1", "x", 1L, 3L, 2L, 4L),
                finalRead("n2", "x", 1L, 3L, 2L, 4L)), LEVEL_2);

        assertThat(verdict.validity()).isEqualTo(Validity.VALID);
        assertThat(verdict.measures()).containsEntry("keys", 1L).containsEntry("incomparableReads", 0L);
    }

    @Test
    void flagsTwoReadsThatAreNotPrefixComparable() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .appendOk(2, "x", 2, 0, 10)
                .readOk(3, "x", 20, 30, 1L, 2L)
                .readOk(4, "x", 20, 30, 2L, 1L)
                .build();

        Verdict verdict = ListAppendChecker.check(history, FinalState.empty(), LEVEL_2);

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().satisfies(a -> {
            assertThat(a.description()).isEqualTo("read #4 of x [1, 2] is not a prefix of read #5 of x [2, 1]: they"
                    + " differ at position 0 (1 vs 2)");
            assertThat(a.ops()).hasSize(4);
        });
    }

    @Test
    void flagsAReadOfAnElementTheHealedClusterNoLongerHolds() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .append(2, "x", 2, 20, OpType.INFO, 30, null)
                .readOk(3, "x", 25, 35, 1L, 2L)                // a dirty read: 2 then vanished
                .build();

        Verdict verdict = ListAppendChecker.check(history, finals(finalRead("n1", "x", 1L)), LEVEL_2);

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().extracting(Anomaly::description).isEqualTo(
                "read #3 of x [1, 2] is not a prefix of the final read of x at n1 [1]: it holds 1 more elements,"
                        + " from 2");
    }

    @Test
    void flagsAnElementBeforeOneWhoseAppendCompletedBeforeItsOwnWasInvoked() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .appendOk(1, "x", 2, 20, 30)
                .build();

        Verdict verdict = ListAppendChecker.check(history, finals(finalRead("n1", "x", 2L, 1L)), LEVEL_2);

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().extracting(Anomaly::description).isEqualTo(
                "in the final read of x at n1 [2, 1], 2 precedes 1 although the append of 1 completed before the"
                        + " append of 2 was invoked");
    }

    @Test
    void flagsAReadShorterThanOneThatCompletedBeforeItOnlyWhenReadsArePromisedLinearizable() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .appendOk(1, "x", 2, 10, 20)
                .readOk(2, "x", 30, 40, 1L, 2L)
                .readOk(3, "x", 50, 60, 1L)                   // stale: legal at level 2
                .build();

        assertThat(ListAppendChecker.check(history, FinalState.empty(), LEVEL_2).validity()).isEqualTo(Validity.VALID);
        Verdict verdict = ListAppendChecker.check(history, FinalState.empty(), LEVEL_2.withLinearizableReads(true));
        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().extracting(Anomaly::description)
                .isEqualTo("read #6 of x [1] was invoked after read #4 of x [1, 2] completed, yet is shorter");
    }

    @Test
    void passesTheCleanHistoryWithLinearizableReadsToo() {
        History linear = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .readOk(2, "x", 5, 15, 1L)
                .readOk(3, "x", 6, 16)                         // concurrent with the append: may miss it
                .readOk(3, "x", 20, 30, 1L)
                .build();

        assertThat(ListAppendChecker.check(linear, FinalState.empty(), LEVEL_2.withLinearizableReads(true))
                .validity()).isEqualTo(Validity.VALID);
    }
}
