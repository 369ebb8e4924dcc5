package io.neptune.server;

import io.neptune.core.NeptuneException;

/**
 * Thrown when this machine cannot build a {@link NamespaceNetwork}: not root, no iproute2, or the
 * kernel (or a container) refuses network namespaces, bridges or veth pairs. The message says which;
 * a test turns it into a skipped assumption, the nemesis bench into a refusal that says why.
 */
public final class NetworkUnavailableException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    /** Creates the exception with the reason. */
    public NetworkUnavailableException(String reason) {
        super("network namespaces of its own are needed: " + reason);
    }
}
