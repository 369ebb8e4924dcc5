package io.neptune.benchmarks.nemesis;

import io.neptune.server.Commands;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A child process of the bench (a node or the workload agent, usually started through
 * {@code ip netns exec}, which execs the command in place, so {@link #pid} is the JVM's). One
 * thread reads its stdout (and stderr, when merged), appends every line to the log file, hands it
 * to a listener, and queues the lines the caller waits for, so waits are polls with a deadline.
 *
 * <p>Signals: {@link #pause} and {@link #resume} send SIGSTOP and SIGCONT; {@link #kill} sends
 * SIGKILL (a stopped process dies too) and waits for the end.
 *
 * <p>Thread-safety: thread-safe.
 */
final class ChildProcess implements AutoCloseable {
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(15);

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final Thread reader;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private volatile boolean paused;

    private ChildProcess(String name, Process process, Path log, Predicate<String> waitable,
            Consumer<String> listener) {
        this.name = name;
        this.process = process;
        this.stdin = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        this.reader = new Thread(() -> readOutput(log, waitable, listener), name + "-stdout");
        this.reader.setDaemon(true);
    }

    /**
     * Starts {@code command}. Its stdout, and its stderr when {@code mergeStderr}, go line by line to
     * {@code log} (appended) and to {@code listener}; the lines {@code waitable} accepts are also
     * queued for {@link #awaitLine}. A separate stderr is appended to {@code log} + {@code ".err"}.
     */
    static ChildProcess start(String name, List<String> command, Path log, boolean mergeStderr,
            Predicate<String> waitable, Consumer<String> listener) {
        return start(name, command, java.util.Map.of(), log, mergeStderr, waitable, listener);
    }

    /** Like the other {@code start}, with {@code environment} added to the child's environment. */
    static ChildProcess start(String name, List<String> command, java.util.Map<String, String> environment, Path log,
            boolean mergeStderr, Predicate<String> waitable, Consumer<String> listener) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(mergeStderr);
        builder.environment().putAll(environment);
        if (!mergeStderr) {
            builder.redirectError(ProcessBuilder.Redirect.appendTo(log.resolveSibling(log.getFileName() + ".err")
                    .toFile()));
        }
        Process process;
        try {
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name + ": " + command, e);
        }
        ChildProcess child = new ChildProcess(name, process, log, waitable, listener);
        child.reader.start();
        return child;
    }

    private void readOutput(Path log, Predicate<String> waitable, Consumer<String> listener) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)); Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND)) {
            String line;
            while ((line = in.readLine()) != null) {
                out.write(line);
                out.write('\n');
                out.flush();
                listener.accept(line);
                if (waitable.test(line)) {
                    lines.add(line);
                }
            }
        } catch (IOException | RuntimeException e) {
            lines.add("READ-FAILED " + e);
        }
    }

    /** The name given at start. */
    String name() {
        return name;
    }

    /** The process id. */
    long pid() {
        return process.pid();
    }

    /** Whether the process is running (a paused process is). */
    boolean isAlive() {
        return process.isAlive();
    }

    /** Whether {@link #pause} was called without a {@link #resume} since. */
    boolean paused() {
        return paused;
    }

    /** Waits for the next queued line that {@code matcher} accepts and returns it. */
    String awaitLine(Predicate<String> matcher, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException(name + ": no " + what + " within " + timeout);
            }
            if (!process.isAlive() && lines.isEmpty() && !reader.isAlive()) {
                throw new IllegalStateException(name + ": exited with " + process.exitValue() + " before " + what);
            }
            try {
                String line = lines.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(250)), TimeUnit.NANOSECONDS);
                if (line != null && matcher.test(line)) {
                    return line;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(name + ": interrupted while waiting for " + what, e);
            }
        }
    }

    /** Sends one line to the process's stdin. */
    void send(String line) {
        try {
            stdin.write(line + "\n");
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot send '" + line + "'", e);
        }
    }

    /** Sends SIGSTOP: the process keeps its sockets and memory but runs no instruction. */
    void pause() {
        signal("STOP");
        paused = true;
    }

    /** Sends SIGCONT. */
    void resume() {
        paused = false;
        signal("CONT");
    }

    private void signal(String signal) {
        if (!process.isAlive()) {
            return;
        }
        List<String> command = List.of("kill", "-" + signal, Long.toString(process.pid()));
        Commands.Result result = Commands.run(command);
        if (result.exit() != 0 && process.isAlive()) {
            throw new IllegalStateException(name + ": " + result.describe(command));
        }
    }

    /** Sends SIGKILL and waits for the process to end. */
    void kill() {
        process.destroyForcibly();
        paused = false;
        awaitExit(EXIT_TIMEOUT);
    }

    /** Asks the process to end (SIGCONT, then SIGTERM), and kills it if it has not after {@code grace}. */
    void terminate(Duration grace) {
        if (paused) {
            resume();
        }
        process.destroy();
        awaitExitOrKill(grace);
    }

    /** Waits up to {@code grace} for the process to end on its own, then kills it. */
    void awaitExitOrKill(Duration grace) {
        if (!awaitExit(grace)) {
            kill();
        }
    }

    private boolean awaitExit(Duration timeout) {
        try {
            boolean ended = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (ended) {
                reader.join(TimeUnit.SECONDS.toMillis(5));
            }
            return ended;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            return false;
        }
    }

    /** Kills the process if it is still running; idempotent. */
    @Override
    public void close() {
        if (process.isAlive()) {
            kill();
        }
    }

    @Override
    public String toString() {
        return "ChildProcess[" + name + ", pid " + process.pid() + (process.isAlive() ? "" : ", exited") + "]";
    }
}
