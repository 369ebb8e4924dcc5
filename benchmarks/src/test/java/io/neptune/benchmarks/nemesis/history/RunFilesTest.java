package io.neptune.benchmarks.nemesis.history;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.benchmarks.nemesis.history.FinalState.FinalRead;
import io.neptune.benchmarks.nemesis.history.FinalState.ReplicaState;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.FailoverMode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The run files read back exactly what was written, in the documented format. */
class RunFilesTest {
    @TempDir
    Path dir;

    @Test
    void writesTheDocumentedJsonLines() throws IOException {
        AtomicLong clock = new AtomicLong();
        Path file = dir.resolve(RunFiles.HISTORY);
        try (HistoryRecorder recorder = new HistoryRecorder(HistoryWriter.open(file), () -> clock.addAndGet(100))) {
            Op append = recorder.invokeAppend(3, "k7", 2, 42, "s3");
            Op read = recorder.invokeRead(1, "k7", 2, null);
            recorder.ok(append, null, "node-2", 17L);
            recorder.ok(read, List.of(40L, 42L), "node-1", 17L);
            recorder.info(recorder.invokeAppend(3, "k7", 2, 43, "s3"), null, "timeout \"after\" 2 s");
        }

        assertThat(Files.readAllLines(file, StandardCharsets.UTF_8)).containsExactly(
                "{\"index\":0,\"process\":3,\"type\":\"invoke\",\"f\":\"append\",\"key\":\"k7\",\"partition\":2,"
                        + "\"value\":42,\"time\":100,\"session\":\"s3\"}",
                "{\"index\":1,\"process\":1,\"type\":\"invoke\",\"f\":\"read\",\"key\":\"k7\",\"partition\":2,"
                        + "\"time\":200}",
                "{\"index\":2,\"process\":3,\"type\":\"ok\",\"f\":\"append\",\"key\":\"k7\",\"partition\":2,"
                        + "\"value\":42,\"time\":300,\"node\":\"node-2\",\"version\":17,\"session\":\"s3\"}",
                "{\"index\":3,\"process\":1,\"type\":\"ok\",\"f\":\"read\",\"key\":\"k7\",\"partition\":2,"
                        + "\"value\":[40,42],\"time\":400,\"node\":\"node-1\",\"version\":17}",
                "{\"index\":4,\"process\":3,\"type\":\"invoke\",\"f\":\"append\",\"key\":\"k7\",\"partition\":2,"
                        + "\"value\":43,\"time\":500,\"session\":\"s3\"}",
                "{\"index\":5,\"process\":3,\"type\":\"info\",\"f\":\"append\",\"key\":\"k7\",\"partition\":2,"
                        + "\"value\":43,\"time\":600,\"session\":\"s3\",\"error\":\"timeout \\\"after\\\" 2 s\"}");
    }

    @Test
    void readsBackWhatManyThreadsRecordedInIndexAndTimeOrder() throws Exception {
        Path file = dir.resolve(RunFiles.HISTORY);
        int processes = 8;
        int opsEach = 250;
        HistoryRecorder recorder = HistoryRecorder.startingNow(HistoryWriter.open(file));
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int p = 0; p < processes; p++) {
                int process = p;
                done.add(pool.submit(() -> {
                    for (int i = 0; i < opsEach; i++) {
                        String key = "k" + (i % 5);
                        Op append = recorder.invokeAppend(process, key, i % 3, process * 1_000L + i, "s" + process);
                        if (i % 7 == 0) {
                            recorder.fail(append, "node-1", "refused");
                        } else {
                            recorder.ok(append, null, "node-" + (i % 3), (long) i);
                        }
                        Op read = recorder.invokeRead(process, key, i % 3, "s" + process);
                        recorder.ok(read, List.of((long) i, (long) process), "node-2", null);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
            recorder.close();
        }

        History read = RunFiles.readHistory(file);

        assertThat(read.ops()).hasSize(processes * opsEach * 4).isEqualTo(recorder.history().ops());
        assertThat(read.operations()).hasSize(processes * opsEach * 2);
        assertThat(read.ops()).extracting(Op::time).isSorted();
        assertThat(read.count(OpType.FAIL)).isEqualTo(processes * ((opsEach + 6) / 7));
    }

    @Test
    void ignoresATornLastLineButNotABadLineInTheMiddle() throws IOException {
        Path file = dir.resolve(RunFiles.HISTORY);
        String first = HistoryJson.toLine(Op.invokeRead(0, 1, "x", 0, 5, null));
        String second = HistoryJson.toLine(Op.invokeRead(0, 1, "x", 0, 5, null).ok(1, 9, List.of(), null, null));

        Files.writeString(file, first + "\n" + second + "\n" + second.substring(0, 20));
        assertThat(RunFiles.readHistory(file).operations()).singleElement().satisfies(o ->
                assertThat(o.outcome()).isEqualTo(OpType.OK));

        Files.writeString(file, first + "\n{\"index\":1,\"proc\n" + second + "\n");
        assertThatThrownBy(() -> RunFiles.readHistory(file)).isInstanceOf(IOException.class)
                .hasMessageContaining("line 2: line: not JSON");

        Files.writeString(file, first + "\n" + second.replace("\"ok\"", "\"done\"") + "\n" + second + "\n");
        assertThatThrownBy(() -> RunFiles.readHistory(file)).isInstanceOf(IOException.class)
                .hasMessageContaining("line 2: type: 'done' (expected: invoke, ok, fail or info)");
    }

    @Test
    void finalStateAndGuaranteesRoundTrip() throws IOException {
        FinalState state = new FinalState(List.of(new ReplicaState("node-1", "lists", 2, 17, "9f2c")),
                List.of(new FinalRead("node-1", "k7", 2, List.of(40L, 42L))));
        Guarantees guarantees = Guarantees.level3(FailoverMode.FAIL_STOP, 500).withLinearizableReads(true);

        RunFiles.writeFinalState(dir.resolve(RunFiles.FINAL_STATE), state);
        RunFiles.writeGuarantees(dir.resolve(RunFiles.GUARANTEES), guarantees);

        assertThat(RunFiles.readFinalState(dir.resolve(RunFiles.FINAL_STATE))).isEqualTo(state);
        assertThat(Files.readString(dir.resolve(RunFiles.FINAL_STATE))).contains("\"value\" : [ 40, 42 ]")
                .doesNotContain("values");
        assertThat(RunFiles.readGuarantees(dir.resolve(RunFiles.GUARANTEES))).isEqualTo(guarantees);
        assertThat(Files.readString(dir.resolve(RunFiles.GUARANTEES)).replaceAll("\\s", "")).isEqualTo(
                "{\"level\":\"LEVEL_3\",\"mode\":\"FAIL_STOP\",\"stalenessMillis\":500,\"slackMillis\":1600,"
                        + "\"linearizableReads\":true}");
    }

    @Test
    void readsLinesWithExplicitNullsAndFinalStatesWithExtraFields() throws IOException {
        Path history = dir.resolve(RunFiles.HISTORY);
        Files.writeString(history, "{\"index\":0,\"process\":3,\"type\":\"invoke\",\"f\":\"read\",\"key\":\"k7\","
                + "\"partition\":3,\"value\":null,\"time\":1520331,\"node\":null,\"version\":null,"
                + "\"session\":\"s3-0\",\"error\":null}\n");
        Path state = dir.resolve(RunFiles.FINAL_STATE);
        Files.writeString(state, "{\"replicas\":[],\"reads\":[{\"node\":\"n1\",\"key\":\"k7\",\"partition\":3,"
                + "\"value\":[1,2]}],\"faults\":[{\"kind\":\"pause\",\"target\":[\"n1\"],\"start\":5}]}");

        assertThat(RunFiles.readHistory(history).ops()).containsExactly(
                Op.invokeRead(0, 3, "k7", 3, 1520331, "s3-0"));
        assertThat(RunFiles.readFinalState(state).reads())
                .containsExactly(new FinalRead("n1", "k7", 3, List.of(1L, 2L)));
    }

    @Test
    void readsAFinalStateWithoutReads() throws IOException {
        Path file = dir.resolve(RunFiles.FINAL_STATE);
        Files.writeString(file, "{\"replicas\":[{\"node\":\"n1\",\"service\":\"lists\",\"partition\":0,"
                + "\"version\":3,\"digest\":\"\",\"role\":\"PRIMARY\"}]}");

        FinalState state = RunFiles.readFinalState(file);

        assertThat(state.reads()).isEmpty();
        assertThat(state.replicas()).containsExactly(new ReplicaState("n1", "lists", 0, 3, ""));
        assertThat(Guarantees.of(ConsistencyLevel.LEVEL_2, FailoverMode.MAJORITY).stalenessMillis()).isZero();
    }
}
