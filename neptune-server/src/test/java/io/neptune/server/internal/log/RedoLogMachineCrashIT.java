package io.neptune.server.internal.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.neptune.server.crashfs.CrashFs;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a REDO log keeps through a machine crash (a process under {@link CrashFs}, killed, its files
 * cut back to their last fsync): every record its appends or its opening reported durable.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedoLogMachineCrashIT {
    @TempDir
    Path work;
    private Path root;
    private Path directory;

    @BeforeEach
    void requireShim() {
        assumeTrue(CrashFs.unavailableReason().isEmpty(), () -> "skipped: " + CrashFs.unavailableReason().get());
        root = work.resolve("node");
        directory = root.resolve("log-0");
    }

    @Test
    void acknowledgedGroupCommitsSurviveAMachineCrash() throws Exception {
        long acknowledged = appendAndKill(FsyncPolicy.GROUP, 300);

        CrashFs.Cut cut = CrashFs.cut(root);

        try (RedoLog log = RedoLog.open(directory, FsyncPolicy.GROUP)) {
            assertThat(log.lastLsn()).as("%s; %s acknowledged", cut, acknowledged).isGreaterThanOrEqualTo(acknowledged);
            assertThat(log.read(1, (int) log.lastLsn())).hasSize((int) log.lastLsn());
        }
    }

    /**
     * Records written with {@code log-sync: none} and never forced are only in the page cache; a
     * restarted process that opens the log counts them as durable (a secondary acknowledges them, a
     * new primary counts them), so opening must force them first.
     */
    @Test
    void recordsARestartedLogReportsSurviveAMachineCrash() throws Exception {
        long written = appendAndKill(FsyncPolicy.NONE, 200);
        long reported = reopen();
        assertThat(reported).isGreaterThanOrEqualTo(written);

        CrashFs.cut(root);

        try (RedoLog log = RedoLog.open(directory, FsyncPolicy.GROUP)) {
            assertThat(log.lastLsn()).as("records the restarted log reported durable").isEqualTo(reported);
        }
    }

    /** Runs {@link LogAppenderMain} under the shim until {@code count} appends completed, kills it, returns the last. */
    private long appendAndKill(FsyncPolicy policy, long count) throws Exception {
        Process process = start(LogAppenderMain.class, policy);
        long acknowledged = 0;
        List<String> transcript = new ArrayList<>();
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null && acknowledged < count; line = in.readLine()) {
                transcript.add(line);
                if (line.startsWith("APPENDED ")) {
                    acknowledged = Long.parseLong(line.substring("APPENDED ".length()));
                }
            }
        } finally {
            process.destroyForcibly();
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("appender killed").isTrue();
        }
        assertThat(acknowledged).as("appends acknowledged before the kill: %s", transcript).isEqualTo(count);
        return acknowledged;
    }

    private long reopen() throws Exception {
        Process process = start(LogReopenMain.class, FsyncPolicy.GROUP);
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        String opened = output.lines().filter(l -> l.startsWith("OPENED ")).findFirst()
                .orElseThrow(() -> new AssertionError("no OPENED line: " + output));
        return Long.parseLong(opened.substring("OPENED ".length()));
    }

    private Process start(Class<?> main, FsyncPolicy policy) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                main.getName(), directory.toString(), policy.configName()).redirectErrorStream(true);
        builder.environment().putAll(CrashFs.environment(root));
        return builder.start();
    }
}
