package io.neptune.core;

/** Thrown when every replica tried had a full request queue; the method did not run. */
public final class OverloadedException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final NodeId node;

    /** Creates the exception for {@code target} refused by {@code node}. */
    public OverloadedException(String target, NodeId node, String detail) {
        super(target + " refused by " + node + ": overloaded (" + detail + ")");
        this.node = node;
    }

    /** The last node that refused the call. */
    public NodeId node() {
        return node;
    }
}
