package io.neptune.benchmarks.writes;

import java.util.concurrent.CompletableFuture;

/**
 * A running replicated (or unreplicated) key-value store that the experiment writes to.
 *
 * <p>Thread-safety: {@link #put} is thread-safe and must not block; start and close from one thread.
 */
interface WriteTarget extends AutoCloseable {
    /**
     * Stores {@code value} under {@code key} in partition {@code partition}.
     *
     * @return a future completed once the write is committed (durable as {@link #durability()} says)
     *     and applied, or exceptionally if it failed
     */
    CompletableFuture<?> put(int partition, String key, String value);

    /** What this system forces to disk, and where, before it acknowledges a write. */
    String durability();

    /** Stops every node or peer and deletes their data; idempotent. */
    @Override
    void close();
}
