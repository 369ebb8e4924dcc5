package io.neptune.server.internal.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills a process that appends to a log with SIGKILL at a random moment and checks that every
 * acknowledged record survived intact, for the policies whose promise covers a process kill:
 * {@code group} (forced) and {@code none} (in the page cache).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RedoLogKillIT {
    private static final int RUNS = 24;
    private static final long LINE_TIMEOUT_SECONDS = 30;
    private static final int TRANSCRIPT_LINES = 50;

    @TempDir
    Path dir;

    @Test
    void acknowledgedAppendsSurviveSigkill() throws Exception {
        long seed = ThreadLocalRandom.current().nextLong();
        SplittableRandom random = new SplittableRandom(seed);
        for (int run = 0; run < RUNS; run++) {
            FsyncPolicy policy = run % 2 == 0 ? FsyncPolicy.GROUP : FsyncPolicy.NONE;
            int killAfter = random.nextInt(50, 2001);
            String what = "run " + run + " (seed " + seed + ", " + policy.configName() + ", kill after " + killAfter
                    + " acknowledged appends)";
            Path directory = dir.resolve("run-" + run);
            long acknowledged = appendAndKill(directory, policy, killAfter, what);
            assertThat(acknowledged).as(what).isGreaterThanOrEqualTo(killAfter);

            List<LogRecord> first = recover(directory, acknowledged, what);
            long sizeAfterFirst = Files.size(directory.resolve(LogFile.NAME));
            List<LogRecord> second = recover(directory, acknowledged, what);
            assertThat(second).as("second reopen, %s", what).isEqualTo(first);
            assertThat(Files.size(directory.resolve(LogFile.NAME))).as(what).isEqualTo(sizeAfterFirst);
        }
    }

    /** Runs the appender until {@code killAfter} appends are acknowledged, kills it, returns the highest. */
    private static long appendAndKill(Path directory, FsyncPolicy policy, int killAfter, String what)
            throws IOException, InterruptedException, TimeoutException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(java, "-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", System.getProperty("java.class.path"), LogAppenderMain.class.getName(),
                directory.toString(), policy.configName())
                .redirectErrorStream(true).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread reader = new Thread(() -> readLines(process, lines), "appender-stdout");
        reader.setDaemon(true);
        reader.start();
        Deque<String> transcript = new ArrayDeque<>();
        long acknowledged = 0;
        try {
            while (acknowledged < killAfter) {
                String line = lines.poll(LINE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                if (line == null || line.equals(END)) {
                    throw new TimeoutException(what + ": no APPENDED line after " + acknowledged
                            + (line == null ? " within " + LINE_TIMEOUT_SECONDS + " s" : ": the appender exited")
                            + "\n" + String.join("\n", transcript));
                }
                acknowledged = take(line, acknowledged, transcript, what);
            }
        } finally {
            process.destroyForcibly();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException(what + ": pid " + process.pid() + " survived SIGKILL");
            }
        }
        reader.join(TimeUnit.SECONDS.toMillis(30));
        // Lines printed before the kill are acknowledgements too. The kill closes our end of the pipe,
        // so the reader may stop early (READ-FAILED): then the count is a lower bound, which is enough.
        for (String line = lines.poll(); line != null && !line.equals(END); line = lines.poll()) {
            if (!line.startsWith("READ-FAILED")) {
                acknowledged = take(line, acknowledged, transcript, what);
            }
        }
        return acknowledged;
    }

    private static final String END = "\u0000end";

    private static void readLines(Process process, BlockingQueue<String> lines) {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                lines.add(line);
            }
        } catch (IOException e) {
            lines.add("READ-FAILED " + e);
        } finally {
            lines.add(END);
        }
    }

    private static long take(String line, long acknowledged, Deque<String> transcript, String what) {
        transcript.addLast(line);
        if (transcript.size() > TRANSCRIPT_LINES) {
            transcript.removeFirst();
        }
        if (!line.startsWith("APPENDED ")) {
            assertThat(line).as("%s: appender output\n%s", what, String.join("\n", transcript))
                    .doesNotStartWith("FAILED").doesNotStartWith("READ-FAILED").doesNotContain("Exception");
            return acknowledged;
        }
        long lsn = Long.parseLong(line.substring("APPENDED ".length()));
        assertThat(lsn).as("%s: acknowledgements in LSN order", what).isEqualTo(acknowledged + 1);
        return lsn;
    }

    /** Opens the log, checks it, and returns its records. */
    private static List<LogRecord> recover(Path directory, long acknowledged, String what) {
        List<LogRecord> records = new ArrayList<>();
        try (RedoLog log = RedoLog.open(directory, FsyncPolicy.GROUP)) {
            assertThat(log.lastLsn()).as("%s: last LSN covers every acknowledged one", what)
                    .isGreaterThanOrEqualTo(acknowledged);
            for (long next = 1; next <= log.lastLsn(); next = records.size() + 1) {
                records.addAll(log.read(next, 1000));
            }
            for (int i = 0; i < records.size(); i++) {
                LogRecord record = records.get(i);
                assertThat(record.lsn()).as("%s: contiguous from 1", what).isEqualTo(i + 1);
                assertThat(record).as("%s: record %d intact", what, i + 1)
                        .isEqualTo(TestRecords.record(i + 1, 1, LogAppenderMain.MAX_PAYLOAD));
            }
            assertThat(records).as(what).hasSize((int) log.lastLsn());
            assertThat(log.lsnOf(TestRecords.requestId(acknowledged))).as(what).hasValue(acknowledged);
        }
        return records;
    }
}
