package io.neptune.client.internal;

import io.neptune.core.NeptuneException;
import org.jspecify.annotations.Nullable;

/**
 * A transport failure of one attempt, telling the retry logic whether the method may have run.
 */
final class CallFailure extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final boolean maybeExecuted;

    CallFailure(String message, boolean maybeExecuted, @Nullable Throwable cause) {
        super(message, cause);
        this.maybeExecuted = maybeExecuted;
    }

    CallFailure(String message, boolean maybeExecuted) {
        super(message);
        this.maybeExecuted = maybeExecuted;
    }

    /** False when the request certainly never reached a service queue (e.g. connection refused). */
    boolean maybeExecuted() {
        return maybeExecuted;
    }
}
