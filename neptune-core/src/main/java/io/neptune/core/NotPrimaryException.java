package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * A level-2 or level-3 write reached a replica that is not its partition's primary; the write did
 * not run there. The client retries at {@link #suggestedPrimary()} at once when the replica knew
 * the primary, else at the primary the yellow page names next, until the call's deadline; this
 * exception is what callers see as the cause of a write that ran out of time doing so.
 */
public final class NotPrimaryException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String target;
    private final NodeId replica;
    private final @Nullable NodeId primary;

    /** Creates the exception for {@code target} refused by {@code replica}, which names {@code primary} if known. */
    public NotPrimaryException(String target, NodeId replica, @Nullable NodeId primary, String detail) {
        super(target + " refused by " + replica + ": not the primary" + (primary == null ? "" : " (primary: "
                + primary + ")") + " (" + detail + ")");
        this.target = requireNonNull(target, "target");
        this.replica = requireNonNull(replica, "replica");
        this.primary = primary;
    }

    /** The write, as {@code service#partition.method}. */
    public String target() {
        return target;
    }

    /** The replica that refused the write. */
    public NodeId replica() {
        return replica;
    }

    /** The primary that replica knew of, if any. */
    public Optional<NodeId> suggestedPrimary() {
        return Optional.ofNullable(primary);
    }
}
