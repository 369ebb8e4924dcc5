package io.neptune.server.process;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NeptuneException;
import java.util.OptionalInt;

/**
 * Thrown by a process-backed service when its program did not answer: it exited with a non-zero
 * code, ran past its deadline, wrote more than its output limit, could not start, or broke the warm
 * framing. The program and every process it started are killed before this is thrown. A remote
 * caller sees a {@link io.neptune.core.RemoteMethodException} whose message is this class's name
 * and message: the service and partition, the program, the {@linkplain #reason() reason}, the exit
 * code and the tail of stderr.
 */
public final class ProcessFailedException extends NeptuneException {
    /** How much of the end of a program's stderr is kept and reported, in bytes. */
    public static final int STDERR_TAIL_BYTES = 2048;

    private static final long serialVersionUID = 1L;

    /** Why the run failed. */
    public enum Reason {
        /** The program exited with a non-zero code (or, warm, exited between requests' frames). */
        EXIT,
        /** It ran past the service's {@code timeout} or the call's deadline, and was killed. */
        TIMEOUT,
        /** It wrote more than {@code max-output} bytes, and was killed. */
        OUTPUT_TOO_LARGE,
        /** The operating system could not start it (missing working directory, no such program). */
        START_FAILED,
        /** A warm process answered something that is not a response frame, and was killed. */
        PROTOCOL,
        /** A warm process answered with an error frame; it stays running. */
        ERROR_REPLY,
        /** The node is shutting down; the program was killed. */
        ABORTED,
        /**
         * It exited, but a process it started outside its process group (with {@code setsid}, or a
         * daemon) kept its stdout open, so its answer never ended; that process was left running.
         */
        UNFINISHED_OUTPUT
    }

    private final String program;
    private final Reason reason;
    private final int exitCode;
    private final String stderrTail;

    /**
     * Creates the exception.
     *
     * @param target the service and partition, such as {@code blast#3}
     * @param program the program's name (the command's first element)
     * @param reason why the run failed
     * @param exitCode the exit code, or -1 when the process did not exit by itself
     * @param stderrTail the end of what it wrote to stderr
     * @param detail what happened, in words
     */
    public ProcessFailedException(String target, String program, Reason reason, int exitCode, String stderrTail,
            String detail) {
        super(target + ": program '" + program + "' " + detail + (exitCode >= 0 ? " (exit code " + exitCode + ")" : "")
                + (stderrTail.isBlank() ? "" : "; stderr ends: " + stderrTail.strip()));
        this.program = requireNonNull(program, "program");
        this.reason = requireNonNull(reason, "reason");
        this.exitCode = exitCode;
        this.stderrTail = requireNonNull(stderrTail, "stderrTail");
    }

    /** The program that failed, as the command names it. */
    public String program() {
        return program;
    }

    /** Why it failed. */
    public Reason reason() {
        return reason;
    }

    /** Its exit code, when it exited by itself. */
    public OptionalInt exitCode() {
        return exitCode >= 0 ? OptionalInt.of(exitCode) : OptionalInt.empty();
    }

    /** The end of what it wrote to stderr (at most {@link #STDERR_TAIL_BYTES} bytes, decoded as UTF-8). */
    public String stderrTail() {
        return stderrTail;
    }
}
