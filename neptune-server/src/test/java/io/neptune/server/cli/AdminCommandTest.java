package io.neptune.server.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;

/** {@code neptune admin} against a cluster nobody runs: a clear error, not an empty table. */
class AdminCommandTest {
    @TempDir
    Path discovery;

    @Test
    void anAdminCommandThatHearsNoNodeSaysSoAndWhichClusterItLookedFor() {
        String cluster = "nobody-" + ProcessHandle.current().pid();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new NeptuneCli()).setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(err, true));

        int status = NeptuneCli.execute(commandLine, "admin", "nodes", "--cluster", cluster, "--discovery-directory",
                discovery.toString(), "--wait", "1s");

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("heard no node of cluster '" + cluster + "' within 1s", "--wait");
    }

    @ParameterizedTest
    @ValueSource(strings = {"move-primary", "add-replica", "remove-replica"})
    void theReplicaCommandsTakeServicePartitionAndNodeAndSayWhenNobodyAnswers(String command) {
        String cluster = "nobody-" + ProcessHandle.current().pid();
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new NeptuneCli()).setErr(new PrintWriter(err, true));

        int status = NeptuneCli.execute(commandLine, "admin", command, "cache", "3", "node-9", "--cluster", cluster,
                "--discovery-directory", discovery.toString(), "--wait", "1s");

        assertThat(status).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).contains("heard no node of cluster '" + cluster + "'");
    }

    @ParameterizedTest
    @ValueSource(strings = {"all", "0,3,5", "7"})
    void removeReplicaTakesAllOrAListOfPartitionsAndJoinsTheClusterOnceForThem(String partitions) {
        String cluster = "nobody-" + ProcessHandle.current().pid();
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new NeptuneCli()).setErr(new PrintWriter(err, true));

        int status = NeptuneCli.execute(commandLine, "admin", "remove-replica", "cache", partitions, "node-9",
                "--cluster", cluster, "--discovery-directory", discovery.toString(), "--wait", "1s");

        assertThat(status).as(err.toString()).isEqualTo(2);
        assertThat(err.toString()).contains("heard no node of cluster '" + cluster + "'").doesNotContain("PARTITION");
    }

    @Test
    void aReplicaCommandWithoutItsNodeIsAUsageError() {
        StringWriter err = new StringWriter();
        CommandLine commandLine = new CommandLine(new NeptuneCli()).setErr(new PrintWriter(err, true));

        int status = NeptuneCli.execute(commandLine, "admin", "add-replica", "cache", "3", "--cluster", "c");

        assertThat(status).isEqualTo(2);
        assertThat(err.toString()).contains("NODE");
    }
}
