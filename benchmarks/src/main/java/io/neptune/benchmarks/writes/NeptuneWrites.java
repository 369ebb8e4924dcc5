package io.neptune.benchmarks.writes;

import io.neptune.benchmarks.DiscussionCluster;
import io.neptune.benchmarks.writes.KvWriteService.Put;
import io.neptune.benchmarks.writes.KvWriteService.Stored;
import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.FailoverMode;
import io.neptune.core.SecurityConfig;
import io.neptune.server.HostingConfig;
import io.neptune.server.NodeConfig;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.jspecify.annotations.Nullable;

/**
 * Neptune nodes in this JVM on the loopback stack ({@link DiscussionCluster}) hosting
 * {@link KvWriteService} at level 2 in the default {@link FailoverMode#MAJORITY} mode with the
 * default {@link NodeConfig.LogSync#GROUP} log sync, plus a node that hosts nothing and sends the
 * writes. With {@code replicas} nodes each partition has a replica on every node, primaries spread
 * evenly by priority; with one node it is the same service unreplicated (it still logs and forces
 * every write, but propagates nothing). With a TLS provider every node and the sending node require
 * TLS on the request port, each with its own certificate from a development CA.
 *
 * <p>Thread-safety: {@link #put} is thread-safe; start and close from one thread.
 */
final class NeptuneWrites implements WriteTarget {
    private final DiscussionCluster cluster;
    private final String service;
    private final int replicas;
    private final NeptuneHandle handle = NeptuneHandle.create();

    private NeptuneWrites(DiscussionCluster cluster, String service, int replicas) {
        this.cluster = cluster;
        this.service = service;
        this.replicas = replicas;
    }

    /** Starts {@code replicas} nodes hosting every one of {@code partitions} partitions, and the sending node. */
    static NeptuneWrites start(int replicas, int partitions) {
        return start(replicas, partitions, null);
    }

    /** {@link #start(int, int)} with TLS required everywhere on {@code tls}, or plaintext if it is null. */
    static NeptuneWrites start(int replicas, int partitions, SecurityConfig.@Nullable TlsProvider tls) {
        String service = KvWriteService.create(partitions).name();
        DiscussionCluster cluster = DiscussionCluster.start(replicas, replicas, HostingConfig.DEFAULT_WORKERS,
                FailoverMode.MAJORITY, tls, capacity -> List.of(KvWriteService.create(partitions)));
        return new NeptuneWrites(cluster, service, replicas);
    }

    @Override
    public CompletableFuture<?> put(int partition, String key, String value) {
        return cluster.client().callAsync(handle, service, partition, KvWriteService.PUT, AccessMode.WRITE,
                new Put(key, value), Stored.class);
    }

    @Override
    public String durability() {
        if (replicas == 1) {
            return "the primary's REDO log record written and forced (FileChannel.force(false), shared by the"
                    + " appends queued meanwhile: log-sync group) before the write runs and is answered";
        }
        return "the REDO log record written and forced (FileChannel.force(false), group commit: log-sync group)"
                + " on a majority of the " + replicas + " replicas, the primary's own counted only once forced,"
                + " before the primary runs the write and answers";
    }

    @Override
    public void close() {
        cluster.close();
    }
}
