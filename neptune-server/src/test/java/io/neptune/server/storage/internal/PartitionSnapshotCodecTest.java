package io.neptune.server.storage.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.server.FakeRequestContext;
import io.neptune.server.storage.PartitionDatabase;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Restores of snapshots a rogue source crafted, through a real H2 {@link PartitionDatabase}: a table or
 * column the local schema lacks is refused with {@code NEP-SNAP-007} before it reaches SQL, and the refused
 * restore changes nothing, also when it is refused after it already replaced a table's rows.
 */
class PartitionSnapshotCodecTest {
    private static final int PARTITION = 3;
    private static final long APPLIED = 5;
    private static final String INJECTION = "x\"); DROP TABLE t;--";

    @TempDir
    Path directory;

    private PartitionDatabase database;

    @BeforeEach
    void open() {
        database = PartitionDatabase.open(directory, "replica");
        database.transaction(connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE t(partition_id INT, k VARCHAR(64), v VARCHAR(64),"
                        + " PRIMARY KEY(partition_id, k))");
                statement.execute("CREATE TABLE u(partition_id INT, n BIGINT, PRIMARY KEY(partition_id, n))");
                statement.execute("CREATE TABLE shared(k INT)");   // no PARTITION_ID: not in any snapshot
                statement.execute("INSERT INTO t VALUES (3, 'a', 'one'), (3, 'b', 'two'), (4, 'c', 'three')");
                statement.execute("INSERT INTO u VALUES (3, 7), (4, 8)");
            }
            return null;
        });
        database.write(FakeRequestContext.write("test", "put", PARTITION, APPLIED), connection -> null);
    }

    @AfterEach
    void close() {
        database.close();
    }

    @Test
    void aRoundTripRestoresThePartitionsRows() {
        List<String> before = state();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(database.writeSnapshot(PARTITION, out)).isEqualTo(APPLIED);
        database.transaction(connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute("DELETE FROM t WHERE partition_id = 3");
                statement.execute("INSERT INTO t VALUES (3, 'z', 'stale')");
            }
            return null;
        });

        database.restoreSnapshot(PARTITION, new ByteArrayInputStream(out.toByteArray()), APPLIED);

        assertThat(state()).isEqualTo(before);
    }

    /** The crafted stream below is well formed: with local names, it restores. */
    @Test
    void aCraftedSnapshotWithLocalNamesRestores() {
        byte[] snapshot = new SnapshotBytes()
                .table("T", "PARTITION_ID", "K", "V").row(PARTITION, "a", "uno").end()
                .table("U", "PARTITION_ID", "N").row(PARTITION, 70).end()
                .bytes();

        database.restoreSnapshot(PARTITION, new ByteArrayInputStream(snapshot), APPLIED);

        assertThat(state()).containsExactly("T 3 a uno", "T 4 c three", "U 3 70", "U 4 8", "applied 5");
    }

    @Test
    void aColumnNameCarryingSqlIsRefusedAndTheTableIsIntact() {
        List<String> before = state();
        byte[] snapshot = new SnapshotBytes()
                .table("T", "PARTITION_ID", "K", INJECTION).row(PARTITION, "a", "evil").end()
                .bytes();

        assertThatThrownBy(() -> database.restoreSnapshot(PARTITION, new ByteArrayInputStream(snapshot), APPLIED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("NEP-SNAP-007 snapshot column of T: '" + INJECTION + "' (expected: ");
        assertThat(state()).isEqualTo(before);
    }

    /**
     * A name that completes the statement, so that H2 runs the one after it: before the names were checked,
     * this dropped table {@code U} (DDL, which H2 commits at once, with the restore's deletes).
     */
    @Test
    void aColumnNameCompletingTheStatementCannotRunAnother() {
        List<String> before = state();
        String column = "V\") VALUES (?, ?, ?); DROP TABLE u; --";
        byte[] snapshot = new SnapshotBytes()
                .table("T", "PARTITION_ID", "K", column).row(PARTITION, "a", "evil").end()
                .bytes();

        assertThatThrownBy(() -> database.restoreSnapshot(PARTITION, new ByteArrayInputStream(snapshot), APPLIED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("NEP-SNAP-007 snapshot column of T: '" + column + "' (expected: ");
        assertThat(state()).isEqualTo(before);
    }

    @Test
    void anUnknownButHarmlessColumnIsRefused() {
        List<String> before = state();
        byte[] snapshot = new SnapshotBytes()
                .table("T", "PARTITION_ID", "K", "COLOUR").row(PARTITION, "a", "red").end()
                .bytes();

        assertThatThrownBy(() -> database.restoreSnapshot(PARTITION, new ByteArrayInputStream(snapshot), APPLIED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("NEP-SNAP-007 snapshot column of T: 'COLOUR' (expected: a column of T:"
                        + " [PARTITION_ID, K, V])");
        assertThat(state()).isEqualTo(before);
    }

    /** Names compare exactly as H2 reports them: {@code v} is not the local column {@code V}. */
    @Test
    void aColumnInAnotherCaseIsRefused() {
        List<String> before = state();
        byte[] snapshot = new SnapshotBytes()
                .table("T", "PARTITION_ID", "K", "v").row(PARTITION, "a", "one").end()
                .bytes();

        assertThatThrownBy(() -> database.restoreSnapshot(PARTITION, new ByteArrayInputStream(snapshot), APPLIED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("NEP-SNAP-007 snapshot column of T: 'v' (expected: ");
        assertThat(state()).isEqualTo(before);
    }

    /**
     * An unknown table, one in another case, one without a {@code PARTITION_ID} column (its rows belong to
     * no partition), and the table of applied LSNs, which a restore writes itself.
     */
    @ParameterizedTest
    @ValueSource(strings = {"NOPE", "t", "SHARED", "NEPTUNE_APPLIED", INJECTION})
    void aTableTheLocalSchemaDoesNotSnapshotIsRefused(String table) {
        List<String> before = state();
        byte[] snapshot = new SnapshotBytes()
                .table(table, "PARTITION_ID", "K").row(PARTITION, 1).end()
                .bytes();

        assertThatThrownBy(() -> database.restoreSnapshot(PARTITION, new ByteArrayInputStream(snapshot), APPLIED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("NEP-SNAP-007 snapshot table: '" + table + "' (expected: a table of schema PUBLIC"
                        + " with a PARTITION_ID column: [T, U])");
        assertThat(state()).isEqualTo(before);
    }

    /**
     * Refused after table {@code T} was already replaced (its old rows deleted, the snapshot's inserted):
     * the whole restore rolls back.
     */
    @Test
    void aRefusalMidStreamRollsBackTheTablesAlreadyRestored() {
        List<String> before = state();
        byte[] snapshot = new SnapshotBytes()
                .table("T", "PARTITION_ID", "K", "V").row(PARTITION, "new", "row").row(PARTITION, "b", "changed").end()
                .table("U", "PARTITION_ID", "COLOUR").row(PARTITION, "red").end()
                .bytes();

        assertThatThrownBy(() -> database.restoreSnapshot(PARTITION, new ByteArrayInputStream(snapshot), APPLIED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("NEP-SNAP-007 snapshot column of U: 'COLOUR' (expected: a column of U:");
        assertThat(state()).isEqualTo(before);
    }

    @Test
    void aColumnNamedTwiceIsRefused() {
        List<String> before = state();
        byte[] snapshot = new SnapshotBytes()
                .table("T", "PARTITION_ID", "K", "K").row(PARTITION, "a", "b").end()
                .bytes();

        assertThatThrownBy(() -> database.restoreSnapshot(PARTITION, new ByteArrayInputStream(snapshot), APPLIED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("NEP-SNAP-007 snapshot column of T: 'K' (expected: each column once)");
        assertThat(state()).isEqualTo(before);
    }

    /** Without {@code PARTITION_ID} the rows would land in no partition, out of reach of later restores. */
    @Test
    void aTableWithoutThePartitionColumnIsRefused() {
        List<String> before = state();
        byte[] snapshot = new SnapshotBytes()
                .table("T", "K", "V").row("orphan", "row").end()
                .bytes();

        assertThatThrownBy(() -> database.restoreSnapshot(PARTITION, new ByteArrayInputStream(snapshot), APPLIED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("NEP-SNAP-007 snapshot columns of T: [K, V] (expected: PARTITION_ID among them)");
        assertThat(state()).isEqualTo(before);
    }

    /** A name a rogue source sends is shown escaped and cut short: it cannot forge log lines or flood them. */
    @Test
    void aRefusedNameIsShownPrintableAndShort() {
        String name = "line\nfake [NEP-REPL-001] " + "y".repeat(500);
        byte[] snapshot = new SnapshotBytes()
                .table("T", "PARTITION_ID", name).row(PARTITION, "a").end()
                .bytes();

        assertThatThrownBy(() -> database.restoreSnapshot(PARTITION, new ByteArrayInputStream(snapshot), APPLIED))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("NEP-SNAP-007 snapshot column of T: 'line\\u000afake [NEP-REPL-001] yyy")
                .hasMessageContaining("...' (" + name.length() + " chars) (expected: ")
                .hasMessageNotContaining("\n");
    }

    /** Every row of {@code T} and {@code U} in every partition, and partition 3's applied LSN. */
    private List<String> state() {
        List<String> rows = database.read(connection -> {
            List<String> read = new ArrayList<>();
            query(connection, "SELECT 'T', partition_id, k, v FROM t ORDER BY partition_id, k", read);
            query(connection, "SELECT 'U', partition_id, n FROM u ORDER BY partition_id, n", read);
            return read;
        });
        rows.add("applied " + database.appliedLsn(PARTITION));
        return rows;
    }

    private static void query(Connection connection, String sql, List<String> rows) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
            int columns = result.getMetaData().getColumnCount();
            while (result.next()) {
                StringBuilder row = new StringBuilder();
                for (int c = 1; c <= columns; c++) {
                    row.append(c == 1 ? "" : " ").append(result.getString(c));
                }
                rows.add(row.toString());
            }
        }
    }

    /** Writes a snapshot stream by hand, in the format {@link PartitionSnapshotCodec} documents. */
    private static final class SnapshotBytes {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        private final DataOutputStream data = new DataOutputStream(bytes);

        SnapshotBytes() {
            io(() -> {
                data.writeInt(0x4E534E50);
                data.writeInt(1);
                data.writeInt(PARTITION);
                data.writeLong(APPLIED);
            });
        }

        SnapshotBytes table(String name, String... columns) {
            io(() -> {
                data.writeByte('T');
                text(name);
                data.writeInt(columns.length);
                for (String column : columns) {
                    text(column);
                }
            });
            return this;
        }

        SnapshotBytes row(Object... values) {
            io(() -> {
                data.writeByte('R');
                for (Object value : values) {
                    if (value instanceof Integer number) {
                        data.writeByte(1);
                        data.writeLong(number);
                    } else {
                        data.writeByte(3);
                        text((String) value);
                    }
                }
            });
            return this;
        }

        SnapshotBytes end() {
            io(() -> data.writeByte('E'));
            return this;
        }

        byte[] bytes() {
            io(() -> data.writeByte('Z'));
            return bytes.toByteArray();
        }

        private void text(String text) throws IOException {
            byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
            data.writeInt(utf8.length);
            data.write(utf8);
        }

        private static void io(IoWork work) {
            try {
                work.run();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    private interface IoWork {
        void run() throws IOException;
    }
}
