package io.neptune.core;

/**
 * Thrown when a node's scheduler dropped the call from its queue because it could no longer yield
 * anything: by the time a worker would have finished it, its service class's deadline would have
 * passed (dissertation section 4.4, step 1). The method did not run. The client does not retry
 * it: under the overload that caused the drop, another replica would not answer in time either.
 */
public final class RequestDroppedException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String serviceClass;
    private final NodeId node;

    /** Creates the exception for {@code target} of {@code serviceClass}, dropped by {@code node}. */
    public RequestDroppedException(String target, String serviceClass, NodeId node, String detail) {
        super(target + " (class " + serviceClass + ") dropped by " + node + ": " + detail);
        this.serviceClass = serviceClass;
        this.node = node;
    }

    /** The service class the call belonged to. */
    public String serviceClass() {
        return serviceClass;
    }

    /** The node that dropped it. */
    public NodeId node() {
        return node;
    }
}
