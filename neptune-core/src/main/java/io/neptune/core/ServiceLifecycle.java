package io.neptune.core;

/**
 * Start and stop hooks a service class may implement, for example to open its database in the
 * {@linkplain ServiceEnvironment#dataDirectory() data directory} the node gives it.
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
}
