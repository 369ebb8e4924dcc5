package io.neptune.server.internal.replication.runtime;

import io.neptune.core.Snapshottable;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.LogRecord;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A service that records what it ran; its CHECK answers from that record. While
 * {@link #failStorage} is set, every write fails in storage. If made with snapshots, it is
 * {@link Snapshottable}: a snapshot is the list of methods it ran.
 */
final class RecordingService implements PartitionService, Snapshottable {
    final Set<Long> executed = ConcurrentHashMap.newKeySet();
    final List<String> methods = new CopyOnWriteArrayList<>();
    /** Digests computed: a status answer computes one unless asked not to. */
    private final java.util.concurrent.atomic.AtomicInteger digests = new java.util.concurrent.atomic.AtomicInteger();
    volatile boolean failStorage;
    private final boolean snapshots;
    /** Every LSN up to this one counts as applied: the snapshot restored last held them. */
    private volatile long restoredUpTo;
    /** The state as of the last {@link #force}: what a power loss leaves of this store (null: nothing). */
    private volatile @Nullable Durable forced;

    private record Durable(List<String> methods, Set<Long> executed, long restoredUpTo) {}

    RecordingService() {
        this(false);
    }

    RecordingService(boolean snapshots) {
        this.snapshots = snapshots;
    }

    @Override
    public synchronized ResponseMessage execute(LogRecord record) {
        if (failStorage) {
            return ResponseMessage.error(0, Status.METHOD_FAILED, "io.neptune.server.storage.StorageException: disk");
        }
        executed.add(record.lsn());
        methods.add(record.method());
        return ResponseMessage.ok(0, record.lsn(), new byte[0]);
    }

    @Override
    public boolean isApplied(long lsn) {
        return lsn <= restoredUpTo || executed.contains(lsn);
    }

    @Override
    public Optional<Snapshottable> snapshottable() {
        return snapshots ? Optional.of(this) : Optional.empty();
    }

    @Override
    public synchronized long writeSnapshot(int partition, java.io.OutputStream out) throws java.io.IOException {
        long lsn = Math.max(restoredUpTo, executed.stream().mapToLong(Long::longValue).max().orElse(0));
        out.write((lsn + "\n" + String.join("\n", methods)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return lsn;
    }

    @Override
    public synchronized void restoreSnapshot(int partition, java.io.InputStream in, long lsn)
            throws java.io.IOException {
        String[] lines = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n", -1);
        if (Long.parseLong(lines[0]) > lsn) {
            throw new IllegalArgumentException("snapshot lsn: " + lines[0] + " (expected: <= " + lsn + ")");
        }
        methods.clear();
        for (int i = 1; i < lines.length; i++) {
            if (!lines[i].isEmpty()) {
                methods.add(lines[i]);
            }
        }
        executed.clear();
        restoredUpTo = lsn;
    }

    @Override
    public synchronized void force(int partition) {
        forced = new Durable(List.copyOf(methods), Set.copyOf(executed), restoredUpTo);
    }

    /** This store as a power loss leaves it: what it held at its last {@link #force}, the rest lost. */
    synchronized RecordingService afterPowerLoss() {
        RecordingService after = new RecordingService(snapshots);
        Durable durable = forced;
        if (durable != null) {
            after.methods.addAll(durable.methods());
            after.executed.addAll(durable.executed());
            after.restoredUpTo = durable.restoredUpTo();
            after.forced = durable;
        }
        return after;
    }

    @Override
    public boolean hasCheck() {
        return true;
    }

    @Override
    public Optional<String> digest() {
        digests.incrementAndGet();
        return Optional.of(String.join(",", methods));
    }

    /** How many times the digest was computed. */
    int digests() {
        return digests.get();
    }
}
