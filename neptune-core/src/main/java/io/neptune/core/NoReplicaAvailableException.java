package io.neptune.core;

import org.jspecify.annotations.Nullable;

/** Thrown when no live replica of a partition could take the call (none known, or all failed). */
public final class NoReplicaAvailableException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String service;
    private final int partition;

    /** Creates the exception; {@code cause} is the last replica's failure, if any. */
    public NoReplicaAvailableException(String service, int partition, String detail, @Nullable Throwable cause) {
        super("no replica available for " + service + "#" + partition + " (" + detail + ")", cause);
        this.service = service;
        this.partition = partition;
    }

    /** The service that was called. */
    public String service() {
        return service;
    }

    /** The partition that was called. */
    public int partition() {
        return partition;
    }
}
