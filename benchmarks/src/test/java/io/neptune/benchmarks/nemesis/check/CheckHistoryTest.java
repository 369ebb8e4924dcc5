package io.neptune.benchmarks.nemesis.check;

import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.finalRead;
import static io.neptune.benchmarks.nemesis.check.HistoryBuilder.finals;
import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.RunFiles;
import io.neptune.core.FailoverMode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A saved run directory can be checked again from the command line. */
class CheckHistoryTest {
    @TempDir
    Path run;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @BeforeEach
    void saveARunWhoseSessionWentBackInTime() throws IOException {
        History history = new HistoryBuilder()
                .appendOk(1, "x", 1, 0, 10)
                .readOk(2, "x", 20, 30, 1L)
                .readOk(2, "x", 40, 50)
                .build();
        RunFiles.writeHistory(run.resolve(RunFiles.HISTORY), history);
        RunFiles.writeFinalState(run.resolve(RunFiles.FINAL_STATE), finals(finalRead("n1", "x", 1L)));
        RunFiles.writeGuarantees(run.resolve(RunFiles.GUARANTEES), Guarantees.level3(FailoverMode.MAJORITY, 1_000));
    }

    @Test
    void reportsTheViolationOfTheSavedGuaranteesAndExitsWithOne() throws IOException {
        Path report = run.resolve("check.md");

        int status = run(run.toString(), "--max-anomalies", "5", "--out", report.toString());

        assertThat(status).isEqualTo(1);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("| sessions | INVALID | 1 |")
                .contains("against level 3, majority, staleness bound 1000 ms (+ 1600 ms slack)");
        assertThat(Files.readString(report)).isEqualTo(out.toString(StandardCharsets.UTF_8));
    }

    @Test
    void flagsOverrideTheSavedGuarantees() {
        assertThat(run(run.toString(), "--level", "2")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("## Checkers: VALID")
                .contains("against level 2, majority.").doesNotContain("| sessions |");
    }

    @Test
    void exitsWithThreeWhenTheFinalStateIsMissing() throws IOException {
        Files.delete(run.resolve(RunFiles.FINAL_STATE));

        assertThat(run(run.toString(), "--level", "2", "--mode", "fail-stop")).isEqualTo(3);
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("| lost-writes | UNKNOWN |");
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("checking without a final state");
    }

    @Test
    void exitsWithTwoOnBadUsage() throws IOException {
        assertThat(run()).isEqualTo(2);
        assertThat(run(run.toString(), "--level", "4")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("--level: 4 (expected: 1, 2 or 3)")
                .contains("usage: CheckHistory <run dir>");
        Files.delete(run.resolve(RunFiles.GUARANTEES));
        assertThat(run(run.toString())).isEqualTo(2);
        assertThat(run(run.resolve("absent").toString(), "--level", "1")).isEqualTo(2);
    }

    private int run(String... args) {
        return CheckHistory.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }
}
