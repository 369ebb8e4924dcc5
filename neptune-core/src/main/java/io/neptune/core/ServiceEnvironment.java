package io.neptune.core;

import java.nio.file.Path;
import java.util.Set;

/**
 * What a node tells a hosted service at {@linkplain ServiceLifecycle#start start}: the node it runs
 * on, its private data directory and the partitions it hosts. Immutable.
 */
public interface ServiceEnvironment {
    /**
     * Returns an environment with the given values, as a node (or a test) creates it.
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
     * The ids of the partitions this node hosted when the service started, in ascending order; never
     * changes after start. A partition an operator adds later ({@code admin add-replica} or
     * {@code admin rebalance}) is not in it: create per-partition state on first use, or keep it in
     * rows keyed by partition as {@code PartitionDatabase} does, rather than only here.
     */
    Set<Integer> partitions();
}
