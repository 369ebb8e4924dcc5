package io.neptune.core;

import static java.util.Objects.requireNonNull;

/**
 * Thrown when the node a call reached refused it for who the caller is: its certificate's role
 * may not do what the call asks (docs/SECURITY.md lists what each role may do). The method did
 * not run; no other replica would run it either.
 */
public final class PermissionDeniedException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String target;

    /** Creates the exception for a call of {@code target} that {@code node} refused, for the reason {@code detail}. */
    public PermissionDeniedException(String target, NodeId node, String detail) {
        super(node + " refused " + target + ": " + detail);
        this.target = requireNonNull(target, "target");
    }

    /** The call refused, as {@code service#partition.method}. */
    public String target() {
        return target;
    }
}
