package io.neptune.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.neptune.benchmarks.IdleExperiment.Measurement;
import io.neptune.benchmarks.IdleExperiment.Plan;
import io.neptune.core.FailoverMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The idle experiment's options, how it tells the nodes' threads apart, and the figures its report derives. */
class IdleExperimentTest {
    private static final List<String> NODES = List.of("idle-0", "idle-1", "idle-2", "idle-observer");

    @TempDir
    Path root;

    @Test
    void quickAndFullPlansDifferInCountsAndWindowAndOptionsOverrideThem() {
        Plan full = Plan.parse(List.of());
        Plan quick = Plan.parse(List.of("--quick"));
        Plan chosen = Plan.parse(List.of("--partitions", "1, 512", "--quick", "--mode", "fail-stop, majority",
                "--idle-seconds", "3"));

        assertThat(full.partitions()).containsExactly(5, 100, 500);
        assertThat(full.idle()).isEqualTo(Duration.ofSeconds(20));
        assertThat(full.modes()).containsExactly(FailoverMode.MAJORITY);
        assertThat(quick.partitions()).containsExactly(5, 100);
        assertThat(quick.idle()).isEqualTo(Duration.ofSeconds(10));
        assertThat(chosen.partitions()).containsExactly(1, 512);
        assertThat(chosen.modes()).containsExactly(FailoverMode.FAIL_STOP, FailoverMode.MAJORITY);
        assertThat(chosen.idle()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void rejectsUnknownOptionsMissingValuesAndCountsTheServiceDoesNotDeclare() {
        assertThatThrownBy(() -> Plan.parse(List.of("--nodes", "4"))).hasMessageContaining("--nodes");
        assertThatThrownBy(() -> Plan.parse(List.of("--partitions"))).hasMessageContaining("followed by a value");
        assertThatThrownBy(() -> Plan.parse(List.of("--partitions", "5,513"))).hasMessageContaining("1..512");
        assertThatThrownBy(() -> Plan.parse(List.of("--idle-seconds", "0"))).hasMessageContaining("positive");
        assertThatThrownBy(() -> Plan.parse(List.of("--mode", "raft"))).hasMessageContaining("raft");
    }

    @Test
    void attributesNeptuneAndJGroupsThreadsToTheNodeTheyAreNamedAfter() {
        NodeThreads threads = new NodeThreads(NODES);

        assertThat(threads.owner("neptune-idle-0-idle-3")).isEqualTo("idle-0");
        assertThat(threads.owner("neptune-idle-1-replication-timer")).isEqualTo("idle-1");
        assertThat(threads.owner("jgroups-5,bench-idle-639de8a7,idle-2 (flags=1)")).isEqualTo("idle-2");
        assertThat(threads.owner("Connection.Receiver [127.0.0.1:1 - 127.0.0.1:2]-6,bench-idle-639de8a7,idle-observer"))
                .isEqualTo("idle-observer");
        assertThat(threads.owner("neptune-idle-observer-deadlines-5-1")).isEqualTo("idle-observer");
        assertThat(threads.owner("C2 CompilerThread0")).isEqualTo(NodeThreads.OTHER);
        assertThat(threads.owner("neptune-log-writer-0")).isEqualTo(NodeThreads.OTHER);
    }

    @Test
    void theJvmShareIsWhatNoJavaThreadSpent() {
        NodeThreads threads = new NodeThreads(NODES);
        NodeThreads.Sample from = new NodeThreads.Sample(0, 0, Map.of(
                1L, new NodeThreads.ThreadCpu("idle-0", 100_000_000L),
                2L, new NodeThreads.ThreadCpu(NodeThreads.OTHER, 0)));
        NodeThreads.Sample to = new NodeThreads.Sample(2_000_000_000L, 300_000_000L, Map.of(
                1L, new NodeThreads.ThreadCpu("idle-0", 140_000_000L),
                3L, new NodeThreads.ThreadCpu("idle-1", 20_000_000L)));

        NodeThreads.Usage usage = threads.between(from, to);

        assertThat(usage.processMillisPerSecond()).isCloseTo(150, within(1e-9));
        assertThat(usage.of("idle-0")).isCloseTo(20, within(1e-9));
        assertThat(usage.of("idle-1")).isCloseTo(10, within(1e-9)); // started in between: counted from zero
        assertThat(usage.of("idle-2")).isZero();
        assertThat(usage.jvmMillisPerSecond()).isCloseTo(120, within(1e-9));
        assertThat(usage.threadsMillisPerSecond().keySet())
                .containsExactly("idle-0", "idle-1", "idle-2", "idle-observer", NodeThreads.OTHER);
    }

    @Test
    void reportDerivesPerNodeCpuAndHeapPerHostedAndPerAddedReplica() throws Exception {
        Measurement small = measurement(10, 30 * 1024 * 1024L);
        Measurement large = measurement(110, 60 * 1024 * 1024L);

        assertThat(small.cpuPerNodePercent()).isCloseTo(5, within(1e-9));
        assertThat(small.nodeThreadsPercent()).isCloseTo(2, within(1e-9));
        assertThat(small.restMillisPerSecond()).isCloseTo(150 - 3 * 20 - 10, within(1e-9));
        assertThat(small.kibPerHostedReplica()).isCloseTo(30 * 1024 / 30.0, within(1e-9));
        Measurement otherMode = measurement(110, 90 * 1024 * 1024L, FailoverMode.FAIL_STOP);
        assertThat(IdleReport.marginalKibPerReplica(List.of(large, otherMode, small)))
                .as("compared within a mode only").containsOnlyKeys(large).containsEntry(large, 30 * 1024 / 300.0);

        IdleReport.report(Plan.parse(List.of("--quick")), List.of(small, large), List.of("500 partitions: boom"),
                "abc1234", "context.").write(root, "./neptune bench idle --quick");

        List<String> csv = Files.readAllLines(root.resolve("docs/benchmarks/idle.csv"));
        assertThat(csv).hasSize(3);
        assertThat(csv.get(2)).startsWith("110,majority,");
        assertThat(Files.readString(root.resolve("docs/benchmarks/idle.md")))
                .contains("Git HEAD: abc1234").contains("Failed cases (not in the table): 500 partitions: boom");
    }

    private static Measurement measurement(int partitions, long heapDeltaBytes) {
        return measurement(partitions, heapDeltaBytes, FailoverMode.MAJORITY);
    }

    private static Measurement measurement(int partitions, long heapDeltaBytes, FailoverMode mode) {
        NodeThreads.Usage idle = new NodeThreads.Usage(150, Map.of("idle-0", 20.0, "idle-1", 20.0, "idle-2", 20.0,
                "idle-observer", 10.0, NodeThreads.OTHER, 1.0));
        return new Measurement(partitions, mode, 2.0, 1.0, 2.5, 3.0, idle, 0,
                Map.of("idle-0", 28, "idle-1", 28, "idle-2", 28, "idle-observer", 15, NodeThreads.OTHER, 1),
                heapDeltaBytes, "1.00");
    }
}
