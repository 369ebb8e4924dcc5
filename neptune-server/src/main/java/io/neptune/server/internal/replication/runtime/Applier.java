package io.neptune.server.internal.replication.runtime;

import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.storage.StorageException;
import io.neptune.server.storage.internal.WriteBatch;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a replica's logged, durable writes to its service, in LSN order and in storage batches:
 * a write counts as applied (its response remembered, {@link ReplicaCore#applied} raised) only once
 * its batch committed, and a write that fails in storage stops it until a later call applies that
 * write ({@link #storageFailedAt}). The replica's modes decide up to where and when; this only applies.
 *
 * <p>Thread-safety: confined to the partition's serial executor, like its {@link ReplicaCore}.
 */
final class Applier {
    /** The most writes one storage commit covers while applying (see {@link #applyUpTo(long, long)}). */
    static final int APPLY_BATCH = 256;
    private static final Logger logger = LoggerFactory.getLogger(Applier.class);

    private final ReplicaCore core;
    /** The LSN of a write that failed in storage and has not been applied since, or 0. */
    private long storageFailedAt;

    Applier(ReplicaCore core) {
        this.core = core;
    }

    /**
     * Like {@link ReplicaCore#applyUpTo(long)}, but returns once applying took {@code budgetNanos} (after at
     * least one write), so the executor can serve other tasks; {@link ReplicaCore#applied} tells how far it got.
     * The budget runs from the end of the first write, and is at least {@link ApplySlices#window} of
     * how long that write took: it may have waited for its database (a {@code PartitionDatabase} runs
     * one writing transaction at a time, and another partition's batch holds it until it commits).
     * Counting the wait against a fixed slice ended each slice, and its commit, after one write.
     *
     * <p>The writes run in {@link WriteBatch}es of at most {@value #APPLY_BATCH} writes or that window
     * ({@value ApplySlices#APPLY_SLICE_MILLIS} ms at least): a service on a {@code PartitionDatabase}
     * commits each batch once. A write counts as applied (its response cached, {@link ReplicaCore#applied}
     * raised) only when its batch committed; if the commit fails, none of the batch does, and it runs
     * again like a write that failed in storage.
     */
    boolean applyUpTo(long target, long budgetNanos) {
        long limit = Math.min(target, core.durable);
        long start = core.clock.getAsLong();
        boolean any = false;
        boolean ranWrite = false;
        long window = ApplySlices.APPLY_SLICE_NANOS;
        long budget = budgetNanos;
        boolean ok = true;
        List<Executed> batch = new ArrayList<>();
        try (WriteBatch writes = WriteBatch.open()) {
            long batchStart = start;
            long next = core.applied;
            while (next < limit && (!any || core.clock.getAsLong() - start < budget)) {
                long lsn = next + 1;
                LogRecord record = core.log.record(lsn).orElseThrow(() -> new IllegalStateException(
                        core.name + ": log record " + lsn + " missing below the durable mark " + core.durable));
                next = record.lsn();
                any = true;
                if (!record.kind().executes()) {
                    // a repeat's first copy ran (or runs) at a lower LSN; a no-op has no write
                    batch.add(new Executed(record.lsn(), RequestId.NONE, null));
                    continue;
                }
                core.applying = record.lsn();
                ResponseMessage response = core.app.execute(record);
                if (!ranWrite) {
                    ranWrite = true;
                    long now = core.clock.getAsLong();
                    window = ApplySlices.window(now - start);
                    budget = Math.max(budgetNanos, window);
                    start = now;
                    batchStart = now;
                }
                if (response.status() == Status.METHOD_FAILED
                        && response.errorMessage().startsWith(StorageException.class.getName())) {
                    if (commit(writes, batch)) {
                        storageFailed(record.lsn(), response.errorMessage());
                    }
                    ok = false;
                    break;
                }
                batch.add(new Executed(record.lsn(), record.requestId(), response));
                if (batch.size() >= APPLY_BATCH || core.clock.getAsLong() - batchStart >= window) {
                    if (!commit(writes, batch)) {
                        ok = false;
                        break;
                    }
                    batchStart = core.clock.getAsLong();
                }
            }
            ok = ok && commit(writes, batch);
        }
        core.applying = core.applied;
        if (any) {
            core.log.markCommitted(core.applied);
            core.releaseWaiters();
        }
        return ok;
    }

    /**
     * Commits {@code batch}'s writes in storage and counts them as applied; on a storage failure
     * counts none of them (they run again) and returns {@code false}.
     */
    private boolean commit(WriteBatch writes, List<Executed> batch) {
        if (batch.isEmpty()) {
            return true;
        }
        try {
            writes.commit();
        } catch (StorageException e) {
            storageFailed(batch.get(0).lsn(), e.toString());
            batch.clear();
            return false;
        }
        for (Executed executed : batch) {
            if (executed.response() != null) {
                if (storageFailedAt == executed.lsn()) {
                    logger.info("{}: the write at LSN {} applied after failing in storage before", core.name,
                            executed.lsn());
                    storageFailedAt = 0;
                }
                core.remember(executed.requestId(), executed.response());
            }
            core.applied = executed.lsn();
        }
        batch.clear();
        return true;
    }

    private void storageFailed(long lsn, String error) {
        if (storageFailedAt != lsn) {
            storageFailedAt = lsn;
            logger.error("{}: [NEP-STORE-001] the write at LSN {} failed in storage, not in the service's logic;"
                    + " this replica stops serving and retries it until it applies (if the database is damaged for"
                    + " good, docs/OPERATIONS.md says how to rebuild the replica from its peers): {}", core.name, lsn,
                    error);
        } else {
            logger.debug("{}: the write at LSN {} failed in storage again: {}", core.name, lsn, error);
        }
    }

    /** A write executed in the current batch, not counted as applied until the batch commits. */
    private record Executed(long lsn, RequestId requestId, @Nullable ResponseMessage response) {}

    /** The LSN of a write that failed in storage and has not been applied since, or 0. */
    long storageFailedAt() {
        return storageFailedAt;
    }

    /** The replica now holds a snapshot's state: a write that failed in storage before is not to be retried. */
    void installed() {
        storageFailedAt = 0;
    }
}
