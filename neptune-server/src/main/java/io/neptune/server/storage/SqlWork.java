package io.neptune.server.storage;

import java.sql.Connection;
import java.sql.SQLException;
import org.jspecify.annotations.Nullable;

/**
 * Database work run by {@link PartitionDatabase} on a connection it owns.
 *
 * <p>The work uses the connection only for the duration of {@link #apply}; it must not commit,
 * roll back, change auto-commit or close it: {@link PartitionDatabase} does that.
 *
 * @param <T> the result type
 */
@FunctionalInterface
public interface SqlWork<T extends @Nullable Object> {
    /**
     * Runs the work.
     *
     * @param connection a connection inside a transaction that {@link PartitionDatabase} ends
     * @return the result handed back to the caller
     * @throws SQLException on a database error; it rolls the transaction back
     */
    T apply(Connection connection) throws SQLException;
}
