package io.neptune.server.internal.replication.runtime;

import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One hosted partition of a replicated service: the state machine of its consistency level.
 * Implementations confine their state to one serial executor; every method only enqueues.
 */
interface PartitionReplica extends AutoCloseable {
    /** Runs recovery phase 1 (internal sync) and starts taking part in replication. */
    void start();

    /** Handles a client write; {@code reply} gets exactly one response. */
    void write(RequestMessage request, Consumer<ResponseMessage> reply);

    /** Handles a peer-protocol message; {@code reply} gets the reply record, or an exception. */
    void onPeerMessage(String method, Object message, Consumer<Object> reply);

    /**
     * Periodic work: election, recovery, handover, anti-entropy. Runs on the calling thread if the
     * partition is idle ({@link SerialExecutor#runNowOrQueue}), so call it from a pool thread.
     */
    void tick();

    /** The log, service and published state this replica's state machine drives. */
    ReplicaCore core();

    /** The state published in announcements. */
    default ReplicaState state() {
        return core().state();
    }

    /** The version a read that just ran here reports: no lower than any write whose effects it may have seen. */
    default long readVersion() {
        return core().readVersion();
    }

    /** Completes with true once the applied version reaches {@code version}, or false after the timeout. */
    default CompletableFuture<Boolean> awaitVersion(long version, long timeoutMillis) {
        return core().awaitVersion(version, timeoutMillis);
    }

    /**
     * Level 3: whether a read served here now is within the staleness bound even if this replica is
     * cut off from the others ({@code majority} mode); thread-safe. True where nothing is promised.
     */
    default boolean fresh() {
        return true;
    }

    /**
     * Whether an operator's placement change (add-replica, remove-replica) can reach this replica:
     * only {@code majority} mode keeps its replica set in its log; the others take theirs from the
     * node configs (docs/protocols/placement.md).
     */
    default boolean takesPlacementChanges() {
        return false;
    }

    /** The peer-protocol message type of {@code method}, for decoding. */
    Class<?> messageType(String method);

    @Override
    void close();
}
