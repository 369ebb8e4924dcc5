package io.neptune.server.internal.replication.runtime;

import org.jspecify.annotations.Nullable;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.Snapshottable;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.internal.log.LogRecord;
import java.util.Optional;

/** The service seam of replication: one partition of the hosted service. */
interface PartitionService {
    /** Executes {@code record}'s write at its LSN and returns the response (status METHOD_FAILED if it threw). */
    ResponseMessage execute(LogRecord record);

    /** The CHECK callback: whether the write with {@code lsn} was applied. */
    boolean isApplied(long lsn);

    /** Whether the service has a CHECK callback. */
    boolean hasCheck();

    /** The digest callback's answer, if the service has one. */
    Optional<String> digest();

    /** The service's snapshot support, if it has one. */
    /**
     * Why {@code request}'s payload cannot be applied as its method's request, or null: a write is
     * refused with INVALID_REQUEST before it is logged, rather than logged and taking an LSN.
     */
    default @Nullable String undecodable(RequestMessage request) {
        return null;
    }

    default Optional<Snapshottable> snapshottable() {
        return Optional.empty();
    }
}
