package io.neptune.server.process.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.NodeId;
import io.neptune.server.process.ProcessConfig;
import io.neptune.server.process.ProcessFailedException;
import io.neptune.server.process.ProcessFailedException.Reason;
import io.neptune.server.process.ProcessMode;
import io.neptune.server.process.ProcessRequest;
import io.neptune.server.process.ProcessResponse;
import io.neptune.server.process.ProcessTable;
import io.neptune.server.process.internal.ProcessRunnerTest.TestContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Warm processes of a real program: a shell loop speaking the length-prefixed framing, which
 * answers {@code <pid>:<partition>:<input>} and misbehaves on command.
 */
class WarmProcessTest {
    /** The framing in POSIX sh: read a length line, that many bytes, answer a frame. */
    static final String FRAMED_SERVER = """
            while IFS= read -r n; do
              body=$(head -c "$n")
              case "$body" in
                fail) printf 'error 4\\nnope' ;;
                exit) echo 'bye' >&2; exit 7 ;;
                hang) sleep 1000 & wait ;;
                big) printf '99999999\\n' ;;
                garbage) echo 'hello there' ;;
                burn) awk 'BEGIN { for (i = 0; i < 20000000; i++) s += i }'; printf '5\\nburnt' ;;
                late) printf '4\\nlate'; printf '4\\nSTAL'; : > "$WROTE_MARK" ;;
                quit) printf '4\\nquit'; exit 0 ;;
                escape) (setsid sleep 30 &) ;;
                *) out="$$:{partition}:$body"; printf '%s\\n%s' "${#out}" "$out" ;;
              esac
            done
            """;

    private final String token = ProcessTable.newToken();
    @TempDir
    Path scratch;
    /** A file the program creates once it wrote what a case asks for (a condition to await, not a sleep). */
    private Path wroteMark = Path.of("unset");
    private ProcessRunner runner;

    private void runner(int maxProcesses) {
        runner = new ProcessRunner(NodeId.of("node-t"), ProcessConfig.builder("warm", List.of("sh", "-c", FRAMED_SERVER))
                .partitions(4).mode(ProcessMode.WARM).maxProcesses(maxProcesses).maxOutputBytes(1000)
                .environment(ProcessTable.TOKEN_VARIABLE, token).environment("WROTE_MARK", wroteMark.toString())
                .build());
    }

    private ProcessResponse call(int partition, String input) {
        return runner.run(new TestContext("warm", partition, Duration.ofSeconds(60)), ProcessRequest.of(input));
    }

    private static String pid(ProcessResponse response) {
        return response.output().substring(0, response.output().indexOf(':'));
    }

    @AfterEach
    void killEverything() {
        if (runner != null) {
            runner.stop();
        }
        ProcessTable.awaitNone(token);
    }

    @Test
    void oneProcessServesRequestAfterRequestOfItsPartition() {
        runner(4);
        ProcessResponse first = call(1, "a");
        ProcessResponse second = call(1, "b\nc");
        assertThat(first.output()).endsWith(":1:a");
        assertThat(second.output()).isEqualTo(pid(first) + ":1:b\nc");
        assertThat(pid(call(2, "d"))).isNotEqualTo(pid(first));
    }

    /**
     * A program that writes a second frame after its answer: the next request read that frame as its
     * answer, and every later one its predecessor's. Now the extra frame kills the process, whether it
     * is seen with the answer or while the process is idle, and the next request gets its own answer.
     */
    @Test
    void aFrameBeyondTheAnswerNeverBecomesTheNextRequestsAnswer() {
        wroteMark = scratch.resolve("wrote");
        runner(4);
        try {
            assertThat(call(0, "late").output()).isEqualTo("late");
        } catch (ProcessFailedException e) {
            assertThat(e.reason()).isEqualTo(Reason.PROTOCOL); // the extra frame came with the answer
        }
        // once the extra frame is out (before that, nothing can tell it from an answer: see ARCHITECTURE.md)
        ProcessTable.await(() -> Files.exists(wroteMark), Duration.ofSeconds(10), "the extra frame to be written");
        assertThat(call(0, "abcd").output()).endsWith(":0:abcd");
        assertThat(call(0, "efgh").output()).endsWith(":0:efgh");
    }

    /**
     * A warm program that starts a process outside its group (which keeps stdout open) and never
     * answers: the watchdog kills the program at the deadline, but the worker's read stayed blocked
     * until that escaped process ended (30 s here). The worker's wait is bounded by the deadline.
     */
    @Test
    void aWorkerIsFreedAtTheDeadlineWhenAnEscapedProcessHoldsStdout() {
        runner(4);
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> runner.run(new TestContext("warm", 0, Duration.ofSeconds(1)),
                    ProcessRequest.of("escape")))
                    .isInstanceOfSatisfying(ProcessFailedException.class,
                            e -> assertThat(e.reason()).isEqualTo(Reason.TIMEOUT));
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("freed soon after the 1 s deadline")
                    .isLessThan(Duration.ofSeconds(10));
        } finally {
            ProcessTable.withToken(token).forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        }
    }

    /** A warm process that exits while idle is not handed the next request, which a fresh one serves. */
    @Test
    void aProcessThatDiedWhileIdleIsReplacedNotUsed() {
        runner(4);
        assertThat(call(0, "quit").output()).isEqualTo("quit");
        ProcessTable.await(() -> ProcessTable.withToken(token).isEmpty(), Duration.ofSeconds(10), "the process to exit");

        assertThat(call(0, "next").output()).endsWith(":0:next");
    }

    @Test
    void anErrorFrameIsATypedErrorAndTheProcessStays() {
        runner(4);
        String pid = pid(call(0, "x"));
        assertThatThrownBy(() -> call(0, "fail"))
                .isInstanceOfSatisfying(ProcessFailedException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.ERROR_REPLY))
                .hasMessageContaining("answered an error: nope");
        assertThat(pid(call(0, "y"))).isEqualTo(pid);
    }

    @Test
    void aProcessThatExitsIsReportedWithItsCodeAndReplaced() {
        runner(4);
        String pid = pid(call(0, "x"));
        assertThatThrownBy(() -> call(0, "exit"))
                .isInstanceOfSatisfying(ProcessFailedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.EXIT);
                    assertThat(e.exitCode()).hasValue(7);
                    assertThat(e.stderrTail()).isEqualTo("bye\n");
                });
        assertThat(pid(call(0, "z"))).isNotEqualTo(pid);
    }

    @Test
    void theDeadlineKillsTheWarmProcessAndItsChildren() {
        runner(4);
        call(0, "x");
        assertThatThrownBy(() -> runner.run(new TestContext("warm", 0, Duration.ofMillis(800)), ProcessRequest.of("hang")))
                .isInstanceOfSatisfying(ProcessFailedException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.TIMEOUT))
                .hasMessageContaining("had not answered at the call's deadline");
        ProcessTable.awaitNone(token); // it was the only warm process
        assertThat(call(0, "again").output()).endsWith(":0:again");
    }

    @Test
    void aFrameOverTheLimitAndAMalformedHeaderKillTheProcess() {
        runner(4);
        assertThatThrownBy(() -> call(0, "big"))
                .isInstanceOfSatisfying(ProcessFailedException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.OUTPUT_TOO_LARGE));
        assertThatThrownBy(() -> call(0, "garbage"))
                .isInstanceOfSatisfying(ProcessFailedException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.PROTOCOL))
                .hasMessageContaining("answered 'hello there'");
        ProcessTable.awaitNone(token);
    }

    @Test
    void theCpuTimeOfARequestIsTheDifferenceOverTheRequest() {
        runner(4);
        TestContext context = new TestContext("warm", 0, Duration.ofSeconds(60));
        assertThat(runner.run(context, ProcessRequest.of("burn")).output()).isEqualTo("burnt");
        assertThat(context.reported).isGreaterThanOrEqualTo(Duration.ofMillis(50));
        TestContext idle = new TestContext("warm", 0, Duration.ofSeconds(60));
        runner.run(idle, ProcessRequest.of("cheap"));
        assertThat(idle.reported).isLessThan(context.reported);
    }

    @Test
    void liveProcessesStayWithinMaxProcesses() {
        runner(1);
        String first = pid(call(0, "a"));
        String second = pid(call(1, "b"));
        assertThat(second).isNotEqualTo(first);
        ProcessTable.await(() -> ProcessTable.withToken(token).size() == 1, Duration.ofSeconds(10),
                "one warm process");
        assertThat(ProcessTable.withToken(token)).containsExactly(Long.parseLong(second));
    }

    @Test
    void stopKillsIdleWarmProcesses() {
        runner(4);
        call(0, "a");
        call(1, "b");
        assertThat(ProcessTable.withToken(token)).hasSize(2);
        runner.stop();
        ProcessTable.awaitNone(token);
    }
}
