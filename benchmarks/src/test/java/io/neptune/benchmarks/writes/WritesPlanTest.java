package io.neptune.benchmarks.writes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.benchmarks.ClosedLoop;
import io.neptune.benchmarks.writes.WritesExperiment.Measurement;
import io.neptune.benchmarks.writes.WritesExperiment.WriteSystem;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/** The writes bench's arguments, its write generator and its ratio table; nothing timed. */
class WritesPlanTest {
    @Test
    void quickIsASubsetOfFullWithTheIssuesShape() {
        WritesPlan full = WritesPlan.parse(List.of());
        WritesPlan quick = WritesPlan.parse(List.of("--quick"));
        assertThat(full.quick()).isFalse();
        assertThat(full.writers()).containsExactly(1, 4, 16, 64, 256);
        assertThat(full.partitions()).containsExactly(1, 64);
        assertThat(full.payloads()).containsExactly(100, 4096);
        assertThat(quick.quick()).isTrue();
        assertThat(full.writers()).containsAll(quick.writers()).contains(64);
        assertThat(quick.partitions()).isEqualTo(full.partitions());
        assertThat(quick.payloads()).isEqualTo(full.payloads());
        assertThat(quick.measure()).isLessThan(full.measure());
    }

    @Test
    void quickWarmsEverySystemUpAsLongAsFull() {
        WritesPlan full = WritesPlan.parse(List.of());
        WritesPlan quick = WritesPlan.parse(List.of("--quick"));
        assertThat(quick.firstWarmUp()).isEqualTo(full.firstWarmUp());
        assertThat(quick.warmUp()).isEqualTo(full.warmUp());
    }

    @Test
    void rejectsUnknownArgumentsAndRecognizesHelp() {
        assertThatThrownBy(() -> WritesPlan.parse(List.of("--quik")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("argument: '--quik' (expected: --quick, --systems LIST, --tls, --reverse, --help or nothing)");
        assertThatThrownBy(() -> WritesPlan.parse(List.of("--systems"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> WritesPlan.parse(List.of("--systems", "etcd")))
                .hasMessage("system: 'etcd' (expected: neptune, unreplicated, ratis, tls-openssl or tls-jdk)");
        assertThat(WritesPlan.wantsHelp(List.of("--quick", "--help"))).isTrue();
        assertThat(WritesPlan.wantsHelp(List.of("-h"))).isTrue();
        assertThat(WritesPlan.wantsHelp(List.of("--quick"))).isFalse();
    }

    @Test
    void aSubsetOfSystemsIsAnIncompleteRun() {
        WritesPlan plan = WritesPlan.parse(List.of("--systems", "ratis,Neptune", "--quick"));
        assertThat(plan.quick()).isTrue();
        assertThat(plan.systems()).as("declaration order, whatever the option's").containsExactly(
                WriteSystem.NEPTUNE, WriteSystem.RATIS);
        assertThat(WritesPlan.parse(List.of()).systems()).containsExactly(WriteSystem.NEPTUNE, WriteSystem.RATIS,
                WriteSystem.NEPTUNE_UNREPLICATED);
        assertThat(plan.complete()).isFalse();
        assertThat(WritesPlan.parse(List.of()).complete()).isTrue();
        assertThat(WritesPlan.parse(List.of()).tlsComparison()).isFalse();
    }

    @Test
    void tlsComparesPlaintextNeptuneWithEachProviderAndIsNotTheDefaultReport() {
        WritesPlan plan = WritesPlan.parse(List.of("--quick", "--tls"));
        assertThat(plan.systems()).containsExactly(WriteSystem.NEPTUNE, WriteSystem.NEPTUNE_TLS_OPENSSL,
                WriteSystem.NEPTUNE_TLS_JDK);
        assertThat(plan.tlsComparison()).isTrue();
        assertThat(plan.complete()).isFalse();
        assertThat(plan.partitions()).isEqualTo(WritesPlan.quickPlan().partitions());
        assertThat(WritesPlan.parse(List.of("--systems", "tls-jdk,neptune,tls-openssl")).tlsComparison()).isTrue();
        assertThat(plan.order()).isEqualTo(plan.systems());
        WritesPlan reversed = WritesPlan.parse(List.of("--tls", "--reverse"));
        assertThat(reversed.order()).containsExactly(WriteSystem.NEPTUNE_TLS_JDK, WriteSystem.NEPTUNE_TLS_OPENSSL,
                WriteSystem.NEPTUNE);
        assertThat(reversed.tlsComparison()).isTrue();
    }

    @Test
    void tlsTableGivesEachProvidersRatioToPlaintextAtTheSameShape() {
        List<Measurement> m = List.of(measured(WriteSystem.NEPTUNE, 2000), measured(WriteSystem.NEPTUNE_TLS_OPENSSL,
                1800), measured(WriteSystem.NEPTUNE_TLS_JDK, 1000));
        assertThat(TlsRatios.table(m)).contains("| 64 | 4 KB | 64 | 2000 | 1800 | 0.90 | 1000 | 0.50 |");
    }

    @Test
    void writesGoRoundRobinOverPartitionsAndKeys() {
        RecordingTarget target = new RecordingTarget();
        Supplier<CompletableFuture<?>> writes = WritesExperiment.writes(target, 3, WritesExperiment.value(100));
        for (int i = 0; i < 4; i++) {
            assertThat(writes.get()).isDone(); // the write the target answered
        }
        assertThat(target.calls).containsExactly("0/key-0", "1/key-0", "2/key-0", "0/key-1");
        assertThat(target.value).hasSize(100);
    }

    @Test
    void ratioTableComparesNeptuneWithRatisAndUnreplicatedAtTheSameShape() {
        List<Measurement> m = List.of(measured(WriteSystem.NEPTUNE, 2000), measured(WriteSystem.RATIS, 1000),
                measured(WriteSystem.NEPTUNE_UNREPLICATED, 4000));
        assertThat(WritesExperiment.ratios(m, 64)).contains("| 64 | 4 KB | 2000 | 1000 | 2.00 | 4000 | 0.50 |");
    }

    private static Measurement measured(WriteSystem system, double throughput) {
        return new Measurement(system, 64, 4096, new ClosedLoop.Result(64, 1, 0, throughput, 1, 2, 1, ""), 100,
                "1.0");
    }

    /** Records each put as {@code partition/key}. */
    private static final class RecordingTarget implements WriteTarget {
        final List<String> calls = new ArrayList<>();
        String value = "";

        @Override
        public CompletableFuture<?> put(int partition, String key, String value) {
            calls.add(partition + "/" + key);
            this.value = value;
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public String durability() {
            return "nothing";
        }

        @Override
        public void close() {}
    }
}
