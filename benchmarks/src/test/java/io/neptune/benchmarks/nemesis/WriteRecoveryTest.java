package io.neptune.benchmarks.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.Op;
import io.neptune.benchmarks.nemesis.history.OpFunction;
import io.neptune.benchmarks.nemesis.history.OpType;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class WriteRecoveryTest {
    private static final long MS = 1_000_000L;

    /** Appends as {process, partition, invoked ms, completed ms, 1 if OK}. */
    private static History history(long[]... appends) {
        record Line(long ms, int process, OpType type, int partition, long element) {}
        List<Line> lines = new ArrayList<>();
        long element = 1;
        for (long[] a : appends) {
            lines.add(new Line(a[2], (int) a[0], OpType.INVOKE, (int) a[1], element));
            lines.add(new Line(a[3], (int) a[0], a[4] == 1 ? OpType.OK : OpType.FAIL, (int) a[1], element++));
        }
        lines.sort(Comparator.comparingLong(Line::ms).thenComparing(l -> l.type() == OpType.INVOKE));
        List<Op> ops = new ArrayList<>();
        for (Line l : lines) {
            ops.add(new Op(ops.size(), l.process(), l.type(), OpFunction.APPEND, "k" + l.partition(), l.partition(),
                    l.element(), null, l.ms() * MS, null, null, null,
                    l.type() == OpType.FAIL ? "NoMajorityException" : null));
        }
        return History.of(ops);
    }

    private static Nemesis.Applied fault(String kind, long atMs) {
        return new Nemesis.Applied(kind, List.of("n1"), atMs * MS, (atMs + 5000) * MS, "");
    }

    @Test
    void theSlowestPartitionThatWasTakingWritesDecides() {
        History history = history(
                new long[] {1, 0, 900, 950, 1}, new long[] {2, 1, 800, 990, 1},   // both partitions active
                new long[] {1, 0, 990, 1200, 1},    // invoked before the fault: does not count
                new long[] {1, 0, 1200, 1300, 1},   // partition 0 again 300 ms after the fault
                new long[] {2, 1, 1000, 1800, 0},   // failed
                new long[] {2, 1, 1800, 2400, 1});  // partition 1 again 1,400 ms after it

        List<WriteRecovery.Gap> gaps = WriteRecovery.of(history, List.of(fault("kill", 1000)));

        assertThat(gaps).singleElement().satisfies(g -> {
            assertThat(g.kind()).isEqualTo("kill");
            assertThat(g.nanos()).isEqualTo(OptionalLong.of(1400 * MS));
        });
    }

    @Test
    void aPartitionNobodyWritesToDoesNotCountAndOneThatNeverResumesMakesItUnknown() {
        History history = history(
                new long[] {1, 0, 100, 200, 1},      // partition 0: idle long before the fault
                new long[] {2, 1, 9000, 9500, 1},    // partition 1 active before the fault at 10 s
                new long[] {2, 1, 10_100, 12_000, 0});

        List<WriteRecovery.Gap> gaps = WriteRecovery.of(history, List.of(fault("partition-halves", 10_000)));

        assertThat(gaps.get(0).nanos()).isEmpty();
        assertThat(gaps.get(0)).hasToString("partition-halves at 10.0 s: not resumed");
    }

    @Test
    void aPartitionFirstWrittenLongAfterTheFaultCountsFromThatWrite() {
        History history = history(
                new long[] {1, 0, 900, 950, 1},
                new long[] {1, 0, 1000, 1100, 1},     // partition 0 flows at once
                new long[] {2, 1, 8000, 8020, 1});    // partition 1: nobody wrote to it for 7 s

        assertThat(WriteRecovery.of(history, List.of(fault("isolate-primary", 1000))).get(0).nanos())
                .isEqualTo(OptionalLong.of(100 * MS));
    }

    @Test
    void theTableGroupsFaultsByKind() {
        List<WriteRecovery.Gap> gaps = List.of(
                new WriteRecovery.Gap("kill", 0, OptionalLong.of(1000 * MS)),
                new WriteRecovery.Gap("kill-several", 0, OptionalLong.of(3000 * MS)),
                new WriteRecovery.Gap("kill-recovering", 0, OptionalLong.of(2000 * MS)),
                new WriteRecovery.Gap("pause-primary", 0, OptionalLong.empty()));

        assertThat(WriteRecovery.table(gaps)).containsExactly(
                "| fault | faults | median | max | not resumed before the run ended |",
                "| --- | --- | --- | --- | --- |",
                "| kill | 1 | 1.00 s | 1.00 s | 0 |",
                "| kill-recovering | 1 | 2.00 s | 2.00 s | 0 |",
                "| kill-several | 1 | 3.00 s | 3.00 s | 0 |",
                "| pause-primary | 1 | - | - | 1 |");
    }
}
