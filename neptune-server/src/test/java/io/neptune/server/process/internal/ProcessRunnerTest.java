package io.neptune.server.process.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.RequestContext;
import io.neptune.server.process.ProcessConfig;
import io.neptune.server.process.ProcessFailedException;
import io.neptune.server.process.ProcessFailedException.Reason;
import io.neptune.server.process.ProcessRequest;
import io.neptune.server.process.ProcessResponse;
import io.neptune.server.process.ProcessTable;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Per-request runs of real programs ({@code sh}, {@code cat}, {@code awk}): input and output,
 * placeholders, exit codes, deadlines, output limits, CPU accounting, and that no process of a run
 * outlives it. Every process a test starts carries a token in its environment, so the test can see
 * that the whole tree is gone.
 */
class ProcessRunnerTest {
    private final String token = ProcessTable.newToken();
    private ProcessRunner runner;

    /** A call's context as a node's worker gives it. */
    static final class TestContext implements RequestContext {
        private final String service;
        private final int partition;
        private final Duration timeLeft;
        volatile Duration reported = Duration.ofNanos(-1);

        TestContext(String service, int partition, Duration timeLeft) {
            this.service = service;
            this.partition = partition;
            this.timeLeft = timeLeft;
        }

        @Override
        public String service() {
            return service;
        }

        @Override
        public int partition() {
            return partition;
        }

        @Override
        public String method() {
            return "run";
        }

        @Override
        public AccessMode mode() {
            return AccessMode.READ;
        }

        @Override
        public long lsn() {
            return 0;
        }

        @Override
        public NodeId node() {
            return NodeId.of("node-t");
        }

        @Override
        public void reportResourceUse(Duration used) {
            reported = used;
        }

        @Override
        public Optional<Duration> timeLeft() {
            return Optional.of(timeLeft);
        }
    }

    private ProcessRunner runner(ProcessConfig.Builder config) {
        runner = new ProcessRunner(NodeId.of("node-t"), config.environment(ProcessTable.TOKEN_VARIABLE, token).build());
        return runner;
    }

    private static ProcessConfig.Builder sh(String script) {
        return ProcessConfig.builder("svc", List.of("sh", "-c", script)).partitions(4);
    }

    private ProcessResponse call(int partition, ProcessRequest request) {
        return runner.run(new TestContext("svc", partition, Duration.ofSeconds(60)), request);
    }

    @AfterEach
    void killEverything() {
        if (runner != null) {
            runner.stop();
        }
        ProcessTable.awaitNone(token);
    }

    @Test
    void catEchoesTheInput() {
        runner(ProcessConfig.builder("svc", List.of("cat")));
        ProcessResponse response = call(0, ProcessRequest.of("hello\nworld"));
        assertThat(response.output()).isEqualTo("hello\nworld");
        assertThat(response.stderr()).isEmpty();
    }

    @Test
    void awkWithAnEscapedBraceAndPlaceholdersEverywhere() {
        runner(ProcessConfig.builder("svc", List.of("awk", "-v", "p={partition}/{partitions}",
                "{{print p, ENVIRON[\"WHERE\"], toupper($0)}}")).partitions(4).environment("WHERE", "{service}@{node}"));
        assertThat(call(2, ProcessRequest.of("a\nb\n")).output()).isEqualTo("2/4 svc@node-t A\n2/4 svc@node-t B\n");
    }

    @Test
    void partitionArgumentsAndRequestArgumentsGoWhereTheCommandSays() {
        runner(ProcessConfig.builder("svc", List.of("sh", "-c", "echo \"$*\"", "sh", "-db", "db/part-{partition}",
                "{partition-args}", "{args}")).partitions(2).partitionArguments(1, List.of("-x", "{partition}")));
        assertThat(call(0, new ProcessRequest("", List.of("q r", "s"))).output()).isEqualTo("-db db/part-0 q r s\n");
        assertThat(call(1, new ProcessRequest("", List.of())).output()).isEqualTo("-db db/part-1 -x 1\n");
    }

    @Test
    void requestArgumentsAreRefusedWhenTheCommandTakesNone() {
        runner(ProcessConfig.builder("svc", List.of("cat")));
        assertThatThrownBy(() -> call(0, new ProcessRequest("", List.of("--evil"))))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("has no {args} element");
    }

    @Test
    void aNonZeroExitIsATypedErrorWithTheCodeAndTheEndOfStderr() {
        runner(sh("cat >/dev/null; echo 'no such database' >&2; exit 3"));
        assertThatThrownBy(() -> call(1, ProcessRequest.of("x")))
                .isInstanceOfSatisfying(ProcessFailedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.EXIT);
                    assertThat(e.exitCode()).hasValue(3);
                    assertThat(e.program()).isEqualTo("sh");
                    assertThat(e.stderrTail()).isEqualTo("no such database\n");
                })
                .hasMessage("svc#1: program 'sh' failed (exit code 3); stderr ends: no such database");
    }

    @Test
    void aMissingProgramCannotStartAndSaysWhereItWasLookedFor() {
        // Reason START_FAILED, as documented, not the wrapper shell's exit code 127: callers tell
        // "not installed" from "the program failed" by the reason (the BLAST gateway answers 503).
        runner(ProcessConfig.builder("svc", List.of("neptune-no-such-program-" + token)));
        assertThatThrownBy(() -> call(0, ProcessRequest.of("")))
                .isInstanceOfSatisfying(ProcessFailedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.START_FAILED);
                    assertThat(e.exitCode()).isEmpty();
                })
                .hasMessageContaining("could not start: 'neptune-no-such-program-" + token + "' is not on the PATH (");
    }

    @Test
    void aProgramPathThatIsNoExecutableCannotStart() {
        runner(ProcessConfig.builder("svc", List.of("/nonexistent/neptune-" + token)));
        assertThatThrownBy(() -> call(0, ProcessRequest.of("")))
                .isInstanceOfSatisfying(ProcessFailedException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.START_FAILED))
                .hasMessageContaining("could not start: '/nonexistent/neptune-" + token + "' is not an executable file");
    }

    @Test
    void aMissingWorkingDirectoryCannotStart() {
        runner(ProcessConfig.builder("svc", List.of("cat")).workingDirectory("/nonexistent/{partition}"));
        assertThatThrownBy(() -> call(0, ProcessRequest.of("")))
                .isInstanceOfSatisfying(ProcessFailedException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.START_FAILED));
    }

    @Test
    void theDeadlineKillsAForkingProgramAndEveryChild() throws Exception {
        runner(sh("sleep 1000 & sleep 1000 & wait").timeout(Duration.ofMinutes(1)));
        CompletableFuture<ProcessResponse> call = CompletableFuture.supplyAsync(
                () -> runner.run(new TestContext("svc", 0, Duration.ofSeconds(5)), ProcessRequest.of("")));
        // the wrapper, the program and its two children
        ProcessTable.await(() -> ProcessTable.withToken(token).size() >= 4, Duration.ofSeconds(10), "the tree to start");
        assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS))
                .cause().isInstanceOfSatisfying(ProcessFailedException.class, e -> {
                    assertThat(e.reason()).isEqualTo(Reason.TIMEOUT);
                    assertThat(e.exitCode()).isEmpty();
                })
                .hasMessageContaining("was still running at the call's deadline and was killed with its process group");
        ProcessTable.awaitNone(token);
    }

    @Test
    void theServiceTimeoutAppliesWhenTheCallWaitsLonger() {
        runner(sh("exec sleep 1000").timeout(Duration.ofMillis(300)));
        assertThatThrownBy(() -> call(0, ProcessRequest.of("")))
                .hasMessageContaining("at its timeout of 300 ms");
        ProcessTable.awaitNone(token);
    }

    @Test
    void whatAProgramLeavesRunningInTheBackgroundDiesWithTheRequest() {
        runner(sh("sleep 1000 & echo done"));
        assertThat(call(0, ProcessRequest.of("")).output()).isEqualTo("done\n");
        ProcessTable.awaitNone(token);
    }

    /**
     * A program that exits 0 while a process it started outside its group (setsid) holds stdout: its
     * answer never ended. It came back as a success with empty output, after two drain waits of 5 s.
     */
    @Test
    void aProgramWhoseEscapedChildHoldsStdoutFailsInsteadOfAnsweringNothing() {
        runner(sh("(setsid sleep 30 &); sleep 0.3; echo hi"));
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> runner.run(new TestContext("svc", 0, Duration.ofSeconds(2)), ProcessRequest.of("")))
                    .isInstanceOfSatisfying(ProcessFailedException.class,
                            e -> assertThat(e.reason()).isEqualTo(Reason.UNFINISHED_OUTPUT))
                    .hasMessageContaining("outside its process group");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("one drain wait for both pipes, not one each")
                    .isLessThan(Duration.ofSeconds(9));
        } finally {
            ProcessTable.withToken(token).forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
        }
    }

    @Test
    void outputOverTheLimitKillsTheProgram() {
        runner(sh("yes neptune").maxOutputBytes(10_000));
        assertThatThrownBy(() -> call(0, ProcessRequest.of("")))
                .isInstanceOfSatisfying(ProcessFailedException.class,
                        e -> assertThat(e.reason()).isEqualTo(Reason.OUTPUT_TOO_LARGE))
                .hasMessageContaining("more than 10000 bytes");
        ProcessTable.awaitNone(token);
    }

    @Test
    void outputAtTheLimitIsFine() {
        runner(sh("head -c 10000 /dev/zero | tr '\\0' x").maxOutputBytes(10_000));
        assertThat(call(0, ProcessRequest.of("")).output()).hasSize(10_000);
    }

    @Test
    void theCpuTimeOfTheProgramAndItsChildrenIsReportedAsTheCallsResourceUse() {
        runner(sh("awk 'BEGIN { for (i = 0; i < 20000000; i++) s += i; print s > \"/dev/null\" }'"));
        TestContext context = new TestContext("svc", 0, Duration.ofSeconds(60));
        ProcessResponse response = runner.run(context, ProcessRequest.of(""));
        assertThat(context.reported).isGreaterThanOrEqualTo(Duration.ofMillis(50));
        assertThat(response.cpuMicros()).isEqualTo(context.reported.toNanos() / 1000);
        assertThat(response.stderr()).isEmpty(); // the wrapper's accounting line is not the program's stderr
    }

    @Test
    void aKilledRunIsChargedWhatItBurnedUntilTheKill() {
        runner(sh("while :; do :; done").timeout(Duration.ofSeconds(2)));
        TestContext context = new TestContext("svc", 0, Duration.ofSeconds(60));
        assertThatThrownBy(() -> runner.run(context, ProcessRequest.of(""))).isInstanceOf(ProcessFailedException.class);
        assertThat(context.reported).isGreaterThan(Duration.ZERO);
    }

    @Test
    void stopKillsRunningRequestsAndRefusesNewOnes() throws Exception {
        runner(sh("sleep 1000 & wait"));
        CompletableFuture<ProcessResponse> call = CompletableFuture.supplyAsync(() -> call(0, ProcessRequest.of("")));
        ProcessTable.await(() -> ProcessTable.withToken(token).size() >= 3, Duration.ofSeconds(10), "the tree to start");
        runner.stop();
        assertThatThrownBy(() -> call.get(30, TimeUnit.SECONDS)).cause()
                .isInstanceOfSatisfying(ProcessFailedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.ABORTED));
        ProcessTable.awaitNone(token);
        assertThatThrownBy(() -> call(0, ProcessRequest.of("")))
                .isInstanceOfSatisfying(ProcessFailedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.ABORTED));
    }

    /**
     * The window stopKillsRunningRequestsAndRefusesNewOnes hits now and then: the node stops after a
     * run registered its process but before it started the threads that pump the process's pipes. The
     * run must end ABORTED like any other the stop cut short, not with the pool's own rejection.
     */
    @Test
    void aRunWhosePipesCannotStartBecauseTheNodeStoppedIsAborted() {
        runner(sh("cat"));
        runner.io().shutdownNow();   // stop() does this right after abort(); here the run sees only the second

        assertThatThrownBy(() -> call(0, ProcessRequest.of("")))
                .isInstanceOfSatisfying(ProcessFailedException.class, e -> assertThat(e.reason()).isEqualTo(Reason.ABORTED));
        ProcessTable.awaitNone(token);
    }

    @Test
    void maxProcessesBoundsConcurrentRuns() throws Exception {
        runner(sh("sleep 1000").maxProcesses(1));
        CompletableFuture<ProcessResponse> first = CompletableFuture.supplyAsync(() -> call(0, ProcessRequest.of("")));
        ProcessTable.await(() -> ProcessTable.withToken(token).size() >= 2, Duration.ofSeconds(10), "the first run");
        assertThatThrownBy(() -> runner.run(new TestContext("svc", 1, Duration.ofMillis(300)), ProcessRequest.of("")))
                .hasMessageContaining("all 1 processes (max-processes) stayed busy");
        runner.abort();
        assertThatThrownBy(() -> first.get(30, TimeUnit.SECONDS)).cause().isInstanceOf(ProcessFailedException.class);
    }
}
