package io.neptune.server;

import io.neptune.core.FailoverMode;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.internal.Checks;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * How a node hosts one service: which partitions, with what priority, how many workers and how
 * long a queue. Immutable; create with {@link #builder()}.
 *
 * <p>The partitions are the node's initial placement: every partition ({@link #allPartitions()},
 * the default), a chosen set, or none yet, for a node that joins a running cluster to be filled by
 * {@code admin add-replica} or {@code admin rebalance} (majority mode; {@code docs/OPERATIONS.md}).
 * An operator's change recorded in the node's {@code placement.json} overrides them.
 *
 * @param partitions the partition ids hosted from the start when {@code allPartitions} is false;
 *     empty then means none yet (an operator's {@code admin add-replica} or {@code admin rebalance}
 *     places partitions on the node later); empty when {@code allPartitions} is true
 * @param allPartitions whether the node hosts every partition of the service (the default)
 * @param priority static priority of these replicas for primary election; higher wins
 * @param workers worker threads that run the service's methods
 * @param queueCapacity requests that may wait for a worker; beyond it calls are refused as overloaded
 * @param replicas the configured replication degree of the service: how many replicas each
 *     partition has in the cluster; after a total outage a partition waits for this many before it
 *     elects a primary (DESIGN §6.5)
 * @param priorities per-partition priorities that override {@link #priority()}
 * @param failover overrides the service's {@link io.neptune.core.NeptuneService#failover()} on
 *     this node, or {@code null} to keep it; every replica of a partition must use the same mode
 */
public record HostingConfig(SortedSet<Integer> partitions, boolean allPartitions, int priority, int workers, int queueCapacity, int replicas,
        Map<Integer, Integer> priorities, @Nullable FailoverMode failover) {
    /** Default for {@link #priority()}. */
    public static final int DEFAULT_PRIORITY = 0;
    /** Default for {@link #workers()}. */
    public static final int DEFAULT_WORKERS = 8;
    /** Default for {@link #queueCapacity()}. */
    public static final int DEFAULT_QUEUE_CAPACITY = 1024;
    /** The largest {@link #queueCapacity()}. */
    public static final int MAX_QUEUE_CAPACITY = 1_000_000;
    /** Default for {@link #replicas()}. */
    public static final int DEFAULT_REPLICAS = 1;

    /** Validates the fields. */
    public HostingConfig {
        partitions = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(partitions));
        for (int p : partitions) {
            Checks.atLeast("partition", p, 0);
        }
        if (allPartitions && !partitions.isEmpty()) {
            throw new IllegalArgumentException("partitions: " + partitions + " with allPartitions (expected: one of"
                    + " them)");
        }
        Checks.atLeast("workers", workers, 1);
        if (queueCapacity < 1 || queueCapacity > MAX_QUEUE_CAPACITY) { // the queue's array is allocated up front
            throw new IllegalArgumentException("queueCapacity: " + queueCapacity + " (expected: 1.." + MAX_QUEUE_CAPACITY
                    + ")");
        }
        Checks.atLeast("replicas", replicas, 1);
        priorities = Map.copyOf(priorities);
    }

    /** The priority of this node's replica of {@code partition}. */
    public int priorityOf(int partition) {
        return priorities.getOrDefault(partition, priority);
    }

    /** The fail-over mode this node uses for {@code service}: {@link #failover()} if set, else the annotation's. */
    public FailoverMode failoverOf(ServiceDescriptor service) {
        return failover != null ? failover : service.failover();
    }

    /** Hosts every partition with the defaults. */
    public static HostingConfig all() {
        return builder().build();
    }

    /** Returns a builder with every default set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Whether {@code partition} of a service with {@code count} partitions is hosted. */
    public boolean hosts(int partition, int count) {
        return partition >= 0 && partition < count && (allPartitions || partitions.contains(partition));
    }

    /** Mutable, single-use builder; not thread-safe. */
    public static final class Builder {
        private SortedSet<Integer> partitions = new TreeSet<>();
        private boolean allPartitions = true;
        private int priority = DEFAULT_PRIORITY;
        private int workers = DEFAULT_WORKERS;
        private int queueCapacity = DEFAULT_QUEUE_CAPACITY;
        private int replicas = DEFAULT_REPLICAS;
        private Map<Integer, Integer> priorities = Map.of();
        private @Nullable FailoverMode failover;

        private Builder() {}

        /** Sets {@link HostingConfig#failover()}, overriding the service's annotation. */
        public Builder failover(FailoverMode failover) {
            this.failover = Objects.requireNonNull(failover, "failover");
            return this;
        }

        /** Sets {@link HostingConfig#replicas()}. */
        public Builder replicas(int replicas) {
            this.replicas = replicas;
            return this;
        }

        /** Sets {@link HostingConfig#priorities()}. */
        public Builder priorities(Map<Integer, Integer> priorities) {
            this.priorities = priorities;
            return this;
        }

        /**
         * Hosts only {@code partitions} from the start; an empty set hosts none of them until an
         * operator places some here ({@code admin add-replica}, {@code admin rebalance}). Without
         * this call the node hosts every partition.
         */
        public Builder partitions(Iterable<Integer> partitions) {
            this.partitions = new TreeSet<>();
            partitions.forEach(this.partitions::add);
            this.allPartitions = false;
            return this;
        }

        /** Like {@link #partitions(Iterable)}: no argument hosts none of them yet. */
        public Builder partitions(Integer... partitions) {
            return partitions(List.of(partitions));
        }

        /** Hosts every partition of the service, the default; undoes {@link #partitions(Iterable)}. */
        public Builder allPartitions() {
            this.partitions = new TreeSet<>();
            this.allPartitions = true;
            return this;
        }

        /** Sets {@link HostingConfig#priority()}. */
        public Builder priority(int priority) {
            this.priority = priority;
            return this;
        }

        /** Sets {@link HostingConfig#workers()}. */
        public Builder workers(int workers) {
            this.workers = workers;
            return this;
        }

        /** Sets {@link HostingConfig#queueCapacity()}. */
        public Builder queueCapacity(int queueCapacity) {
            this.queueCapacity = queueCapacity;
            return this;
        }

        /** Validates and builds the configuration. */
        public HostingConfig build() {
            return new HostingConfig(partitions, allPartitions, priority, workers, queueCapacity, replicas, priorities,
                    failover);
        }
    }
}
