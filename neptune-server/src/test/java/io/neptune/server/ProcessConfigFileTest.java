package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.ConfigException;
import io.neptune.server.process.ProcessConfig;
import io.neptune.server.process.ProcessMode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code services} entries with {@code process:}: every key, defaults, and errors that name the key. */
class ProcessConfigFileTest {
    @TempDir
    Path dir;

    private NodeConfigFile load(String yaml) throws IOException {
        Path file = dir.resolve("node.yaml");
        Files.writeString(file, yaml);
        return NodeConfigFile.load(file);
    }

    private ConfigException error(String process) {
        return org.junit.jupiter.api.Assertions.assertThrows(ConfigException.class,
                () -> load("services:\n  - process:\n" + process.indent(6)));
    }

    @Test
    void everyKeyIsRead() throws IOException {
        NodeConfigFile file = load("""
                node: n-1
                services:
                  - process:
                      name: blast
                      partitions: 4
                      command: [blastn, -db, "db/part-{partition}", "{partition-args}", -outfmt, "6"]
                      working-directory: /srv/blast
                      environment: {BLASTDB: "/srv/blast/{partition}"}
                      partition-args: {0-1: [-task, megablast], 3: [-task, blastn]}
                      mode: per-request
                      timeout: 90s
                      max-processes: 3
                      max-output: 4MiB
                      access: read
                    partitions: 0-3
                    replicas: 2
                """);
        assertThat(file.services()).isEmpty();
        NodeConfigFile.HostedProcess hosted = file.processes().get(0);
        ProcessConfig process = hosted.process();
        assertThat(process.name()).isEqualTo("blast");
        assertThat(process.partitions()).isEqualTo(4);
        assertThat(process.command()).containsExactly("blastn", "-db", "db/part-{partition}", "{partition-args}",
                "-outfmt", "6");
        assertThat(process.workingDirectory()).isEqualTo("/srv/blast");
        assertThat(process.environment()).containsExactly(Map.entry("BLASTDB", "/srv/blast/{partition}"));
        assertThat(process.partitionArguments(1)).containsExactly("-task", "megablast");
        assertThat(process.partitionArguments(2)).isEmpty();
        assertThat(process.mode()).isEqualTo(ProcessMode.PER_REQUEST);
        assertThat(process.timeout()).isEqualTo(Duration.ofSeconds(90));
        assertThat(process.maxProcesses()).isEqualTo(3);
        assertThat(process.maxOutputBytes()).isEqualTo(4 << 20);
        assertThat(hosted.hosting().workers()).as("workers default to max-processes").isEqualTo(3);
        assertThat(hosted.hosting().replicas()).isEqualTo(2);
        assertThat(hosted.hosting().partitions()).containsExactly(0, 1, 2, 3);
    }

    @Test
    void defaults() throws IOException {
        ProcessConfig process = load("""
                services:
                  - process: {name: upper, command: [tr, a-z, A-Z]}
                """).processes().get(0).process();
        assertThat(process.partitions()).isEqualTo(ProcessConfig.DEFAULT_PARTITIONS);
        assertThat(process.mode()).isEqualTo(ProcessMode.PER_REQUEST);
        assertThat(process.timeout()).isEqualTo(ProcessConfig.DEFAULT_TIMEOUT);
        assertThat(process.maxProcesses()).isEqualTo(ProcessConfig.DEFAULT_MAX_PROCESSES);
        assertThat(process.workingDirectory()).isEmpty();
        assertThat(process.environment()).isEmpty();
    }

    @Test
    void missingNameOrCommand() {
        assertThat(error("command: [cat]").getMessage()).isEqualTo(dir.resolve("node.yaml") + ": services[0].process.name: missing (expected:"
                + " the service's name)");
        assertThat(error("name: x").key()).isEqualTo("services[0].process.command");
        assertThat(error("name: x\ncommand: []")).hasMessageContaining("command: [] (expected: the program");
    }

    @Test
    void aCommandLineInOneStringIsRefusedWithTheListItShouldBe() {
        assertThat(error("name: x\ncommand: blastn -db d")).hasMessageContaining("[blastn, -db, d]");
    }

    @Test
    void unknownPlaceholdersAreRefusedWithTheEscape() {
        assertThat(error("name: x\ncommand: [awk, '{print}']"))
                .hasMessageContaining("services[0].process: command[1]: unknown placeholder {print}")
                .hasMessageContaining("write {{print}} for the literal text {print}");
        assertThat(error("name: x\ncommand: [cat]\nworking-directory: '/d/{partitoin}'"))
                .hasMessageContaining("working-directory: unknown placeholder {partitoin}");
        assertThat(error("name: x\ncommand: [cat]\nenvironment: {A: '{args}'}"))
                .hasMessageContaining("environment.A: '{args}' (expected: {args} only in a command");
    }

    @Test
    void elementPlaceholdersMustStandAloneAndArgsOnlyPerRequest() {
        assertThat(error("name: x\ncommand: [cat, '--x={args}']"))
                .hasMessageContaining("(expected: {args} as a whole element of the command, alone)");
        assertThat(error("name: x\nmode: warm\ncommand: [cat, '{args}']"))
                .hasMessageContaining("{args} only in a command of mode per-request");
        assertThat(error("name: x\ncommand: [cat]\npartition-args: {0: [-v]}"))
                .hasMessageContaining("partition-args: given, but the command has no {partition-args} element");
        assertThat(error("name: x\ncommand: [cat, '{partition-args}']\npartition-args: {4: [-v]}"))
                .hasMessageContaining("partition-args: partition 4 (expected: 0..0)");
    }

    @Test
    void badNumbersAndDurationsNameTheKey() {
        assertThat(error("name: x\ncommand: [cat]\ntimeout: -1s").key()).isEqualTo("services[0].process.timeout");
        assertThat(error("name: x\ncommand: [cat]\ntimeout: 0s")).hasMessageContaining("timeout: PT0S (expected: > 0)");
        assertThat(error("name: x\ncommand: [cat]\nmax-processes: 0"))
                .hasMessageContaining("max-processes: 0 (expected: >= 1)");
        assertThat(error("name: x\ncommand: [cat]\nmode: forever").getMessage())
                .isEqualTo(dir.resolve("node.yaml") + ": services[0].process.mode: 'forever' (expected: one of per-request, warm)");
        assertThat(error("name: x\ncommand: [cat]\npartitions: 0")).hasMessageContaining("partitions: 0");
        assertThat(error("name: 'a b'\ncommand: [cat]")).hasMessageContaining("name: 'a b'");
        assertThat(error("name: x\ncommand: [cat]\nretries: 3").key()).isEqualTo("services[0].process.retries");
    }

    @Test
    void writesAreRefusedWithTheReason() {
        assertThat(error("name: x\ncommand: [cat]\naccess: write"))
                .hasMessageContaining("services[0].process.access: 'write' (expected: read;")
                .hasMessageContaining("replicas re-execute every write");
    }

    @Test
    void anEntryIsAClassOrAProcessNotBoth() {
        assertThatThrownBy(() -> load("""
                services:
                  - class: io.neptune.server.EchoTestService
                    process: {name: x, command: [cat]}
                """)).isInstanceOf(ConfigException.class).hasMessage(dir.resolve("node.yaml") + ": services[0].class: given with 'process'"
                + " (expected: either a class or a process)");
    }

    @Test
    void aProcessServiceIsHostedUnderItsConfiguredName() throws IOException {
        NodeConfigFile file = load("""
                services:
                  - process: {name: upper, partitions: 3, command: [tr, a-z, A-Z]}
                  - process: {name: upper, command: [cat]}
                """);
        assertThat(file.processes()).hasSize(2);
        assertThatThrownBy(file::toBuilder).hasMessageContaining("service 'upper' is already hosted");
        assertThat(List.of(file.processes().get(0).process().partitions())).containsExactly(3);
    }
}
