package io.neptune.core;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * A replicated service whose partitions can be exported and imported whole: what lets a node drop
 * the old records of a partition's REDO log after a checkpoint, and bring a new or far-behind
 * replica up to date with a snapshot and the log tail instead of the partition's whole history
 * ({@code docs/protocols/replication.md}, "Snapshots").
 *
 * <p>A service on a {@code PartitionDatabase} gets both methods from it:
 *
 * <pre>{@code
 * public final class BoardService implements ServiceLifecycle, Snapshottable {
 *     public long writeSnapshot(int partition, OutputStream out) {
 *         return database.writeSnapshot(partition, out);
 *     }
 *
 *     public void restoreSnapshot(int partition, InputStream in, long lsn) {
 *         database.restoreSnapshot(partition, in, lsn);
 *     }
 *
 *     public void force(int partition) {
 *         database.force();
 *     }
 * }
 * }</pre>
 *
 * <p>A node truncates a partition's log only for a service that is {@code Snapshottable} and has a
 * {@link Check} method (which tells after a restart how far its durable state got); other services
 * keep their whole log, so they can always be rebuilt from it.
 *
 * <p>Thread-safety: {@link #writeSnapshot} may run on any thread while writes of the same partition
 * run (a consistent view is the implementation's job: a database snapshot, say);
 * {@link #restoreSnapshot} runs on the partition's replication thread while no write of the
 * partition runs.
 */
public interface Snapshottable {
    /**
     * Writes {@code partition}'s state to {@code out} as one consistent snapshot, without closing
     * {@code out}, and returns the LSN of the last write the snapshot includes: it must hold exactly
     * the writes up to that LSN.
     *
     * @param partition the partition, {@code >= 0}
     * @param out where the snapshot goes, in a format of the service's choosing
     * @return the LSN of the last write in the snapshot, 0 if none
     * @throws IOException if {@code out} fails
     */
    long writeSnapshot(int partition, OutputStream out) throws IOException;

    /**
     * Replaces {@code partition}'s state with the snapshot in {@code in}, written by
     * {@link #writeSnapshot} on another replica. Afterwards the {@link Check} method must report
     * every write up to {@code lsn} applied and none after it.
     *
     * @param partition the partition, {@code >= 0}
     * @param in the snapshot; not closed by this method
     * @param lsn the LSN {@link #writeSnapshot} returned for it; at consistency level 1, where each
     *     replica numbers the writes in its own order of arrival, an LSN of the receiving replica's
     *     own that is at least that one (the snapshot's state then counts as applied up to it)
     * @throws IOException if {@code in} fails
     */
    void restoreSnapshot(int partition, InputStream in, long lsn) throws IOException;

    /**
     * Forces {@code partition}'s state to stable storage, so that after a power loss the
     * {@link Check} method reports at least the writes it reports now: the node calls it before it
     * drops log records those writes came from. The default does nothing, for a service whose
     * commits are durable when they return.
     *
     * @param partition the partition, {@code >= 0}
     * @throws IOException if the state cannot be forced; no records are dropped then
     */
    default void force(int partition) throws IOException {}
}
