package io.neptune.core;

import static java.util.Objects.requireNonNull;

/**
 * A write reached the primary of a {@link FailoverMode#MAJORITY majority-mode} partition that
 * cannot hear from a majority of the partition's replicas (a network split or paused replicas): it
 * refused the write, which did not run. The client retries until its deadline, since a new primary
 * on the majority side is usually elected within about a second; this exception reports that no
 * such primary answered in time. Safe to retry.
 */
public final class NoMajorityException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String target;
    private final NodeId node;

    /** Creates the exception for {@code target} refused by the primary on {@code node}. */
    public NoMajorityException(String target, NodeId node, String detail) {
        super(target + " refused by " + node + ": the primary has no majority (" + detail + "); the write did not run");
        this.target = requireNonNull(target, "target");
        this.node = requireNonNull(node, "node");
    }

    /** The write, as {@code service#partition.method}. */
    public String target() {
        return target;
    }

    /** The primary that refused the write. */
    public NodeId node() {
        return node;
    }
}
