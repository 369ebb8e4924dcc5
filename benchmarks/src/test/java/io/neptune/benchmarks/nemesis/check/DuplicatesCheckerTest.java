package io.neptune.benchmarks.nemesis.check;

import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.finalRead;
import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.finals;
import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.nemesis.check.Verdict.Validity;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.OpType;
import org.junit.jupiter.api.Test;

/** No element may appear twice in a read: that is a write applied twice. */
class DuplicatesCheckerTest {
    @Test
    void passesWhenEveryElementAppearsOnce() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .append(2, "x", 2, 0, OpType.INFO, 10, null)
                .readOk(3, "x", 20, 30, 1L, 2L)
                .readOk(3, "y", 40, 50)
                .build();

        Verdict verdict = DuplicatesChecker.check(history, finals(finalRead("n1", "x", 1L, 2L)));

        assertThat(verdict.validity()).isEqualTo(Validity.VALID);
        assertThat(verdict.measures()).containsEntry("reads", 3L);
    }

    @Test
    void flagsAnElementReadTwiceOncePerElementWithTheReadAndTheAppend() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .appendOk(1, "x", 2, 10, 20)
                .readOk(3, "x", 30, 40, 1L, 2L, 1L)
                .readOk(3, "x", 50, 60, 1L, 2L, 1L)
                .build();

        Verdict verdict = DuplicatesChecker.check(history, finals(finalRead("n1", "x", 1L, 2L, 1L)));

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.count()).isEqualTo(1);
        assertThat(verdict.anomalies().get(0).description()).isEqualTo("1 appears 2 times in read #4 of x [1, 2, 1]");
        assertThat(verdict.anomalies().get(0).ops()).extracting(op -> op.index()).containsExactly(4L, 5L, 0L, 1L);
        assertThat(verdict.measures()).containsEntry("readsWithDuplicates", 3L);
    }

    @Test
    void flagsADuplicateOnlyTheFinalStateShows() {
        History history = new HistoryBuilder().appendOk(1, "x", 7, 0, 10).build();

        Verdict verdict = DuplicatesChecker.check(history,
                finals(finalRead("n1", "x", 7L), finalRead("n2", "x", 7L, 7L)));

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().extracting(Verdict.Anomaly::description)
                .isEqualTo("7 appears 2 times in the final read of x at n2 [7, 7]");
    }
}
