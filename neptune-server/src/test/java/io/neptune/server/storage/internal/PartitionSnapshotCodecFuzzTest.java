package io.neptune.server.storage.internal;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;

/**
 * Fuzz test of the snapshot codec's restore (docs/SECURITY.md, Fuzzing): a snapshot stream from a
 * peer read into a real in-memory H2 database with a schema, each input in a transaction rolled back
 * after it. The contract of {@link PartitionSnapshotCodec#read}: the snapshot's LSN, or an
 * {@link IllegalArgumentException} (a malformed stream or a refused name), an {@link IOException}
 * (a truncated one) or an {@link SQLException} (a value the local schema refuses); the caller rolls
 * back. Nothing else, and the schema is intact afterwards.
 */
@Timeout(value = 10, unit = TimeUnit.SECONDS) // Jazzer's per-input timeout when fuzzing
class PartitionSnapshotCodecFuzzTest {
    static final int PARTITION = 3;
    private static Connection connection;

    @BeforeAll
    static void open() throws SQLException {
        connection = DriverManager.getConnection("jdbc:h2:mem:");
        try (Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE t(partition_id INT, k VARCHAR(64), v VARCHAR(64),"
                    + " PRIMARY KEY(partition_id, k))");
            statement.execute("CREATE TABLE u(partition_id INT, n BIGINT NOT NULL, d DECIMAL(20, 4), b BOOLEAN,"
                    + " f DOUBLE, bin VARBINARY(64), ts TIMESTAMP, PRIMARY KEY(partition_id, n))");
            statement.execute("CREATE TABLE shared(k INT)");   // no PARTITION_ID: in no snapshot
            statement.execute("CREATE TABLE neptune_applied(partition_id INT PRIMARY KEY, lsn BIGINT)");
            statement.execute("INSERT INTO t VALUES (3, 'a', 'one'), (4, 'c', 'three')");
        }
        connection.setAutoCommit(false);
    }

    @AfterAll
    static void close() throws SQLException {
        connection.close();
    }

    @FuzzTest(maxDuration = "5m")
    void snapshots(byte[] input) throws SQLException {
        try {
            PartitionSnapshotCodec.read(connection, PARTITION, new ByteArrayInputStream(input));
        } catch (IllegalArgumentException | IOException | SQLException refused) {
            // the replica refuses the snapshot and rolls back
        } finally {
            connection.rollback();
        }
        try (Statement statement = connection.createStatement()) {
            statement.executeQuery("SELECT COUNT(*) FROM t, u, shared").close(); // every table still there
        }
    }
}
