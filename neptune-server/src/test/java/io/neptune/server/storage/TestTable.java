package io.neptune.server.storage;

import io.neptune.server.FakeRequestContext;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.jspecify.annotations.Nullable;

/**
 * The table {@code t(p, k, v)} that the {@link PartitionDatabase} tests write: a key and a value per
 * partition {@code p}, and the statements they run on it.
 */
final class TestTable {
    private TestTable() {}

    /** Opens database {@code name} in {@code directory} and creates {@code t} in it. */
    static PartitionDatabase open(Path directory, String name) {
        PartitionDatabase db = PartitionDatabase.open(directory, name);
        db.transaction(connection -> execute(connection,
                "CREATE TABLE IF NOT EXISTS t(p INT, k VARCHAR(64), v VARCHAR(64), PRIMARY KEY(p, k))"));
        return db;
    }

    /** The context of the replicated write at {@code lsn} of {@code partition}. */
    static FakeRequestContext write(int partition, long lsn) {
        return FakeRequestContext.write("test", "put", partition, lsn);
    }

    static @Nullable Void execute(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(sql);
        }
        return null;
    }

    static Integer insert(Connection connection, int partition, String k, @Nullable String v) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t(p, k, v) VALUES (?, ?, ?)")) {
            insert.setInt(1, partition);
            insert.setString(2, k);
            insert.setString(3, v);
            return insert.executeUpdate();
        }
    }

    static Integer update(Connection connection, int partition, String k, String v) throws SQLException {
        try (PreparedStatement update = connection.prepareStatement("UPDATE t SET v = ? WHERE p = ? AND k = ?")) {
            update.setString(1, v);
            update.setInt(2, partition);
            update.setString(3, k);
            return update.executeUpdate();
        }
    }

    /** The value of {@code k} in {@code partition}, read in a snapshot of {@code db}; null if absent. */
    static @Nullable String value(PartitionDatabase db, int partition, String k) {
        return db.read(connection -> value(connection, partition, k));
    }

    static @Nullable String value(Connection connection, int partition, String k) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement("SELECT v FROM t WHERE p = ? AND k = ?")) {
            select.setInt(1, partition);
            select.setString(2, k);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    /** How many rows {@code partition} has in {@code db}. */
    static long rowCount(PartitionDatabase db, int partition) {
        return db.read(connection -> {
            try (PreparedStatement select = connection.prepareStatement("SELECT COUNT(*) FROM t WHERE p = ?")) {
                select.setInt(1, partition);
                try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                    return rows.getLong(1);
                }
            }
        });
    }
}
