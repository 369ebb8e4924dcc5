package io.neptune.core;

import java.time.Duration;

/** Thrown when a call did not complete within its deadline; the method may or may not have run. */
public final class DeadlineExceededException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final Duration deadline;

    /** Creates the exception for a call to {@code target} with {@code deadline}. */
    public DeadlineExceededException(String target, Duration deadline, String detail) {
        super("deadline exceeded: " + target + " after " + deadline.toMillis() + " ms (" + detail + ")");
        this.deadline = deadline;
    }

    /** The deadline the call had. */
    public Duration deadline() {
        return deadline;
    }
}
