package io.neptune.server.process;

/** How a process-backed service maps requests to processes. */
public enum ProcessMode {
    /**
     * A new process per request: the request's input is its stdin, its stdout is the response,
     * exit code 0 means success. For programs that load what they need quickly (BLAST's
     * {@code blastn}); the only mode whose command may take the request's arguments ({@code {args}}).
     */
    PER_REQUEST,
    /**
     * Processes kept running, one request at a time each, fed over stdin and answering on stdout in
     * length-prefixed frames ({@code docs/ARCHITECTURE.md}, "Process model"). For programs with an
     * expensive start (an interpreter, a loaded index) written or wrapped to speak the framing.
     */
    WARM
}
