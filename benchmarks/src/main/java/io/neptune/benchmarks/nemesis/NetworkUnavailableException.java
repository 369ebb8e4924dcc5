package io.neptune.benchmarks.nemesis;

import io.neptune.core.NeptuneException;

/**
 * Thrown when this machine cannot build the bench's namespace network: not root, no iproute2, or
 * the kernel (or a container) refuses network namespaces, bridges or veth pairs. The message says
 * which; a test turns it into a skipped assumption.
 */
public final class NetworkUnavailableException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception with the reason. */
    public NetworkUnavailableException(String reason) {
        super("the nemesis bench needs its own network namespaces: " + reason);
    }
}
