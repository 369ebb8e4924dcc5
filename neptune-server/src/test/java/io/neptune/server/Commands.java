package io.neptune.server;

import static java.util.Objects.requireNonNull;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Short commands ({@code ip}, {@code tc}, {@code kill}) run to completion with a timeout, and the
 * effective uid: what {@link NamespaceNetwork} and the tests' and benchmarks' process harnesses run.
 *
 * <p>Thread-safety: stateless.
 */
public final class Commands {
    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Commands() {}

    /** The output (stdout and stderr) and exit code of a finished command. */
    public record Result(int exit, String output) {
        /** The command, its exit code and its output, for an exception message. */
        public String describe(List<String> command) {
            return "`" + String.join(" ", command) + "` exited with " + exit + ": " + output.trim();
        }
    }

    /** Runs a short command with a timeout; throws {@link UncheckedIOException} if it cannot start. */
    public static Result run(List<String> command) {
        Path output;
        try {
            output = Files.createTempFile("neptune-command-", ".out");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary file for the output of " + command, e);
        }
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectOutput(output.toFile()).start();
            try {
                if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                    throw new IllegalStateException("`" + String.join(" ", command) + "`: no exit within "
                            + TIMEOUT);
                }
            } finally {
                process.destroyForcibly();
            }
            return new Result(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running " + command, e);
        } finally {
            try {
                Files.deleteIfExists(output);
            } catch (IOException e) {
                // a temporary file; best effort
            }
        }
    }

    /** The effective uid of this process, from {@code /proc/self/status} or {@code id -u}. */
    public static String effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("Uid:")) {
                    return line.substring(4).trim().split("\\s+")[1];   // real, effective, saved, fs
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux /proc; fall back to `id -u`
        }
        try {
            return run(List.of("id", "-u")).output().trim();
        } catch (UncheckedIOException e) {
            return "unknown (" + requireNonNull(e.getCause(), "an UncheckedIOException has a cause").getMessage() + ")";
        }
    }
}
