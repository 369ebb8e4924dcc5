package io.neptune.core;

/**
 * Thrown when a retried write had already been applied, but the replica no longer keeps its
 * response (it restarted since). The write ran exactly once; {@link #version()} says at which version.
 */
public final class AlreadyAppliedException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final long version;

    /** Creates the exception for the write to {@code target} applied at {@code version}. */
    public AlreadyAppliedException(String target, long version) {
        super(target + ": this write (same request id) was already applied at version " + version
                + "; its response is no longer available");
        this.version = version;
    }

    /** The partition version (LSN) at which the write was applied. */
    public long version() {
        return version;
    }
}
