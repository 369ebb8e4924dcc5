package io.neptune.core;

/**
 * Start and stop hooks a service class may implement, for example to open its database in the
 * {@linkplain ServiceEnvironment#dataDirectory() data directory} the node gives it, and hooks for
 * the partitions an operator places on the node or removes from it while it runs.
 *
 * <p>The node calls {@link #start} once, before it calls any method of the service (including
 * {@link Check} and {@link Digest} callbacks during recovery), and {@link #stop} once, after the
 * service's last call has returned. An exception from {@code start} fails the node's start; one from
 * {@code stop} is logged and the node stops regardless. Both run on the thread that starts or
 * closes the node, never on an event loop, and may block.
 *
 * <pre>{@code
 * @NeptuneService(name = "board", partitions = 64, consistency = ConsistencyLevel.LEVEL_2)
 * public final class BoardService implements ServiceLifecycle {
 *     private volatile PartitionDatabase database;
 *
 *     @Override
 *     public void start(ServiceEnvironment environment) {
 *         database = PartitionDatabase.open(environment.dataDirectory(), "board");
 *     }
 *
 *     @Override
 *     public void stop() {
 *         database.close();
 *     }
 * }
 * }</pre>
 *
 * <p>A service on a {@code PartitionDatabase} keeps every partition in rows keyed by partition, so
 * a partition added while the node runs needs nothing from it: the node recovers the partition
 * into those rows ({@link Check}, then a {@link Snapshottable} snapshot or the log). A service
 * that keeps state per partition (a file or an index each) opens it in {@link #start} for
 * {@link ServiceEnvironment#partitions()} and in {@link #partitionAdded} for a partition added
 * later, and closes it in {@link #partitionRemoved} and {@link #stop}.
 */
public interface ServiceLifecycle {
    /**
     * Prepares the service to serve the partitions in {@code environment}; the default does nothing.
     *
     * @param environment where and what this service instance hosts
     */
    default void start(ServiceEnvironment environment) {}

    /** Releases what {@link #start} acquired; the default does nothing. */
    default void stop() {}

    /**
     * Prepares the service to serve {@code partition}, which an operator placed on this node while
     * it runs ({@code admin add-replica} or {@code admin rebalance}); the default does nothing.
     *
     * <p>Called on the node's placement thread ({@code neptune-<node>-placement}), which makes one
     * placement change at a time, never on an event loop; it may block. It comes after
     * {@link #start}, before {@link #stop}, and before anything of the partition runs here: the
     * partition's recovery ({@link Check}, {@link Snapshottable#restoreSnapshot}), its replicated
     * writes and its reads all come after it returned, and so does the partition's appearance in
     * {@link ServiceEnvironment#partitions()}. If it throws, the node does not host the partition
     * and nothing else changed: {@code add-replica} fails with {@code NEP-PLACE-008} and the
     * exception, and may be run again.
     *
     * <p>Partitions the node hosts when it starts, including those an earlier add-replica placed
     * there before a restart, go to {@link #start} only. A level-1 or fail-stop service never gets
     * this call: its placement changes only with the node configs and a restart.
     *
     * @param partition the partition now placed here, {@code >= 0}
     */
    default void partitionAdded(int partition) {}

    /**
     * Releases what the service holds for {@code partition}, which an operator removed from this
     * node while it runs ({@code admin remove-replica} or {@code admin rebalance}); the default does
     * nothing. The partition's data stays (a later add-replica to this node starts from it): close
     * files here, do not delete them.
     *
     * <p>Called on the node's placement thread, after the partition stopped taking calls: it has
     * left {@link ServiceEnvironment#partitions()}, the node refuses its requests, its replica is
     * closed, and no method, {@link Check}, {@link Digest} or {@link Snapshottable} call of the
     * partition runs or starts from then on, until the partition is added again (with
     * {@link #partitionAdded} first). A stream that a method returned earlier may still deliver
     * items. If calls of the partition still run 10 s after it stopped taking new ones, the node
     * logs a warning and does not call this method, as for {@link #stop}. An exception is logged;
     * the partition has left the node regardless.
     *
     * @param partition the partition no longer placed here, {@code >= 0}
     */
    default void partitionRemoved(int partition) {}
}
