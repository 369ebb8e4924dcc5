package io.neptune.server.storage;

import io.neptune.server.storage.internal.WriteBatch;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link WriteBatch}'s open transaction on one {@link PartitionDatabase}: it holds the database's
 * write lock from its start until it commits or rolls back, as a transaction of a single write does.
 *
 * <p>Thread-safety: confined to the batch's thread.
 */
final class BatchTransaction implements WriteBatch.Member {
    private static final Logger logger = LoggerFactory.getLogger(BatchTransaction.class);

    private final PartitionDatabase database;
    private final String name;
    private final Connection connection;
    private final ReentrantLock writeLock;
    /** A rollback to a savepoint failed: what the transaction holds is unknown, so it must not commit. */
    private boolean broken;

    /** Takes over {@code connection} (in a transaction) and {@code writeLock} (held by the caller). */
    BatchTransaction(PartitionDatabase database, String name, Connection connection, ReentrantLock writeLock) {
        this.database = database;
        this.name = name;
        this.connection = connection;
        this.writeLock = writeLock;
    }

    PartitionDatabase database() {
        return database;
    }

    Connection connection() {
        return connection;
    }

    /** Nothing of this transaction may commit: a write in it could not be undone. */
    void markBroken() {
        broken = true;
    }

    /** Undoes the work since {@code savepoint}: a write of the batch that threw. */
    void rollBackTo(Savepoint savepoint, Throwable failure) {
        try {
            connection.rollback(savepoint);
        } catch (SQLException e) {
            broken = true;
            failure.addSuppressed(e);
        }
    }

    @Override
    public void commit() {
        try {
            if (broken) {
                throw new SQLException("a write of the batch could not be rolled back to its savepoint");
            }
            connection.commit();
        } catch (SQLException e) {
            try {
                connection.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw new StorageException(name + ": commit of a batch of writes failed", e);
        } finally {
            end();
        }
    }

    @Override
    public void rollBack() {
        try {
            connection.rollback();
        } catch (SQLException e) {
            logger.warn("{}: rollback of a batch of writes failed", name, e);
        } finally {
            end();
        }
    }

    private void end() {
        try {
            connection.close();
        } catch (SQLException e) {
            logger.warn("{}: cannot return a connection to the pool", name, e);
        } finally {
            writeLock.unlock();
        }
    }
}
