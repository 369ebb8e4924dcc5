package io.neptune.benchmarks.nemesis.check;

import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.finalRead;
import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.replica;
import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.nemesis.check.Verdict.Validity;
import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.FailoverMode;
import java.util.List;
import org.junit.jupiter.api.Test;

/** checkAll runs what the guarantees promise and prints a report a reader can act on. */
class CheckersTest {
    private final History history = new HistoryBuilder()
            .appendOk(1, "x", 1, 0, 10)
            .appendOk(1, "x", 2, 10, 20)
            .appendOk(1, "x", 3, 20, 30)
            .appendOk(1, "x", 4, 30, 40)
            .readOk(2, "x", 50, 60, 1L, 2L, 3L, 4L)
            .readOk(2, "x", 70, 80, 1L)                 // a session going back: stale at level 2, a violation at 3
            .build();
    private final FinalState healed = new FinalState(List.of(replica("n1", 0, 4, "d"), replica("n2", 0, 4, "d")),
            List.of(finalRead("n1", "x", 1L, 2L, 3L, 4L), finalRead("n2", "x", 1L, 2L, 3L, 4L)));

    @Test
    void runsTheCheckersEachLevelPromises() {
        assertThat(Checkers.checkAll(history, healed, Guarantees.of(ConsistencyLevel.LEVEL_1, FailoverMode.MAJORITY))
                .verdicts()).extracting(Verdict::checker).containsExactly("lost-writes", "duplicates",
                "phantom-reads", "divergence");
        CheckReport level2 = Checkers.checkAll(history, healed,
                Guarantees.of(ConsistencyLevel.LEVEL_2, FailoverMode.MAJORITY));
        assertThat(level2.verdicts()).extracting(Verdict::checker).endsWith("list-append");
        assertThat(level2.validity()).isEqualTo(Validity.VALID);

        CheckReport level3 = Checkers.checkAll(history, healed, Guarantees.level3(FailoverMode.MAJORITY, 1_000));
        assertThat(level3.verdicts()).extracting(Verdict::checker).endsWith("list-append", "sessions", "staleness");
        assertThat(level3.validity()).isEqualTo(Validity.INVALID);
        assertThat(level3.verdict("sessions").count()).isEqualTo(1);
    }

    @Test
    void printsAMarkdownSectionWithAtMostNAnomaliesPerChecker() {
        FinalState lossy = new FinalState(List.of(replica("n1", 0, 4, "d"), replica("n2", 0, 1, "e")),
                List.of(finalRead("n1", "x", 1L, 2L, 3L, 4L), finalRead("n2", "x", 1L)));

        CheckReport report = Checkers.checkAll(history, lossy,
                Guarantees.of(ConsistencyLevel.LEVEL_2, FailoverMode.FAIL_STOP));
        String markdown = report.markdown(2);

        assertThat(report.validity()).isEqualTo(Validity.INVALID);
        assertThat(markdown)
                .startsWith("## Checkers: INVALID\n\nChecked History[6 operations: 6 ok, 0 fail, 0 info, by 2"
                        + " processes] against level 2, fail-stop.\n")
                .contains("| checker | verdict | anomalies | summary |")
                .contains("| lost-writes | INVALID | 3 | 4 acknowledged appends, 3 missing from final reads"
                        + " (per replica: n2 3);")
                .contains("| duplicates | VALID | 0 |")
                .contains("### lost-writes: 3 anomalies\n\n- acknowledged append of 2 to x is missing at n2 (present at"
                        + " n1)\n  - `#2 p1 invoke append x 2 at 0.010 s`\n")
                .contains("- … and 1 more\n")
                .contains("### divergence: 2 anomalies");
    }
}
