package io.neptune.core;

import java.nio.file.Path;
import java.util.Set;

/**
 * What a node tells a hosted service at {@linkplain ServiceLifecycle#start start}: the node it runs
 * on, its private data directory and the partitions it hosts. Thread-safe; {@link #node()} and
 * {@link #dataDirectory()} never change, {@link #partitions()} follows the node's placement.
 */
public interface ServiceEnvironment {
    /**
     * Returns an environment with the given values whose partitions never change, as a test (or a
     * node) creates it.
     *
     * @param node the hosting node
     * @param dataDirectory the service's data directory on that node
     * @param partitions the hosted partition ids, each {@code >= 0}; copied
     */
    static ServiceEnvironment of(NodeId node, Path dataDirectory, Set<Integer> partitions) {
        return new DefaultServiceEnvironment(node, dataDirectory, partitions);
    }

    /** The node hosting the service. */
    NodeId node();

    /**
     * A directory private to this service on this node, created by the node before
     * {@link ServiceLifecycle#start}. It survives restarts of the node, so data written there is
     * what the service recovers from.
     */
    Path dataDirectory();

    /**
     * The ids of the partitions this node hosts now, in ascending order: an immutable copy taken
     * when called. At {@link ServiceLifecycle#start} they are the partitions the node starts with. A
     * partition an operator adds while the node runs ({@code admin add-replica} or
     * {@code admin rebalance}) joins the set after {@link ServiceLifecycle#partitionAdded} returned
     * and before its first call; one removed leaves it before
     * {@link ServiceLifecycle#partitionRemoved} is called.
     */
    Set<Integer> partitions();
}
