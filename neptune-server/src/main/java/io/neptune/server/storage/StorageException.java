package io.neptune.server.storage;

import io.neptune.core.NeptuneException;
import java.sql.SQLException;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Thrown when a {@link PartitionDatabase} operation fails in the database; the transaction was
 * rolled back. The cause is the {@link SQLException}.
 */
public final class StorageException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final @Nullable String sqlState;

    /**
     * Creates the exception.
     *
     * @param message what failed, naming the database and, for writes, the partition and LSN
     * @param cause the database error
     */
    public StorageException(String message, SQLException cause) {
        super(message + ": " + cause.getMessage(), cause);
        this.sqlState = cause.getSQLState();
    }

    /**
     * The SQLSTATE of the cause (for example {@code "23505"} for a unique-key violation), if the
     * driver reported one.
     */
    public Optional<String> sqlState() {
        return Optional.ofNullable(sqlState);
    }
}
