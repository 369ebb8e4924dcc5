package io.neptune.server.storage.internal;

import static java.util.Objects.requireNonNull;

import org.jspecify.annotations.Nullable;

/**
 * A run of replicated writes that a replica applies on one thread and that storage may commit
 * together: the replication engine opens one around a slice of in-order applies, and
 * {@link io.neptune.server.storage.PartitionDatabase#write} then runs each write in one open
 * transaction (a savepoint per write) that commits once, at {@link #commit}, instead of one commit
 * per write. With H2's {@code WRITE_DELAY=0} a commit stores every changed page, which was most of
 * the CPU of a catch-up (docs/PERFORMANCE.md, "Catch-up").
 *
 * <p>The replication engine counts a write of the batch as applied only once {@link #commit}
 * returned; if it throws, none of the uncommitted writes is, and they run again. A batch holds at
 * most one member (one database's transaction and write lock): a write to another database commits
 * the first one before it starts, so a thread never waits for a lock while holding another.
 * {@link #close} without {@link #commit} rolls the member back.
 *
 * <p>Thread-safety: confined to the thread that opened it ({@link #current} is a thread-local).
 */
public final class WriteBatch implements AutoCloseable {
    /** One database's part of a batch: an open transaction that commits or rolls back with the batch. */
    public interface Member {
        /** Commits the transaction and releases what it holds; throws an unchecked storage failure. */
        void commit();

        /** Rolls the transaction back and releases what it holds; never throws. */
        void rollBack();
    }

    private static final ThreadLocal<WriteBatch> CURRENT = new ThreadLocal<>();

    private final Thread owner = Thread.currentThread();
    private @Nullable Member member;
    private boolean closed;

    private WriteBatch() {}

    /**
     * Opens a batch on the calling thread.
     *
     * @throws IllegalStateException if the thread has a batch open already
     */
    public static WriteBatch open() {
        if (CURRENT.get() != null) {
            throw new IllegalStateException(Thread.currentThread().getName() + ": a write batch is open already");
        }
        WriteBatch batch = new WriteBatch();
        CURRENT.set(batch);
        return batch;
    }

    /** The batch open on the calling thread, or null. */
    public static @Nullable WriteBatch current() {
        return CURRENT.get();
    }

    /** The member holding an open transaction, or null. */
    public @Nullable Member member() {
        return member;
    }

    /** Makes {@code next} the member, committing the current one first if it is another. */
    public void enlist(Member next) {
        requireNonNull(next, "next");
        checkOpen();
        if (member != next) {
            commit();
            member = next;
        }
    }

    /**
     * Commits the member's transaction, if any; the batch stays open for more writes.
     *
     * @throws RuntimeException the member's storage failure; the member is rolled back then
     */
    public void commit() {
        checkOpen();
        Member committing = member;
        member = null;
        if (committing != null) {
            committing.commit();
        }
    }

    /** Ends the batch; a member not committed is rolled back. Idempotent. */
    @Override
    public void close() {
        checkOwner();
        if (closed) {
            return;
        }
        closed = true;
        Member open = member;
        member = null;
        CURRENT.remove();
        if (open != null) {
            open.rollBack();
        }
    }

    private void checkOpen() {
        checkOwner();
        if (closed) {
            throw new IllegalStateException("write batch closed");
        }
    }

    private void checkOwner() {
        if (Thread.currentThread() != owner) {
            throw new IllegalStateException("write batch of " + owner.getName() + " used on "
                    + Thread.currentThread().getName());
        }
    }
}
