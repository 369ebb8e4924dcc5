package io.neptune.server.process.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.server.process.ProcessTable;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Killing a program's tree, with real processes. */
class ProcessTreeTest {
    private final String token = ProcessTable.newToken();

    @AfterEach
    void nothingLeft() {
        ProcessTable.awaitNone(token);
    }

    /**
     * A per-request run kills the group of a program that has already exited (to take what it left
     * in the background with it) before its pump thread may have read the program's output; that
     * output must still be there. CI lost a {@code cat}'s answer this way: the kill closed the
     * JVM's end of stdout under the pump, which then read "Stream closed".
     */
    @Test
    void whatAnExitedProgramWroteCanBeReadAfterItsTreeIsKilled() throws Exception {
        Process process = ProcessTree.start("sh", List.of("sh", "-c", "echo out; echo err >&2"), null,
                Map.of(ProcessTable.TOKEN_VARIABLE, token));
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();

        ProcessTree.kill(process, Duration.ofSeconds(5));

        assertThat(new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("out\n");
        assertThat(new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo("err\n");
    }

    @Test
    void killingTakesTheBackgroundChildrenAlongAndEndsTheOutput() throws Exception {
        Process process = ProcessTree.start("sh", List.of("sh", "-c", "sleep 600 & echo started; wait"), null,
                Map.of(ProcessTable.TOKEN_VARIABLE, token));
        byte[] started = process.getInputStream().readNBytes("started\n".length());
        assertThat(new String(started, StandardCharsets.UTF_8)).isEqualTo("started\n");

        ProcessTree.kill(process, Duration.ofSeconds(5));

        assertThat(process.getInputStream().readAllBytes()).as("the rest of stdout, once every writer is dead").isEmpty();
        assertThat(process.isAlive()).isFalse();
    }
}
