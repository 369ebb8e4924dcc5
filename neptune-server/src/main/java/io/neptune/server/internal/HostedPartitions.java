package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NeptuneException;
import io.neptune.core.NodeId;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.ServiceLifecycle;
import io.neptune.core.Snapshottable;
import io.neptune.server.HostingConfig;
import java.time.Duration;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which partitions of one service this node hosts now: the config's {@code partitions:} until an
 * operator's placement change ({@code docs/protocols/placement.md}) sets them, the gate every call
 * of a partition passes ({@link PartitionGate}), and the service's
 * {@link ServiceLifecycle#partitionAdded}/{@link ServiceLifecycle#partitionRemoved} callbacks around
 * a change.
 *
 * <p>Thread-safety: thread-safe; {@link #place} and the callbacks run on the node's placement thread.
 */
public final class HostedPartitions {
    private static final Logger logger = LoggerFactory.getLogger(HostedPartitions.class);

    private final NodeId node;
    private final ServiceDescriptor descriptor;
    private final HostingConfig hosting;
    private final Object instance;
    private final PartitionGate gate;
    /** The hosted partitions an operator's placement change set ({@link PlacementStore}), or null: the config's. */
    private volatile @Nullable Set<Integer> placed;

    /**
     * Checks {@code hosting}'s partitions and priorities against {@code descriptor}.
     *
     * @throws IllegalArgumentException if it names a partition the service does not have, or gives a
     *     priority for one it does not host
     */
    HostedPartitions(NodeId node, ServiceDescriptor descriptor, HostingConfig hosting, Object instance) {
        this.node = requireNonNull(node, "node");
        this.descriptor = requireNonNull(descriptor, "descriptor");
        this.hosting = requireNonNull(hosting, "hosting");
        this.instance = requireNonNull(instance, "instance");
        this.gate = new PartitionGate(descriptor.partitions(), this::hosts, p -> node + " does not host "
                + descriptor.name() + "#" + p);
        for (int partition : hosting.partitions()) {
            checkExists(partition);
        }
        for (int partition : hosting.priorities().keySet()) {
            if (!hosting.hosts(partition, descriptor.partitions())) {
                throw new IllegalArgumentException(descriptor.name() + " priority for partition " + partition
                        + " (expected: a hosted partition, " + (hosting.allPartitions() ? "0.."
                                + (descriptor.partitions() - 1) : hosting.partitions()) + ")");
            }
        }
    }

    /** Whether {@code partition} is hosted here. */
    public boolean hosts(int partition) {
        Set<Integer> p = placed;
        return p != null ? p.contains(partition) : hosting.hosts(partition, descriptor.partitions());
    }

    /** The partitions hosted here now, in order. */
    public SortedSet<Integer> hosted() {
        Set<Integer> p = placed;
        if (p != null) {
            return new TreeSet<>(p);
        }
        SortedSet<Integer> hosted = new TreeSet<>();
        for (int partition = 0; partition < descriptor.partitions(); partition++) {
            if (hosting.hosts(partition, descriptor.partitions())) {
                hosted.add(partition);
            }
        }
        return hosted;
    }

    /**
     * Hosts exactly {@code partitions} from now on, overriding the config's {@code partitions:}; the
     * service's {@link io.neptune.core.ServiceEnvironment#partitions()} says so at once. A partition
     * added here must have been prepared with {@link #partitionAdded} first; one dropped refuses
     * calls from now on and is released with {@link #partitionRemoved}.
     */
    public void place(Set<Integer> partitions) {
        for (int partition : partitions) {
            checkExists(partition);
        }
        placed = Set.copyOf(partitions);
    }

    /**
     * Tells the service that an operator placed {@code partition} on this node while it runs
     * ({@link ServiceLifecycle#partitionAdded}), on the calling thread (the node's placement
     * thread), before {@link #place} hosts it and anything of it runs here.
     *
     * @throws NeptuneException with code NEP-PLACE-008 if the service threw: it does not want the
     *     partition, and the caller must not host it
     */
    public void partitionAdded(int partition) {
        checkExists(partition);
        if (hosts(partition)) {
            throw new IllegalStateException(descriptor.name() + "#" + partition + " is hosted already");
        }
        if (!(instance instanceof ServiceLifecycle lifecycle)) {
            return;
        }
        try {
            lifecycle.partitionAdded(partition);
        } catch (RuntimeException e) {
            logger.warn("{}: {}.partitionAdded({}) threw; not hosting the partition", node, descriptor.name(),
                    partition, e);
            throw new NeptuneException("NEP-PLACE-008 " + node + ": " + descriptor.name() + ".partitionAdded("
                    + partition + ") threw " + e + "; the partition is not hosted there", e);
        }
    }

    /**
     * Tells the service that {@code partition}, which {@link #place} no longer hosts, left this node
     * ({@link ServiceLifecycle#partitionRemoved}), on the calling thread, once no call of it runs:
     * waits up to {@code wait} for the running ones. Returns whether the service was told; if calls
     * still ran, or the service threw, the node logs why.
     */
    public boolean partitionRemoved(int partition, Duration wait) throws InterruptedException {
        if (hosts(partition)) {
            throw new IllegalStateException(descriptor.name() + "#" + partition + " is still hosted (expected: placed"
                    + " without it first)");
        }
        if (!gate.awaitIdle(partition, wait)) {
            logger.warn("{}: {} call(s) of {}#{} still run {} ms after it left this node; not calling"
                    + " partitionRemoved() under them", node, gate.running(partition), descriptor.name(), partition,
                    wait.toMillis());
            return false;
        }
        if (!(instance instanceof ServiceLifecycle lifecycle)) {
            return true;
        }
        try {
            lifecycle.partitionRemoved(partition);
            return true;
        } catch (RuntimeException e) {
            logger.warn("{}: {}.partitionRemoved({}) threw; the partition left this node regardless", node,
                    descriptor.name(), partition, e);
            return false;
        }
    }

    /** Counts a call of {@code partition} in and returns true, or returns false if it is not hosted here. */
    boolean tryEnter(int partition) {
        return gate.enter(partition);
    }

    /**
     * Counts a call of {@code partition} in.
     *
     * @throws NeptuneException if the partition is not hosted here (any more)
     */
    void enter(int partition) {
        if (!gate.enter(partition)) {
            throw new NeptuneException(gate.notHosted(partition));
        }
    }

    /** Counts a call that entered out. */
    void exit(int partition) {
        gate.exit(partition);
    }

    /** Why a call of {@code partition} was refused. */
    String notHosted(int partition) {
        return gate.notHosted(partition);
    }

    /** {@code snapshots} behind the gate: each call runs only while its partition is hosted here. */
    Snapshottable gated(Snapshottable snapshots) {
        return gate.snapshots(snapshots);
    }

    private void checkExists(int partition) {
        if (partition < 0 || partition >= descriptor.partitions()) {
            throw new IllegalArgumentException(descriptor.name() + " partition: " + partition + " (expected: 0.."
                    + (descriptor.partitions() - 1) + ")");
        }
    }
}
