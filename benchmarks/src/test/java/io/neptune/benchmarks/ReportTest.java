package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The report files a reader opens in a spreadsheet or a CSV tool, and which run's report the
 * repository keeps.
 */
class ReportTest {
    @TempDir
    Path root;

    @Test
    void csvQuotesCellsThatHoldCommasOrQuotes() throws Exception {
        new Report("quoting", "Quoting", "system", "calls/s")
                .row("gRPC-java, direct executor", 43413)
                .row("say \"hi\"", 1)
                .row("raw Netty TCP", 128262)
                .write(root, "./neptune bench test");

        assertThat(Files.readAllLines(root.resolve("docs/benchmarks/quoting.csv"))).containsExactly(
                "system,calls/s",
                "\"gRPC-java, direct executor\",43413",
                "\"say \"\"hi\"\"\",1",
                "raw Netty TCP,128262");
        assertThat(Files.readString(root.resolve("docs/benchmarks/quoting.md")))
                .contains("| gRPC-java, direct executor | 43413 |")
                .contains("./neptune bench test");
    }

    @Test
    void theJsonSummaryHoldsTheRunAndTheCellsAsTheCsvHasThem() throws Exception {
        new Report("summary", "Summary", "system", "calls/s")
                .row("gRPC-java, direct executor", 43413.0)
                .row("raw Netty TCP", 1.234567)
                .write(root, "./neptune bench test --quick");

        JsonNode summary = new ObjectMapper().readTree(root.resolve("docs/benchmarks/summary.json").toFile());
        assertThat(summary.get("command").asText()).isEqualTo("./neptune bench test --quick");
        String markdownDate = Files.readAllLines(root.resolve("docs/benchmarks/summary.md")).stream()
                .filter(line -> line.startsWith("- Date: ")).findFirst().orElseThrow().substring("- Date: ".length());
        assertThat(summary.get("date").asText()).isEqualTo(markdownDate);
        assertThat(summary.get("columns").toString()).isEqualTo("[\"system\",\"calls/s\"]");
        assertThat(summary.get("rows").toString())
                .isEqualTo("[[\"gRPC-java, direct executor\",\"43413\"],[\"raw Netty TCP\",\"1.23457\"]]");
    }

    /**
     * The data files keep six significant digits and the table three: a ratio the report step computes
     * from the data matches the one the run computed (Fig. 4.11's row said +15.9% from 153 / 132 where
     * the run's own note said +15.5%).
     */
    @Test
    void theCsvAndTheJsonKeepSixSignificantDigitsAndTheTableThree() throws Exception {
        new Report("precise", "Precise", "scheme", "yield per s", "loss %")
                .row("neptune", 152.5718, 0.0123456789)
                .row("server-partitioning", 132.0, 41.0)
                .write(root, "./neptune bench test");

        assertThat(Files.readAllLines(root.resolve("docs/benchmarks/precise.csv"))).containsExactly(
                "scheme,yield per s,loss %", "neptune,152.572,0.0123457", "server-partitioning,132,41");
        assertThat(new ObjectMapper().readTree(root.resolve("docs/benchmarks/precise.json").toFile()).get("rows")
                .toString()).isEqualTo("[[\"neptune\",\"152.572\",\"0.0123457\"],[\"server-partitioning\",\"132\",\"41\"]]");
        assertThat(Files.readString(root.resolve("docs/benchmarks/precise.md"))).contains("| neptune | 153 | 0.0123 |")
                .contains("| server-partitioning | 132 | 41.0 |");
    }

    @Test
    void aQuickRunDoesNotReplaceAFullRunsReportButItsOwn() throws Exception {
        new Report("kept", "Kept", "system", "calls/s").row("full", 1).write(root, "./neptune bench test");
        new Report("kept", "Kept", "system", "calls/s").row("quick", 2).write(root, "./neptune bench test --quick");

        assertThat(Files.readString(root.resolve("docs/benchmarks/kept.csv"))).contains("full").doesNotContain("quick");
        assertThat(Files.readString(root.resolve("benchmarks/target/quick-reports/kept.csv"))).contains("quick");

        new Report("quickly", "Quickly", "system", "calls/s").row("first", 1).write(root, "./neptune bench t --quick");
        new Report("quickly", "Quickly", "system", "calls/s").row("second", 2).write(root, "./neptune bench t --quick");
        new Report("kept", "Kept", "system", "calls/s").row("full again", 3).write(root, "./neptune bench test");
        assertThat(Files.readString(root.resolve("docs/benchmarks/quickly.csv"))).contains("second");
        assertThat(Files.readString(root.resolve("docs/benchmarks/kept.csv"))).contains("full again");
    }
}
