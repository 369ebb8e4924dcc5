package io.neptune.core;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Set;
import java.util.TreeSet;

/** The {@link ServiceEnvironment} a node creates; see {@link ServiceEnvironment#of}. */
record DefaultServiceEnvironment(NodeId node, Path dataDirectory, Set<Integer> partitions)
        implements ServiceEnvironment {
    DefaultServiceEnvironment {
        requireNonNull(node, "node");
        requireNonNull(dataDirectory, "dataDirectory");
        requireNonNull(partitions, "partitions");
        TreeSet<Integer> sorted = new TreeSet<>();
        for (Integer partition : partitions) {
            requireNonNull(partition, "partition");
            if (partition < 0) {
                throw new IllegalArgumentException("partition: " + partition + " (expected: >= 0)");
            }
            sorted.add(partition);
        }
        partitions = Collections.unmodifiableSortedSet(sorted);
    }

    @Override
    public String toString() {
        return "ServiceEnvironment[node=" + node + ", dataDirectory=" + dataDirectory + ", partitions="
                + partitions + "]";
    }
}
