package io.neptune.server.storage;

import io.neptune.server.FakeRequestContext;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The child process of {@link PartitionDatabaseCrashIT}: writes to a {@link PartitionDatabase} and
 * halts the JVM without closing it, the way a crash would.
 *
 * <p>Arguments: {@code <directory> committed <writes>} commits LSNs {@code 1..writes} on partition 0,
 * then halts; {@code <directory> torn} commits LSN 1, then halts in the middle of LSN 2's work after
 * it inserted its rows; {@code <directory> concurrent <partitions> <millis>} has one thread per
 * partition append its next LSNs to the partition's value (as a replica applying writes would) and
 * halts after {@code millis}. Exit status 0 means the halt was reached; anything else is a failure.
 */
final class PartitionDatabaseCrashMain {
    /** The database name in the directory. */
    static final String NAME = "crash";
    /** Rows the torn write inserts before the halt. */
    static final int TORN_ROWS = 1000;

    private PartitionDatabaseCrashMain() {}

    public static void main(String[] args) {
        Path directory = Path.of(args[0]);
        PartitionDatabase database = PartitionDatabase.open(directory, NAME);
        database.transaction(connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS t(p INT, k VARCHAR(64), PRIMARY KEY(p, k))");
                statement.execute("CREATE TABLE IF NOT EXISTS v(p INT PRIMARY KEY, v VARCHAR(1000000))");
            }
            return null;
        });
        switch (args[1]) {
            case "committed" -> {
                int writes = Integer.parseInt(args[2]);
                for (long lsn = 1; lsn <= writes; lsn++) {
                    String key = "k" + lsn;
                    database.write(context(lsn), connection -> insert(connection, key));
                }
            }
            case "torn" -> {
                database.write(context(1), connection -> insert(connection, "k1"));
                database.write(context(2), connection -> {
                    for (int i = 0; i < TORN_ROWS; i++) {
                        insert(connection, "torn" + i);
                    }
                    Runtime.getRuntime().halt(0);
                    return 0;
                });
            }
            case "concurrent" -> {
                int partitions = Integer.parseInt(args[2]);
                for (int p = 0; p < partitions; p++) {
                    int partition = p;
                    Thread writer = new Thread(() -> {
                        for (long lsn = database.appliedLsn(partition) + 1; ; lsn++) {
                            database.write(FakeRequestContext.write("crash", "append", partition, lsn),
                                    connection -> append(connection, partition));
                        }
                    }, "writer-" + p);
                    writer.setDaemon(true);
                    writer.start();
                }
                try {
                    Thread.sleep(Long.parseLong(args[3]));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            default -> throw new IllegalArgumentException("mode: " + args[1]
                    + " (expected: committed, torn or concurrent)");
        }
        Runtime.getRuntime().halt(0);
    }

    private static FakeRequestContext context(long lsn) {
        return FakeRequestContext.write("crash", "put", 0, lsn);
    }

    /** Appends one token to the partition's value and logs a row for it, like a replicated write. */
    private static Integer append(Connection connection, int partition) throws SQLException {
        String current = null;
        try (PreparedStatement select = connection.prepareStatement("SELECT v FROM v WHERE p = ? FOR UPDATE")) {
            select.setInt(1, partition);
            try (var rows = select.executeQuery()) {
                current = rows.next() ? rows.getString(1) : "";
            }
        }
        try (PreparedStatement merge = connection.prepareStatement("MERGE INTO v(p, v) KEY(p) VALUES (?, ?)")) {
            merge.setInt(1, partition);
            merge.setString(2, current + "x");
            merge.executeUpdate();
        }
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t(p, k) VALUES (?, ?)")) {
            insert.setInt(1, partition);
            insert.setString(2, "k" + (current.length() + 1));
            return insert.executeUpdate();
        }
    }

    private static Integer insert(Connection connection, String key) throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t(p, k) VALUES (0, ?)")) {
            insert.setString(1, key);
            return insert.executeUpdate();
        }
    }
}
