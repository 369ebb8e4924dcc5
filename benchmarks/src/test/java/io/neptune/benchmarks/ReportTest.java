package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report files a reader opens in a spreadsheet or a CSV tool. */
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
}
