package io.neptune.benchmarks.nemesis.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A history pairs each invocation with its process's next completion, and rejects impossible ones. */
class HistoryTest {
    private final Op append = Op.invokeAppend(0, 1, "x", 0, 7, 10, null);
    private final Op read = Op.invokeRead(1, 2, "x", 0, 20, null);

    @Test
    void pairsInvocationsWithCompletionsAndCountsOpenOnesAsUnknown() {
        History history = History.of(List.of(append, read, read.ok(2, 30, List.of(7L), "n1", 4L)));

        assertThat(history.operations()).hasSize(2);
        assertThat(history.operations().get(0).outcome()).isEqualTo(OpType.INFO);
        assertThat(history.operations().get(0).completeTime()).isEqualTo(Long.MAX_VALUE);
        assertThat(history.operations().get(1).list()).containsExactly(7L);
        assertThat(history.operations().get(1).version()).isEqualTo(4L);
        assertThat(history).hasToString("History[2 operations: 1 ok, 0 fail, 1 info, by 2 processes]");
    }

    @Test
    void rejectsTwoOperationsInFlightInOneProcess() {
        Op second = Op.invokeRead(1, 1, "x", 0, 20, null);

        assertThatThrownBy(() -> History.of(List.of(append, second))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("(expected: one operation per process at a time)");
        HistoryRecorder recorder = new HistoryRecorder(null, () -> 0);
        recorder.invokeRead(1, "x", 0, null);
        assertThatThrownBy(() -> recorder.invokeRead(1, "y", 0, null)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void rejectsACompletionWithoutInvocationAnElementAppendedTwiceAndIndicesOutOfOrder() {
        assertThatThrownBy(() -> History.of(List.of(read.ok(0, 30, List.of(), null, null))))
                .hasMessageContaining("(expected: an invocation of p2 in flight)");
        assertThatThrownBy(() -> History.of(List.of(append, append.ok(1, 12, null, null, null),
                Op.invokeAppend(2, 1, "x", 0, 7, 20, null))))
                .hasMessageContaining("(expected: elements unique per key)");
        assertThatThrownBy(() -> History.of(List.of(read, append)))
                .hasMessageContaining("index: 0 after 1 (expected: strictly increasing)");
    }

    @Test
    void opsCarryAValueExactlyWhereTheFormatSays() {
        assertThatThrownBy(() -> new Op(0, 1, OpType.OK, OpFunction.READ, "x", 0, null, null, 5, null, null, null,
                null)).hasMessageContaining("(expected: present exactly for a read's ok completion)");
        assertThatThrownBy(() -> new Op(0, 1, OpType.INVOKE, OpFunction.APPEND, "x", 0, null, null, 5, null, null,
                null, null)).hasMessageContaining("(expected: present exactly for appends)");
        assertThat(Op.abbreviate(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L)))
                .isEqualTo("[1, 2, 3, 4 … 7, 8, 9, 10] (10 elements)");
    }
}
