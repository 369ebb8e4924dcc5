package io.neptune.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docs/PERFORMANCE.md's generated Summary against the committed reports, and the rewrite itself. */
class PerformanceReportTest {
    /** Surefire runs in the module's directory; the repository is its parent. */
    private static final Path REPOSITORY = Path.of("").toAbsolutePath().getParent();

    @TempDir
    Path root;

    @Test
    void theCommittedSummaryTableIsWhatTheCommittedReportsGive() throws Exception {
        PerformanceReport report = PerformanceReport.of(REPOSITORY);
        String committed = GeneratedSections.content(Files.readString(report.performance()), PerformanceReport.SUMMARY);

        assertThat(committed)
                .as("docs/PERFORMANCE.md's Summary table differs from the committed reports: a hand edit or a stale"
                        + " table; run ./neptune bench report and commit the result")
                .isEqualTo(report.renderSummary());
    }

    @Test
    void everyRowOfTheCommittedDataHasAVerdictAndEveryDisagreementAReason() {
        BenchData data = BenchData.in(REPOSITORY.resolve("docs/benchmarks"));

        for (Outcome outcome : SummaryTable.evaluate(SummaryTable.allRows(), data)) {
            if (outcome.verdict() == Verdict.DISAGREES) {
                assertThat(outcome.row().whyNot()).as(outcome.row().claim().claim()).isNotBlank();
            }
            if (outcome.verdict() == Verdict.NOT_RUN) {
                assertThat(outcome.row().notRun()).as(outcome.row().claim().claim()).isNotBlank();
            }
        }
    }

    @Test
    void updateRewritesOnlyTheGeneratedSectionAndSaysWhatChanged() throws Exception {
        Files.createDirectories(root.resolve("docs/benchmarks"));
        String before = "# Performance\n\nkept above\n\n" + GeneratedSections.begin(PerformanceReport.SUMMARY) + "\n"
                + "| a stale table |\n" + GeneratedSections.END + "\n\nkept below\n";
        Files.writeString(root.resolve("docs/PERFORMANCE.md"), before);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PerformanceReport report = PerformanceReport.of(root);

        boolean changed = report.update(true, new PrintStream(printed, true, StandardCharsets.UTF_8));

        String after = Files.readString(root.resolve("docs/PERFORMANCE.md"));
        assertThat(changed).isTrue();
        assertThat(after).startsWith("# Performance\n\nkept above\n\n" + GeneratedSections.begin(
                PerformanceReport.SUMMARY) + "\n| figure |").endsWith(GeneratedSections.END + "\n\nkept below\n")
                .doesNotContain("a stale table");
        assertThat(printed.toString(StandardCharsets.UTF_8)).contains("- | a stale table |", "+ | Fig. 3.1 |");
        assertThat(report.update(false, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
                .as("a second run finds nothing to change").isFalse();
    }

    @Test
    void anArgumentItDoesNotKnowIsRefusedByName() {
        assertThat(PerformanceReport.checkOnly(new String[] {"--check"})).isTrue();
        assertThat(PerformanceReport.checkOnly(new String[0])).isFalse();
        assertThatThrownBy(() -> PerformanceReport.checkOnly(new String[] {"--chek"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--chek")
                .hasMessageContaining("--check");
    }
}
