package io.neptune.benchmarks.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Reading the CSVs the benches wrote, quoting included. */
class TableTest {
    @Test
    void quotedCellsKeepTheirCommasQuotesAndLineBreaks() {
        Table table = Table.parse("t", "system,calls/s\n\"gRPC-java, direct executor\",43413\n\"say \"\"hi\"\"\",1\r\n"
                + "\"two\nlines\",2", RunInfo.UNKNOWN, Optional.empty());

        assertThat(table.distinct("system")).containsExactly("gRPC-java, direct executor", "say \"hi\"", "two\nlines");
        assertThat(table.where("system", "say \"hi\"").number("calls/s")).isEqualTo(1.0);
    }

    @Test
    void surplusCellsJoinTheWidenedColumnAndOtherwiseFail() {
        String csv = "benchmark,case,score\nreplica choice,lookup, 16 nodes,9.24\n";

        Table widened = Table.parse("micro", csv, RunInfo.UNKNOWN, Optional.of("case"));

        assertThat(widened.only()).containsEntry("case", "lookup, 16 nodes").containsEntry("score", "9.24");
        assertThatThrownBy(() -> Table.parse("micro", csv, RunInfo.UNKNOWN, Optional.empty()))
                .hasMessage("micro.csv line 2: 4 cells (expected: 3)");
    }

    @Test
    void theRunComesFromTheReportsHeaderLines() {
        RunInfo run = RunInfo.fromMarkdown("# T\n\n- Date: 2026-11-25T17:09:29.6Z\n- Machine: 2 cores\n"
                + "- Command: `./neptune bench qos --quick --figure 4.12`\n");

        assertThat(run.day()).isEqualTo("2026-11-25");
        assertThat(run.mode()).isEqualTo("quick");
        assertThat(run.command()).isEqualTo("./neptune bench qos --quick --figure 4.12");
        assertThat(RunInfo.fromMarkdown("# no header\n")).isEqualTo(RunInfo.UNKNOWN);
    }
}
