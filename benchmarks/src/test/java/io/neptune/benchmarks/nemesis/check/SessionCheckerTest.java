package io.neptune.benchmarks.nemesis.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.check.Verdict.Validity;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.OpType;
import org.junit.jupiter.api.Test;

/** Level 3: a session never reads back in time, never sees a lower version, and reads its own writes. */
class SessionCheckerTest {
    @Test
    void passesSessionsThatMoveForwardEvenWhenOtherSessionsAreBehind() {
        History history = new HistoryBuilder()
                .partition("y", 1)
                .append(1, "x", 1, 0, OpType.OK, 10, 5L)
                .readOkAt(1, "x", 20, 30, 5L, 1L)               // reads its own write
                .append(1, "x", 2, 40, OpType.INFO, 50, null)   // unknown: need not be seen
                .readOkAt(1, "x", 60, 70, 5L, 1L)
                .readOkAt(1, "y", 80, 90, 2L)                   // another partition: its own versions
                .readOkAt(2, "x", 100, 110, 3L)                 // another session, behind: allowed
                .readOkAt(2, "x", 120, 130, 6L, 1L, 2L)
                .readOkAt(1, "x", 140, 150, 6L, 1L, 2L)
                .build();

        Verdict verdict = SessionChecker.check(history);

        assertThat(verdict.validity()).isEqualTo(Validity.VALID);
        assertThat(verdict.measures()).containsEntry("sessions", 2L).containsEntry("readsChecked", 6L);
    }

    @Test
    void flagsASessionGoingBackInTime() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .appendOk(1, "x", 2, 10, 20)
                .readOk(2, "x", 30, 40, 1L, 2L)
                .readOk(2, "x", 50, 60, 1L)
                .build();

        Verdict verdict = SessionChecker.check(history);

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().satisfies(a -> {
            assertThat(a.description()).isEqualTo("monotonic reads: read #6 of x [1] does not extend the session's"
                    + " earlier read #4 of x [1, 2]");
            assertThat(a.ops()).extracting(op -> op.index()).containsExactly(4L, 5L, 6L, 7L);
        });
    }

    @Test
    void flagsAReadAtALowerVersionThanTheSessionSawOnAnotherKeyOfThePartition() {
        History history = new HistoryBuilder()
                .append(1, "x", 1, 0, OpType.OK, 10, 8L)
                .readOkAt(1, "y", 20, 30, 7L)
                .build();

        Verdict verdict = SessionChecker.check(history);

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().extracting(Anomaly::description).isEqualTo(
                "monotonic versions: read #2 of y [] was served at version 7 of partition 0 after the session saw"
                        + " version 8");
    }

    @Test
    void flagsASessionNotSeeingItsOwnWriteOncePerRead() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .appendOk(2, "x", 2, 0, 10)
                .readOk(1, "x", 20, 30, 2L)
                .readOk(1, "x", 40, 50, 2L)
                .build();

        Verdict verdict = SessionChecker.check(history);

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).extracting(Anomaly::description).containsExactly(
                "read-your-writes: read #4 of x [2] misses [1], appended by the same session before the read",
                "read-your-writes: read #6 of x [2] misses [1], appended by the same session before the read");
        assertThat(verdict.measures()).containsEntry("ownWritesMissed", 2L);
    }

    @Test
    void inANamedSessionUsedByTwoProcessesOnlyOperationsCompletedBeforeTheReadCount() {
        History history = new HistoryBuilder()
                .session(1, "s")
                .session(2, "s")
                .appendOk(1, "x", 1, 0, 10)
                .readOk(2, "x", 5, 20)            // concurrent with the append: may miss it
                .readOk(2, "x", 30, 40)           // invoked after it completed: must not
                .build();

        Verdict verdict = SessionChecker.check(history);

        assertThat(verdict.measures()).containsEntry("sessions", 1L);
        assertThat(verdict.anomalies()).extracting(Anomaly::description).containsExactly(
                "read-your-writes: read #4 of x [] misses [1], appended by the same session before the read");
    }
}
