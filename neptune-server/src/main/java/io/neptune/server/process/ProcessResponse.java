package io.neptune.server.process;

import static java.util.Objects.requireNonNull;

/**
 * What a successful run of a process-backed service's program answered. Immutable.
 *
 * @param output what the program wrote to stdout (per request) or in its response frame (warm), as
 *     UTF-8; malformed bytes become U+FFFD
 * @param stderr the last {@value ProcessFailedException#STDERR_TAIL_BYTES} bytes (or fewer) the program
 *     wrote to stderr during a per-request run; empty in warm mode, where stderr is only reported
 *     when the process fails
 * @param cpuMicros CPU time (user + system) the run took in the program and its descendants, in
 *     microseconds, at the kernel's clock-tick resolution (usually 10 ms); what the call was charged
 */
public record ProcessResponse(String output, String stderr, long cpuMicros) {
    /** Validates the fields. */
    public ProcessResponse {
        requireNonNull(output, "output");
        requireNonNull(stderr, "stderr");
        if (cpuMicros < 0) {
            throw new IllegalArgumentException("cpuMicros: " + cpuMicros + " (expected: >= 0)");
        }
    }
}
