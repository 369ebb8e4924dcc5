package io.neptune.benchmarks.nemesis.check;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.nemesis.check.Verdict.Anomaly;
import io.neptune.benchmarks.nemesis.check.Verdict.Validity;
import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.OpType;
import io.neptune.core.FailoverMode;
import org.junit.jupiter.api.Test;

/** Level 3: a read reflects every append acknowledged more than x + slack before it was invoked. */
class StalenessCheckerTest {
    /** x = 100 ms, slack 50 ms: reads may miss appends acknowledged up to 150 ms before them. */
    private static final Guarantees BOUND = Guarantees.level3(FailoverMode.MAJORITY, 100).withSlackMillis(50);

    private final HistoryBuilder withinBound = new HistoryBuilder()
            .appendOk(1, "x", 1, 0, 10)
            .readOk(2, "x", 100, 110)                      // misses 1, acknowledged 90 ms before
            .readOk(2, "x", 200, 900, 1L)
            .appendOk(1, "x", 2, 300, 310)
            .append(1, "x", 3, 320, OpType.INFO, 330, null) // unknown: never required
            .readOk(3, "x", 400, 2_000, 1L);                // misses 2 (90 ms), answered late

    @Test
    void passesReadsWithinTheBoundAndReportsTheWorstStaleness() {
        Verdict verdict = StalenessChecker.check(withinBound.build(), BOUND);

        assertThat(verdict.validity()).isEqualTo(Validity.VALID);
        assertThat(verdict.measures()).containsEntry("worstStalenessMillis", 90L).containsEntry("boundMillis", 150L)
                .containsEntry("readsChecked", 3L);
    }

    @Test
    void flagsAReadMissingAnAppendAcknowledgedLongerThanTheBoundBeforeIt() {
        History history = withinBound.readOk(4, "x", 1_000, 1_010, 1L).build();

        Verdict verdict = StalenessChecker.check(history, BOUND);

        assertThat(verdict.validity()).isEqualTo(Validity.INVALID);
        assertThat(verdict.anomalies()).singleElement().satisfies(a -> {
            assertThat(a.description()).isEqualTo(
                    "read #11 of x misses 2, acknowledged 690 ms before the read was invoked (bound: 150 ms)");
            assertThat(a.ops()).hasSize(4);
        });
        assertThat(verdict.measures()).containsEntry("worstStalenessMillis", 690L);
        assertThat(StalenessChecker.check(history, BOUND.withSlackMillis(600)).validity()).isEqualTo(Validity.VALID);
    }

    @Test
    void measuresFromTheEarliestMissedAppend() {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .appendOk(1, "x", 2, 20, 30)
                .readOk(2, "x", 500, 510, 1L)
                .build();

        Verdict verdict = StalenessChecker.check(history, BOUND);

        assertThat(verdict.anomalies()).extracting(Anomaly::description).containsExactly(
                "read #4 of x misses 2, acknowledged 470 ms before the read was invoked (bound: 150 ms)");
    }
}
