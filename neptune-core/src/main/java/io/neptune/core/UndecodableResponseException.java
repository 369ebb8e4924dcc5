package io.neptune.core;

/**
 * Thrown when a replica answered a call with success but the client could not decode the answer as
 * the response type it asked for: the client and the service disagree on that type (a field the
 * client does not know, say, in a rolling upgrade). The call ran. For a write, {@link #ran()} is true
 * and it ran exactly once, at {@link #version()}, which the session has seen; do not retry it with a
 * new request id, which would run it again.
 */
public final class UndecodableResponseException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final boolean ran;
    private final long version;

    /**
     * Creates the exception for the call to {@code target} answered by {@code replica} at {@code version};
     * {@code write}: whether it was a write (which then ran).
     */
    public UndecodableResponseException(String target, NodeId replica, boolean write, long version, String responseType,
            Throwable cause) {
        super(target + ": " + (write ? "the write ran at version " + version + " on " + replica + ", but its answer"
                : "the answer of " + replica) + " cannot be decoded as " + responseType + " (does the client's"
                + " response type match the service's?): " + cause.getMessage(), cause);
        this.ran = write;
        this.version = version;
    }

    /** Whether the call was a write, which ran (exactly once) although its answer cannot be read. */
    public boolean ran() {
        return ran;
    }

    /** The partition version (LSN) the replica answered at; for a write, the one it ran at. */
    public long version() {
        return version;
    }
}
