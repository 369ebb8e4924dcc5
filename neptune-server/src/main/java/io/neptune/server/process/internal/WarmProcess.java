package io.neptune.server.process.internal;

import io.neptune.server.process.ProcessFailedException;
import io.neptune.server.process.ProcessFailedException.Reason;
import io.neptune.server.process.ProcessResponse;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One running process of a {@link io.neptune.server.process.ProcessMode#WARM} service and its
 * framing. A request is a frame: the input's length in bytes as ASCII decimal digits, {@code \n},
 * then the input's UTF-8 bytes. The program answers with the same shape, {@code <length>\n<bytes>},
 * or with {@code error <length>\n<bytes>} for a failure it wants reported (it stays running). One
 * request at a time; the process keeps running between requests. Its stderr is drained all the
 * time, and its tail quoted when it fails.
 *
 * <p>A deadline is kept by a watchdog that kills the process group; the blocked read or write then
 * fails and the exchange reports the timeout. Any failure other than an error frame kills the
 * process; the pool starts a new one for a later request.
 *
 * <p>Thread-safety: used by one worker at a time (the pool hands it out); {@link #kill} may come
 * from any thread.
 */
final class WarmProcess {
    private static final Pattern HEADER = Pattern.compile("(error )?(\\d{1,10})");
    private static final int MAX_HEADER = 32;

    private final ProcessRunner runner;
    private final int partition;
    private final Process process;
    private final OutputStream stdin;
    /** How long past the deadline a worker waits for the answer (the watchdog kills at the deadline). */
    private static final long READ_GRACE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final InputStream stdout;
    private final TailBuffer stderr = new TailBuffer(ProcessFailedException.STDERR_TAIL_BYTES);

    WarmProcess(ProcessRunner runner, int partition, Process process) {
        this.runner = runner;
        this.partition = partition;
        this.process = process;
        this.stdin = new BufferedOutputStream(process.getOutputStream());
        this.stdout = new BufferedInputStream(process.getInputStream());
        runner.io().submit(() -> stderr.drain(process.getErrorStream()));
    }

    int partition() {
        return partition;
    }

    Process process() {
        return process;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /**
     * Whether it can take a request now: alive, and nothing on its stdout. Bytes there while it is
     * idle are not an answer to anything (a late frame, a stray newline): the next request would
     * read them as its own answer, and every later one its predecessor's.
     */
    boolean reusable() {
        try {
            return process.isAlive() && stdout.available() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    void kill() {
        ProcessTree.killAndClose(process, ProcessRunner.KILL_WAIT);
    }

    /**
     * Sends {@code input} and reads the answer by {@code deadline}; on any failure but an error frame
     * the process is killed before this throws, and {@link #isAlive()} is false.
     */
    ProcessResponse exchange(String target, byte[] input, ProcessRunner.Deadline deadline,
            ProcessRunner.Outcome outcome) {
        AtomicBoolean timedOut = new AtomicBoolean();
        Duration before = ProcessTree.cpu(process.toHandle());
        ScheduledFuture<?> watchdog = runner.watchdog().schedule(() -> {
            timedOut.set(true);
            outcome.cpu = ProcessTree.cpu(process.toHandle()).minus(before);
            kill();
        }, deadline.nanosLeft(), TimeUnit.NANOSECONDS);
        try {
            stdin.write((input.length + "\n").getBytes(StandardCharsets.US_ASCII));
            stdin.write(input);
            stdin.flush();
            // Read on an I/O thread, wait here until the deadline: the watchdog's kill closes our end of
            // the pipe, but that does not wake a read blocked on it while a process that escaped the group
            // (setsid, a daemon) holds the other end. The reader is then left to that process.
            Future<Frame> reading;
            try {
                reading = runner.io().submit(() -> readFrame(target));
            } catch (RejectedExecutionException e) { // the runner stopped: the node is closing
                throw new IOException("the runner stopped", e);
            }
            Frame frame;
            try {
                frame = reading.get(Math.max(0, deadline.nanosLeft()) + READ_GRACE_NANOS, TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                reading.cancel(true);
                throw broken(target, deadline, true);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof ProcessFailedException failed) {
                    throw failed;
                }
                throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reading.cancel(true);
                throw new IOException("interrupted", e);
            }
            if (!watchdog.cancel(false)) {
                throw new IOException("deadline passed");
            }
            outcome.cpu = ProcessTree.cpu(process.toHandle()).minus(before);
            if (outcome.cpu.isNegative()) {
                outcome.cpu = Duration.ZERO;
            }
            String text = new String(frame.body(), StandardCharsets.UTF_8);
            if (frame.error()) {
                throw runner.failure(target, Reason.ERROR_REPLY, -1, "", "answered an error: " + text);
            }
            return new ProcessResponse(text, "", outcome.cpu.toNanos() / 1000);
        } catch (IOException e) {
            watchdog.cancel(false);
            throw broken(target, deadline, timedOut.get());
        } finally {
            watchdog.cancel(false);
        }
    }

    /** One answer frame: an error frame or not, and its body. */
    private record Frame(boolean error, byte[] body) {}

    /** Reads one frame; kills the process and throws if it is not exactly one well-formed frame. */
    private Frame readFrame(String target) throws IOException {
        String line = readHeader();
        Matcher header = HEADER.matcher(line);
        if (!header.matches()) {
            kill();
            throw runner.failure(target, Reason.PROTOCOL, -1, stderr.text(), "answered '" + line
                    + "' (expected: a frame header '<length>' or 'error <length>') and was killed");
        }
        long length = Long.parseLong(header.group(2));
        if (length > runner.config().maxOutputBytes()) {
            kill();
            throw runner.failure(target, Reason.OUTPUT_TOO_LARGE, -1, stderr.text(), "answered a frame of " + length
                    + " bytes, more than " + runner.config().maxOutputBytes() + " (max-output), and was killed");
        }
        byte[] body = stdout.readNBytes((int) length);
        if (body.length < length) {
            throw new IOException("end of stream inside a frame");
        }
        if (stdout.available() > 0) { // more than one frame: which of them answers this request is unknown
            kill();
            throw runner.failure(target, Reason.PROTOCOL, -1, stderr.text(), "wrote more after its answer frame"
                    + " (expected: exactly one frame per request) and was killed");
        }
        return new Frame(header.group(1) != null, body);
    }

    /** Why the exchange broke off, after killing what is left of the process. */
    private ProcessFailedException broken(String target, ProcessRunner.Deadline deadline, boolean timedOut) {
        boolean exited = false;
        if (!timedOut) {
            try { // it may be exiting by itself: give it a moment to report a code
                exited = process.waitFor(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        kill();
        if (runner.isAborted()) {
            return runner.failure(target, Reason.ABORTED, -1, stderr.text(), "was killed: " + runner.node()
                    + " is shutting down");
        }
        if (timedOut) {
            return runner.failure(target, Reason.TIMEOUT, -1, stderr.text(), "had not answered at " + deadline.what()
                    + " and was killed with its process group");
        }
        if (exited) {
            return runner.failure(target, Reason.EXIT, process.exitValue(), stderr.text(), "exited while serving a"
                    + " request (a warm process must answer every request frame and stay running)");
        }
        return runner.failure(target, Reason.PROTOCOL, -1, stderr.text(), "closed its output inside a frame and was"
                + " killed");
    }

    /** Reads the header line, without its {@code \n}; fails at end of stream or past {@link #MAX_HEADER} bytes. */
    private String readHeader() throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int b; (b = stdout.read()) != '\n'; ) {
            if (b < 0) {
                throw new IOException("end of stream before a frame header");
            }
            if (line.size() >= MAX_HEADER) {
                break;
            }
            line.write(b);
        }
        return line.toString(StandardCharsets.US_ASCII);
    }
}
