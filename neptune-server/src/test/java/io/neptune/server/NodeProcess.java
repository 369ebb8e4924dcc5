package io.neptune.server;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A child process of a test, a node ({@code neptune node}, {@link MulticastNodeMain}) or a client:
 * stdout and stderr are read by one thread into a queue, so waits are polls with a deadline, never
 * sleeps. {@link #close} stops the process on every path. Public for the examples' ITs.
 *
 * <p>Thread-safety: the reader thread only appends to the queue and the transcript; every other
 * method is called by the test thread.
 */
public final class NodeProcess implements AutoCloseable {
    private static final int TRANSCRIPT_LINES = 200;
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);

    private final String name;
    private final Process process;
    private final Writer stdin;
    private final Thread reader;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Deque<String> transcript = new ArrayDeque<>();
    private final @Nullable Path logFile;
    private volatile String nodes = "";

    private NodeProcess(String name, Process process, @Nullable Path logFile) {
        this.name = name;
        this.process = process;
        this.logFile = logFile;
        this.stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.reader = new Thread(this::readOutput, name + "-stdout");
        this.reader.setDaemon(true);
    }

    /** Starts {@code command} (stderr merged into stdout) as node {@code name}. */
    public static NodeProcess start(String name, List<String> command) {
        return start(name, command, null);
    }

    /**
     * Starts {@code command} (stderr merged into stdout) as node {@code name}, also copying its
     * whole output to {@code logFile} (if not null) for post-mortems.
     */
    public static NodeProcess start(String name, List<String> command, @Nullable Path logFile) {
        return start(name, command, logFile, Map.of());
    }

    /** Like {@link #start(String, List, Path)}, with {@code environment} added to the process's environment. */
    static NodeProcess start(String name, List<String> command, @Nullable Path logFile,
            Map<String, String> environment) {
        return start(name, command, logFile, environment, null);
    }

    /** Like {@link #start(String, List, Path, Map)}, run in {@code directory} (null: this process's). */
    static NodeProcess start(String name, List<String> command, @Nullable Path logFile,
            Map<String, String> environment, @Nullable Path directory) {
        Process process;
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
            builder.environment().putAll(environment);
            if (directory != null) {
                builder.directory(directory.toFile());
            }
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start node " + name + ": " + command, e);
        }
        NodeProcess node = new NodeProcess(name, process, logFile);
        node.reader.start();
        return node;
    }

    private void readOutput() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8)); Writer copy = logFile == null ? Writer.nullWriter()
                        : Files.newBufferedWriter(logFile, StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                copy.write(line + "\n");
                copy.flush();
                if (line.startsWith("NODES ")) {
                    nodes = line.substring("NODES ".length());
                }
                synchronized (transcript) {
                    transcript.addLast(line);
                    if (transcript.size() > TRANSCRIPT_LINES) {
                        transcript.removeFirst();
                    }
                }
                lines.add(line);
            }
        } catch (IOException e) {
            lines.add("READ-FAILED " + e);
        }
    }

    /** The node's name in the test. */
    public String name() {
        return name;
    }

    /** The node set of the last {@code NODES} line, comma-separated. */
    String nodes() {
        return nodes;
    }

    /** Waits until the last {@code NODES} line equals {@code expected}. */
    void awaitNodes(String expected, Duration timeout) {
        awaitCondition(() -> nodes.equals(expected), timeout, "yellow page " + expected + " (last: " + nodes + ")");
    }

    /** The next output line not read yet, or null if there is none now (it does not wait). */
    @Nullable String nextLine() {
        return lines.poll();
    }

    /** Waits for the next output line that matches {@code matcher} and returns it. */
    public String awaitLine(Predicate<String> matcher, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = poll(deadline, what);
            if (matcher.test(line)) {
                return line;
            }
        }
    }

    private void awaitCondition(BooleanSupplier condition, Duration timeout, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            poll(deadline, what);   // wakes on every new line; the reader updates the state first
        }
    }

    private String poll(long deadline, String what) {
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(name + ": no " + what + " within the timeout" + details());
            }
            if (!process.isAlive() && lines.isEmpty() && !reader.isAlive()) {
                throw new AssertionError(name + ": exited with " + process.exitValue() + " before " + what + details());
            }
            try {
                String line = lines.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(250)), TimeUnit.NANOSECONDS);
                if (line != null) {
                    return line;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(name + ": interrupted while waiting for " + what, e);
            }
        }
    }

    /** Sends one command line to the node's stdin. */
    public void send(String command) {
        try {
            stdin.write(command + "\n");
            stdin.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(name + ": cannot send '" + command + "'" + details(), e);
        }
    }

    /** Kills the process with SIGKILL and waits for it to die. */
    public void kill() {
        signalKill();
        awaitExit();
    }

    /** Sends SIGTERM (a clean stop), waits for the process to exit and returns its exit status. */
    public int terminate() {
        signalTerm();
        awaitExit();
        return process.exitValue();
    }

    /** Waits at most {@code timeout} for the process to exit on its own; returns whether it did. */
    boolean awaitExit(Duration timeout) throws InterruptedException {
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** The exit status of the process, which has exited. */
    int exitValue() {
        return process.exitValue();
    }

    /**
     * Sends SIGTERM without waiting: a {@code neptune node} process drains on the first, stops on the
     * second. Through the process handle: {@link Process#destroy()} would also close the pipes, and
     * what the process says while it stops would be lost.
     */
    void signalTerm() {
        process.toHandle().destroy();
    }

    /** The process's handle: to signal a process it started (a container's entry point). */
    ProcessHandle handle() {
        return process.toHandle();
    }

    /** Sends SIGKILL without waiting: to kill several processes at (nearly) the same instant. */
    void signalKill() {
        process.destroyForcibly();
    }

    /** The last lines the process wrote (at most {@value #TRANSCRIPT_LINES}). */
    public List<String> transcript() {
        synchronized (transcript) {
            return List.copyOf(transcript);
        }
    }

    /** The threads of the process and where each is ({@code jstack}), for a process that does not exit. */
    String threadDump() {
        try {
            Process jstack = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jstack").toString(),
                    Long.toString(process.pid())).redirectErrorStream(true).start();
            String dump = new String(jstack.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!jstack.waitFor(30, TimeUnit.SECONDS)) {
                jstack.destroyForcibly();
            }
            return "\n--- threads of " + name + " ---\n" + dump + "--- end ---";
        } catch (IOException e) {
            return "\n(no thread dump of " + name + ": " + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "\n(no thread dump of " + name + ": interrupted)";
        }
    }

    /** The last lines the process wrote, for failure messages. */
    public String details() {
        synchronized (transcript) {
            return "\n--- last output of " + name + " ---\n" + String.join("\n", transcript) + "\n--- end ---";
        }
    }

    /**
     * Closes stdin without waiting: a {@link ConfigNodeMain} process starts its clean stop. {@link
     * #close()} then waits for it; asking several processes first lets their stops overlap.
     */
    void requestStop() {
        try {
            stdin.close();
        } catch (IOException e) {
            // the process is gone already
        }
    }

    /** Closes stdin so the node stops cleanly, then kills it if it is still alive; idempotent. */
    @Override
    public void close() {
        requestStop();
        boolean interrupted = Thread.interrupted();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            interrupted = true;
            process.destroyForcibly();
        }
        try {
            awaitExit();
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void awaitExit() {
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + ": pid " + process.pid() + " survived SIGKILL for "
                        + STOP_TIMEOUT);
            }
            reader.join(STOP_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException(name + ": interrupted while waiting for pid " + process.pid(), e);
        }
    }

    @Override
    public String toString() {
        return "NodeProcess[" + name + ", pid " + process.pid() + (process.isAlive() ? "" : ", exited") + "]";
    }
}
