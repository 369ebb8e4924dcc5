package io.neptune.server.process.internal;

import io.neptune.server.process.ProcessFailedException;
import io.neptune.server.process.ProcessFailedException.Reason;
import io.neptune.server.process.ProcessRequest;
import io.neptune.server.process.ProcessResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;

/**
 * One run of a {@link io.neptune.server.process.ProcessMode#PER_REQUEST} program: start it in its
 * own process group, pump stdin, stdout and stderr on the runner's I/O threads, wait until it exits
 * or its deadline passes, then kill its group (so that nothing it left running in the background
 * survives the request) and answer.
 *
 * <p>The program runs under a small {@code sh} wrapper, {@link #WRAPPER}, which waits for it and
 * then writes its own {@code /proc/self/stat} line to stderr behind a marker: the wrapper's
 * children's CPU times ({@code cutime}, {@code cstime}) are then the program's and those of every
 * descendant it waited for, which a JVM cannot read once the program has exited. The marker line
 * is removed from the stderr the caller sees.
 *
 * <p>Thread-safety: single use, by one worker thread.
 */
final class PerRequestRun {
    /** The marker in front of the wrapper's stat line (starting with an ASCII record separator). */
    static final String STAT_MARKER = "\u001eneptune-stat ";
    /** {@code sh -c SCRIPT neptune-process <program> <args...>}: runs the program, then reports the stat line. */
    static final List<String> WRAPPER = List.of("sh", "-c", "\"$@\"; s=$?; { read -r t < /proc/$$/stat; } 2>/dev/null;"
            + " printf '\\n\\036neptune-stat %s\\n' \"$t\" >&2; exit $s", "neptune-process");
    /** How long after the exit (and the group kill) the pipes may take to reach their end. */
    private static final Duration DRAIN_WAIT = Duration.ofSeconds(5);

    private final ProcessRunner runner;
    private final String target;
    private final List<String> argv;
    private final ProcessRequest request;
    private final ProcessRunner.Deadline deadline;
    private final ProcessRunner.Outcome outcome;
    private final int partition;
    private final AtomicBoolean overflow = new AtomicBoolean();
    private boolean killed;

    PerRequestRun(ProcessRunner runner, String target, int partition, List<String> argv, ProcessRequest request,
            ProcessRunner.Deadline deadline, ProcessRunner.Outcome outcome) {
        this.runner = runner;
        this.target = target;
        this.argv = argv;
        this.request = request;
        this.deadline = deadline;
        this.outcome = outcome;
        this.partition = partition;
    }

    ProcessResponse run() {
        Process process;
        try {
            process = ProcessTree.start(runner.program(partition), argv, runner.directory(partition), runner.environment(partition));
        } catch (IOException e) {
            throw runner.failure(target, Reason.START_FAILED, -1, "", "could not start: " + e.getMessage());
        }
        runner.register(target, process);
        try {
            return await(process);
        } finally {
            if (!killed) { // await failed before its kill: whatever the program left behind goes, on every path
                ProcessTree.kill(process, ProcessRunner.KILL_WAIT);
            }
            process.destroyForcibly(); // it is dead and its pumps are done: this closes what they left open
            runner.unregister(process);
        }
    }

    private ProcessResponse await(Process process) {
        byte[] input = request.input().getBytes(StandardCharsets.UTF_8);
        TailBuffer stderr = new TailBuffer(ProcessFailedException.STDERR_TAIL_BYTES + 512);
        Future<?> writer;
        Future<byte[]> reader;
        Future<?> drainer;
        try {
            writer = runner.io().submit(() -> write(process.getOutputStream(), input));
            reader = runner.io().submit(() -> read(process));
            drainer = runner.io().submit(() -> stderr.drain(process.getErrorStream()));
        } catch (RejectedExecutionException e) { // the node stopped since the process registered: run's finally kills it
            throw runner.failure(target, Reason.ABORTED, -1, "", "was killed: " + runner.node() + " is shutting down");
        }
        boolean exited;
        try {
            exited = process.waitFor(deadline.nanosLeft(), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exited = false;
        }
        if (!exited) {
            outcome.cpu = ProcessTree.cpu(process.toHandle()); // read while the tree is alive: it is all there is
        }
        ProcessTree.kill(process, ProcessRunner.KILL_WAIT); // also what it left running in the background
        killed = true;
        long drainBy = System.nanoTime() + DRAIN_WAIT.toNanos(); // one wait for both pipes, not one each
        byte[] output = finish(reader, process.getInputStream(), drainBy);
        finish(drainer, process.getErrorStream(), drainBy);
        writer.cancel(true);
        String err = stripStat(stderr.text());
        if (runner.isAborted()) {
            throw runner.failure(target, Reason.ABORTED, -1, err, "was killed: " + runner.node() + " is shutting down");
        }
        if (overflow.get()) {
            throw runner.failure(target, Reason.OUTPUT_TOO_LARGE, -1, err, "wrote more than "
                    + runner.config().maxOutputBytes() + " bytes to stdout (max-output) and was killed");
        }
        if (!exited) {
            throw runner.failure(target, Reason.TIMEOUT, -1, err, "was still running at " + deadline.what()
                    + " and was killed with its process group");
        }
        int exitCode = process.exitValue();
        if (exitCode != 0) {
            throw runner.failure(target, Reason.EXIT, exitCode, err, "failed");
        }
        if (output == null) { // an empty answer here would read as a success that said nothing
            throw runner.failure(target, Reason.UNFINISHED_OUTPUT, -1, err, "exited, but its stdout did not end within "
                    + DRAIN_WAIT.toSeconds() + " s: a process it started outside its process group (setsid, a daemon)"
                    + " holds it open and was left running");
        }
        return new ProcessResponse(new String(output, StandardCharsets.UTF_8), err, outcome.cpu.toNanos() / 1000);
    }

    private static void write(OutputStream stdin, byte[] input) {
        try (stdin) {
            stdin.write(input);
        } catch (IOException e) {
            // the program exited or closed stdin without reading all of it: its answer says what that means
        }
    }

    /** Reads stdout up to the limit; beyond it, samples the CPU time and kills the tree. */
    private byte[] read(Process process) {
        int limit = runner.config().maxOutputBytes();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] chunk = new byte[8192];
        try (InputStream stdout = process.getInputStream()) {
            for (int n; (n = stdout.read(chunk)) >= 0; ) {
                if (out.size() + n > limit) {
                    overflow.set(true);
                    outcome.cpu = ProcessTree.cpu(process.toHandle());
                    ProcessTree.kill(process, ProcessRunner.KILL_WAIT);
                    break;
                }
                out.write(chunk, 0, n);
            }
        } catch (IOException e) {
            // killed or closed: what arrived is what there is
        }
        return out.toByteArray();
    }

    /**
     * Waits until {@code byNanos} for a pump to reach its stream's end and returns what it read; null
     * if it did not get there (a process that escaped the group still holds the pipe: our end is
     * closed and the pump given up on) or failed.
     */
    private static byte @Nullable [] finish(Future<?> pump, java.io.Closeable stream, long byNanos) {
        try {
            Object result = pump.get(Math.max(0, byNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            return result instanceof byte[] bytes ? bytes : new byte[0];
        } catch (TimeoutException e) {
            try {
                stream.close();
            } catch (IOException ignored) {
                // nothing more to do
            }
            pump.cancel(true);
            return null;
        } catch (ExecutionException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Removes the wrapper's stat line and, from it, records the CPU time of the program's whole run. */
    private String stripStat(String stderr) {
        int marker = stderr.lastIndexOf(STAT_MARKER);
        if (marker < 0) {
            return stderr.substring(Math.max(0, stderr.length() - ProcessFailedException.STDERR_TAIL_BYTES));
        }
        int lineEnd = stderr.indexOf('\n', marker);
        Optional<Duration> cpu = ProcessTree.cpuOfStat(stderr.substring(marker + STAT_MARKER.length(),
                lineEnd < 0 ? stderr.length() : lineEnd));
        cpu.ifPresent(c -> outcome.cpu = c);
        int start = marker > 0 && stderr.charAt(marker - 1) == '\n' ? marker - 1 : marker;
        return stderr.substring(Math.max(0, start - ProcessFailedException.STDERR_TAIL_BYTES), start);
    }
}
