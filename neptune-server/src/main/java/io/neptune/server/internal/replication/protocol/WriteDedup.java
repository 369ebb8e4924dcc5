package io.neptune.server.internal.replication.protocol;

import io.neptune.core.NodeId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * What a replica does with a client write whose request id it may have seen before (exactly once per
 * request id, {@code docs/protocols/replication.md}), decided once for every mode: a write answered
 * before is answered the same again; one logged and applied, whose response is no longer cached, is
 * ALREADY_APPLIED at its LSN; one logged but not applied yet is the mode's to handle (a majority
 * leader answers it when it commits, a fail-stop primary joins it to the write in flight or answers
 * IN_DOUBT, a level-1 replica answers IN_DOUBT); any other is a new write.
 */
public sealed interface WriteDedup {
    /** Seen and decided: send {@code response}. */
    record Answer(ResponseMessage response) implements WriteDedup {}

    /** Logged at {@code lsn} and not applied yet: the mode decides. */
    record Logged(long lsn) implements WriteDedup {}

    /** Not seen: a new write. */
    record Unseen() implements WriteDedup {}

    /**
     * Decides for the write with correlation id {@code requestId}, given its cached response (null if
     * none), where the log has it (asked only without a cached response) and how far the replica applied.
     */
    static WriteDedup of(long requestId, @Nullable ResponseMessage cached, Supplier<OptionalLong> loggedAt,
            long applied) {
        if (cached != null) {
            return new Answer(readdressed(cached, requestId));
        }
        OptionalLong lsn = loggedAt.get();
        if (lsn.isEmpty()) {
            return new Unseen();
        }
        return lsn.getAsLong() <= applied ? new Answer(alreadyApplied(requestId, lsn.getAsLong()))
                : new Logged(lsn.getAsLong());
    }

    /**
     * The answer to a write that committed at {@code lsn} and was applied: its response if cached (null:
     * it was applied by an earlier incarnation, or evicted), else ALREADY_APPLIED at {@code lsn}.
     */
    static ResponseMessage committed(long requestId, @Nullable ResponseMessage cached, long lsn) {
        return cached != null ? readdressed(cached, requestId) : alreadyApplied(requestId, lsn);
    }

    /**
     * The WRITE record a primary logs for the new write {@code request}: at the LSN after {@code lastLsn},
     * of {@code epoch}, originating at {@code origin}, the primary that assigned the LSN (with the epoch,
     * the origin tells two logs' records apart).
     */
    static LogRecord record(RequestMessage request, long lastLsn, long epoch, NodeId origin) {
        return new LogRecord(lastLsn + 1, epoch, RecordKind.WRITE, request.id(), origin.value(), 0, request.method(),
                request.payload());
    }

    /** {@code response}, sent to the request with correlation id {@code requestId}. */
    static ResponseMessage readdressed(ResponseMessage response, long requestId) {
        return new ResponseMessage(requestId, response.status(), response.version(), response.payload());
    }

    private static ResponseMessage alreadyApplied(long requestId, long lsn) {
        return new ResponseMessage(requestId, Status.ALREADY_APPLIED, lsn, new byte[0]);
    }
}
