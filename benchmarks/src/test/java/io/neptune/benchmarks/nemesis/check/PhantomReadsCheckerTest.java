package io.neptune.benchmarks.nemesis.check;

import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.finalRead;
import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.finals;
import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.check.Verdict.Validity;
import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.OpType;
import org.junit.jupiter.api.Test;

/** A read may only hold elements whose append was invoked, did not fail, and began before the read ended. */
class PhantomReadsCheckerTest {
    @Test
    void passesWhenReadsHoldOnlyAppendsThatMayHaveHappenedIncludingUnknownAndConcurrentOnes() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .append(2, "x", 2, 0, OpType.INFO, 10, null)    // unknown, then seen
                .append(4, "x", 3, 25, null, 0, null)           // still in flight, seen by a concurrent read
                .readOk(3, "x", 20, 30, 1L, 2L, 3L)
                .build();

        Verdict verdict = PhantomReadsChecker.check(history, finals(finalRead("n1", "x", 1L, 2L, 3L)));

        assertThat(verdict.validity()).isEqualTo(Validity.VALID);
    }

    @Test
    void flagsAnElementNeverAppendedToItsKey() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .appendOk(1, "y", 2, 10, 20)
                .readOk(3, "x", 30, 40, 1L, 2L)  // 2 went to y, not x
                .build();

        Verdict verdict = PhantomReadsChecker.check(history, FinalState.empty());

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().extracting(Anomaly::description)
                .isEqualTo("2 in read #4 of x [1, 2] was never appended to x");
    }

    @Test
    void flagsAReadOfAnAppendThatFailed() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .append(2, "x", 2, 0, OpType.FAIL, 10, null)
                .readOk(3, "x", 20, 30, 1L)
                .build();

        Verdict verdict = PhantomReadsChecker.check(history, finals(finalRead("n2", "x", 1L, 2L)));

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().satisfies(a -> {
            assertThat(a.description()).isEqualTo("2 in the final read of x at n2 [1, 2] was appended by an append"
                    + " that failed");
            assertThat(a.ops()).extracting(op -> op.type()).containsExactly(OpType.INVOKE, OpType.FAIL);
        });
    }

    @Test
    void flagsAReadOfAnAppendInvokedOnlyAfterTheReadCompleted() {
        History history = new HistoryBuilder()
                .readOk(3, "x", 0, 10, 1L)
                .appendOk(1, "x", 1, 20, 30)
                .build();

        Verdict verdict = PhantomReadsChecker.check(history, FinalState.empty());

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().extracting(Anomaly::description)
                .isEqualTo("1 in read #0 of x [1] was appended by an append invoked after the read completed");
    }
}
