package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNull;

import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.server.LogRetentionConfig;
import io.neptune.server.internal.log.Log;
import io.neptune.server.internal.log.LogRecord;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;
import org.jspecify.annotations.Nullable;

/**
 * Everything a {@link ReplicaCore} is built from, given once: the partition it serves, what it runs
 * on (log, service, peers, executors), and its seams, which a node sets from its configuration and
 * its metrics, and a test or the simulation sets to drive the replica (clock, randomness, where slow
 * work runs, how records reach the log). A core never changes them afterwards.
 *
 * <p>Thread-safety: not thread-safe; built by one thread before the core exists.
 */
final class CoreSetup {
    /** Default for {@link #maxBatchBytes}: half the default frame limit. */
    static final long DEFAULT_MAX_BATCH_BYTES = 2 * 1024 * 1024;

    final String service;
    final int partition;
    final NodeId self;
    @Nullable Log log;
    @Nullable Path directory;
    @Nullable PartitionService app;
    @Nullable Peers peers;
    @Nullable SerialExecutor exec;
    @Nullable ScheduledExecutorService timer;
    LongSupplier clock = System::nanoTime;
    RandomGenerator random = new SplittableRandom();
    @Nullable Executor background;
    BiConsumer<ReplicaRole, ReplicaRole> roleChanged = (from, to) -> { };
    LongConsumer tookOver = nanos -> { };
    BooleanSupplier draining = () -> false;
    @Nullable Function<List<LogRecord>, List<CompletableFuture<Void>>> logAppend;
    long maxBatchBytes = DEFAULT_MAX_BATCH_BYTES;
    Supplier<LogRetentionConfig> retention = () -> LogRetentionConfig.DEFAULT;

    /** The setup of {@code service}'s partition {@code partition} on node {@code self}. */
    CoreSetup(String service, int partition, NodeId self) {
        this.service = requireNonNull(service, "service");
        this.partition = partition;
        this.self = requireNonNull(self, "self");
    }

    /** The partition's REDO log, and the directory where it keeps its other files (snapshots, membership, origin bases). */
    CoreSetup storage(Log log, Path directory) {
        this.log = requireNonNull(log, "log");
        this.directory = requireNonNull(directory, "directory");
        return this;
    }

    /** The partition's service, which applies writes and takes snapshots. */
    CoreSetup app(PartitionService app) {
        this.app = requireNonNull(app, "app");
        return this;
    }

    /** How the replica calls the partition's other replicas. */
    CoreSetup peers(Peers peers) {
        this.peers = requireNonNull(peers, "peers");
        return this;
    }

    /** The executor the replica is confined to, and the node's timer for its deadlines. */
    CoreSetup executors(SerialExecutor exec, ScheduledExecutorService timer) {
        this.exec = requireNonNull(exec, "exec");
        this.timer = requireNonNull(timer, "timer");
        return this;
    }

    /** The replica's clock; {@link System#nanoTime()} unless a test drives it by hand. */
    CoreSetup clock(LongSupplier clock) {
        this.clock = requireNonNull(clock, "clock");
        return this;
    }

    /**
     * The replica's randomness (election jitter), confined to its executor like the rest; a
     * simulation seeds it so that a run can be replayed.
     */
    CoreSetup random(RandomGenerator random) {
        this.random = requireNonNull(random, "random");
        return this;
    }

    /**
     * Where the replica's slow background work runs off its executor (writing a snapshot): a thread per
     * task unless set; a simulation runs it as one of its steps.
     */
    CoreSetup background(Executor background) {
        this.background = requireNonNull(background, "background");
        return this;
    }

    /** Told of every role change, from and to; the node's metrics count them. */
    CoreSetup roleChanged(BiConsumer<ReplicaRole, ReplicaRole> roleChanged) {
        this.roleChanged = requireNonNull(roleChanged, "roleChanged");
        return this;
    }

    /**
     * Told, when this replica takes the primary role over from another, how long ago it last heard
     * from that primary, in nanoseconds: the fail-over as this replica saw it (a metric).
     */
    CoreSetup tookOver(LongConsumer tookOver) {
        this.tookOver = requireNonNull(tookOver, "tookOver");
        return this;
    }

    /** Whether the node drains: its replica neither stands for election nor asks for a handover by priority. */
    CoreSetup draining(BooleanSupplier draining) {
        this.draining = requireNonNull(draining, "draining");
        return this;
    }

    /**
     * How records reach the log: {@link Log#appendAll} unless set. A test may put something in front
     * that refuses chosen records, as the log itself refuses one it cannot take, or that holds their
     * durability back.
     */
    CoreSetup logAppend(Function<List<LogRecord>, List<CompletableFuture<Void>>> logAppend) {
        this.logAppend = requireNonNull(logAppend, "logAppend");
        return this;
    }

    /**
     * The most bytes of records (as their JSON form on the wire estimates them) one replication
     * message carries: a node sets half its frame limit, so a catch-up batch always fits in a frame
     * the receiver accepts.
     */
    CoreSetup maxBatchBytes(long maxBatchBytes) {
        if (maxBatchBytes <= 0) {
            throw new IllegalArgumentException("maxBatchBytes: " + maxBatchBytes + " (expected: > 0)");
        }
        this.maxBatchBytes = maxBatchBytes;
        return this;
    }

    /** How much of the log a checkpoint keeps: the node's {@code log-retention}. */
    CoreSetup retention(LogRetentionConfig retention) {
        requireNonNull(retention, "retention");
        return retention(() -> retention);
    }

    /**
     * As {@link #retention(LogRetentionConfig)}, read at each checkpoint: a test that changes what one
     * replica keeps while it runs.
     */
    CoreSetup retention(Supplier<LogRetentionConfig> retention) {
        this.retention = requireNonNull(retention, "retention");
        return this;
    }

    /** The core this setup describes. */
    ReplicaCore build() {
        return new ReplicaCore(this);
    }
}
