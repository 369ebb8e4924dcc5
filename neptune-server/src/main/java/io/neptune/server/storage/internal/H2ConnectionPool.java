package io.neptune.server.storage.internal;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.SQLException;
import org.h2.api.ErrorCode;
import org.h2.jdbcx.JdbcConnectionPool;

/**
 * A bounded pool of connections to one embedded H2 file database (MVStore).
 *
 * <p>Settings: {@code DB_CLOSE_ON_EXIT=FALSE}, because the owner closes the database explicitly
 * and a JVM shutdown hook must not close it under a service that is still stopping; and
 * {@code WRITE_DELAY=0}, so a commit reaches the file system before {@code commit()} returns and
 * survives a crash of the process (not necessarily of the machine: H2 does not fsync each commit).
 *
 * <p>Thread-safety: thread-safe.
 */
public final class H2ConnectionPool implements AutoCloseable {
    private final String url;
    private final JdbcConnectionPool pool;

    private H2ConnectionPool(String url, JdbcConnectionPool pool) {
        this.url = url;
        this.pool = pool;
    }

    /**
     * Opens a pool for the database stored at {@code file} (H2 adds {@code .mv.db}), creating it if
     * missing; the database opens with the first connection and closes with the pool.
     *
     * @param file the database path without extension; must not contain {@code ';'}
     * @param maxConnections connections open at once; more callers wait
     */
    public static H2ConnectionPool open(Path file, int maxConnections) {
        requireNonNull(file, "file");
        String path = file.toAbsolutePath().normalize().toString();
        if (path.indexOf(';') >= 0) {
            throw new IllegalArgumentException("file: " + path + " (expected: no ';')");
        }
        String url = "jdbc:h2:file:" + path + ";DB_CLOSE_ON_EXIT=FALSE;WRITE_DELAY=0";
        JdbcConnectionPool pool = JdbcConnectionPool.create(url, "sa", "");
        pool.setMaxConnections(maxConnections);
        return new H2ConnectionPool(url, pool);
    }

    /** Whether {@code e} says the database file is corrupted (not merely locked or unreachable). */
    public static boolean isCorrupted(SQLException e) {
        return e.getErrorCode() == ErrorCode.FILE_CORRUPTED_1;
    }

    /**
     * Renames the database file of {@code file} (H2 adds {@code .mv.db}) to the same name plus
     * {@code "." + suffix}, keeping it for inspection; returns the new path.
     *
     * @throws UncheckedIOException if it cannot be renamed
     */
    public static Path moveAside(Path file, String suffix) {
        Path database = file.resolveSibling(file.getFileName() + ".mv.db");
        Path aside = database.resolveSibling(database.getFileName() + "." + suffix);
        try {
            return Files.move(database, aside, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot move " + database + " aside to " + aside, e);
        }
    }

    /** Borrows a connection; closing it returns it to the pool. */
    public Connection connection() throws SQLException {
        return pool.getConnection();
    }

    /** Connections currently borrowed. */
    public int activeConnections() {
        return pool.getActiveConnections();
    }

    /** Closes idle connections now and borrowed ones when they are returned; idempotent. */
    @Override
    public void close() {
        pool.dispose();
    }

    @Override
    public String toString() {
        return url;
    }
}
