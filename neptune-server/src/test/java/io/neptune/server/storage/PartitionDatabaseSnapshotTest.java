package io.neptune.server.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.core.RequestContext;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A partition exported from one database and restored into another: same rows, same digest, same applied LSN. */
class PartitionDatabaseSnapshotTest {
    private static final String SCHEMA = "CREATE TABLE IF NOT EXISTS item(partition_id INT, id BIGINT, name VARCHAR(100),"
            + " price DECIMAL(10, 2), weight DOUBLE, data VARBINARY(100), flag BOOLEAN, created TIMESTAMP,"
            + " PRIMARY KEY(partition_id, id))";
    private static final String[] DIGEST = {"SELECT * FROM item WHERE partition_id = ? ORDER BY id"};

    @TempDir
    Path directory;

    private final List<PartitionDatabase> opened = new ArrayList<>();

    @AfterEach
    void close() {
        opened.forEach(PartitionDatabase::close);
    }

    private PartitionDatabase open(String name) {
        PartitionDatabase database = PartitionDatabase.open(directory, name);
        opened.add(database);
        database.transaction(connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute(SCHEMA);
            }
            return null;
        });
        return database;
    }

    private static void insert(PartitionDatabase database, int partition, long lsn, long id, boolean nulls) {
        RequestContext context = TestTable.write(partition, lsn);
        database.write(context, connection -> {
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                insert.setInt(1, partition);
                insert.setLong(2, id);
                insert.setString(3, nulls ? null : "item é " + id);
                insert.setBigDecimal(4, nulls ? null : new java.math.BigDecimal(id + ".25"));
                insert.setObject(5, nulls ? null : id / 3.0);
                insert.setBytes(6, nulls ? null : new byte[] {(byte) id, 0, (byte) 0xff});
                insert.setObject(7, nulls ? null : id % 2 == 0);
                insert.setObject(8, nulls ? null : java.time.LocalDateTime.of(2026, 1, 2, 3, 4, (int) (id % 60)));
                insert.executeUpdate();
            }
            return null;
        });
    }

    @Test
    void aRestoredPartitionHasTheSameRowsDigestAndAppliedLsnAndOtherPartitionsAreUntouched() {
        PartitionDatabase source = open("source");
        for (long lsn = 1; lsn <= 50; lsn++) {
            insert(source, 3, lsn, lsn, lsn % 10 == 0);
        }
        insert(source, 4, 1, 1, false);   // another partition: not in partition 3's snapshot
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(source.writeSnapshot(3, out)).isEqualTo(50);

        PartitionDatabase target = open("target");
        insert(target, 3, 1, 999, false);   // stale rows of the partition: replaced
        insert(target, 5, 7, 1, false);     // another partition: kept
        String otherBefore = target.digest(5, DIGEST);
        target.restoreSnapshot(3, new ByteArrayInputStream(out.toByteArray()), 50);

        assertThat(target.digest(3, DIGEST)).isEqualTo(source.digest(3, DIGEST)).startsWith("50:");
        assertThat(target.appliedLsn(3)).isEqualTo(50);
        assertThat(target.isApplied(3, 50)).isTrue();
        assertThat(target.isApplied(3, 51)).isFalse();
        assertThat(target.digest(5, DIGEST)).isEqualTo(otherBefore);
        insert(target, 3, 51, 51, false);   // writes go on after the snapshot's LSN
        target.force();
        assertThat(target.appliedLsn(3)).isEqualTo(51);
    }

    /** Level 1: a replica numbers the writes in its own order, so it counts a snapshot as applied up to an LSN of its own. */
    @Test
    void aSnapshotCanBeRestoredAtAHigherLsnOfTheReceiversOwn() {
        PartitionDatabase source = open("source");
        insert(source, 3, 7, 7, false);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(source.writeSnapshot(3, out)).isEqualTo(7);

        PartitionDatabase target = open("target");
        target.restoreSnapshot(3, new ByteArrayInputStream(out.toByteArray()), 120);

        assertThat(target.appliedLsn(3)).isEqualTo(120);
        assertThat(target.isApplied(3, 120)).isTrue();
        assertThat(target.isApplied(3, 121)).isFalse();
    }

    /**
     * A write that commits while a snapshot is being taken, after it read its LSN and before it read the
     * tables, is not in it: the snapshot holds exactly the writes up to its LSN. Under H2's REPEATABLE READ
     * each table was read as of its first access, so the snapshot of LSN 50 held write 51 too, and a replica
     * that installed it applied write 51 a second time (PlacementKillIT: a kv_log key violation there; a
     * service without such a key would silently hold the write twice).
     */
    @Test
    void aWriteCommittedWhileASnapshotIsTakenIsNotInIt() throws Exception {
        PartitionDatabase source = open("source");
        for (long lsn = 1; lsn <= 50; lsn++) {
            insert(source, 3, lsn, lsn, false);
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        java.util.concurrent.atomic.AtomicBoolean written = new java.util.concurrent.atomic.AtomicBoolean();
        java.io.OutputStream interleaving = new java.io.FilterOutputStream(out) {
            @Override
            public void write(int b) throws java.io.IOException {
                if (written.compareAndSet(false, true)) {
                    // the snapshot has read its LSN and not yet the table: write 51 commits now, on another thread
                    java.util.concurrent.CompletableFuture.runAsync(() -> insert(source, 3, 51, 51, false)).join();
                }
                super.write(b);
            }
        };
        assertThat(source.writeSnapshot(3, interleaving)).isEqualTo(50);
        assertThat(written).isTrue();
        assertThat(source.appliedLsn(3)).isEqualTo(51);

        PartitionDatabase target = open("target");
        target.restoreSnapshot(3, new ByteArrayInputStream(out.toByteArray()), 50);
        long rows = target.read(connection -> {
            try (Statement count = connection.createStatement();
                    java.sql.ResultSet result = count.executeQuery("SELECT COUNT(*) FROM item WHERE partition_id = 3")) {
                result.next();
                return result.getLong(1);
            }
        });
        assertThat(rows).as("rows in the snapshot of LSN 50").isEqualTo(50);
        insert(target, 3, 51, 51, false);   // the write after the snapshot applies once, as on the source
        assertThat(target.digest(3, DIGEST)).isEqualTo(source.digest(3, DIGEST)).startsWith("51:");
    }

    /**
     * The same for {@link PartitionDatabase#read}: a service that reads its applied LSN and then a table (as
     * {@code KvTestService.get} reports a value with the LSN it was read at) sees the table as of the LSN.
     */
    @Test
    void aReadSeesEveryTableAsOfItsFirstStatement() {
        PartitionDatabase database = open("source");
        for (long lsn = 1; lsn <= 5; lsn++) {
            insert(database, 3, lsn, lsn, false);
        }
        long[] seen = database.read(connection -> {
            long lsn;
            try (Statement select = connection.createStatement();
                    java.sql.ResultSet result = select.executeQuery(
                            "SELECT lsn FROM neptune_applied WHERE partition_id = 3")) {
                result.next();
                lsn = result.getLong(1);
            }
            java.util.concurrent.CompletableFuture.runAsync(() -> insert(database, 3, 6, 6, false)).join();
            try (Statement count = connection.createStatement();
                    java.sql.ResultSet result = count.executeQuery("SELECT COUNT(*) FROM item WHERE partition_id = 3")) {
                result.next();
                return new long[] {lsn, result.getLong(1)};
            }
        });
        assertThat(seen).as("applied LSN and rows read in one read").containsExactly(5, 5);
        assertThat(database.appliedLsn(3)).isEqualTo(6);
    }

    @Test
    void badSnapshotsAreRefusedWithoutChangingAnything() {
        PartitionDatabase source = open("source");
        insert(source, 1, 1, 1, false);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        source.writeSnapshot(1, out);
        byte[] snapshot = out.toByteArray();
        PartitionDatabase target = open("target");
        insert(target, 1, 5, 42, false);
        insert(target, 2, 5, 42, false);
        String before = target.digest(1, DIGEST);

        assertThatThrownBy(() -> target.restoreSnapshot(2, new ByteArrayInputStream(snapshot), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("snapshot partition: 1 (expected: 2)");
        assertThatThrownBy(() -> target.restoreSnapshot(1, new ByteArrayInputStream(snapshot), 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("snapshot lsn: 1 (expected: <= 0)");
        byte[] garbage = snapshot.clone();
        garbage[0] = 'X';
        assertThatThrownBy(() -> target.restoreSnapshot(1, new ByteArrayInputStream(garbage), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("snapshot header");
        byte[] cut = Arrays.copyOf(snapshot, snapshot.length - 5);
        assertThatThrownBy(() -> target.restoreSnapshot(1, new ByteArrayInputStream(cut), 1))
                .isInstanceOf(java.io.UncheckedIOException.class);
        assertThatThrownBy(() -> target.restoreSnapshot(-1, new ByteArrayInputStream(snapshot), 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("partition: -1");
        assertThat(target.digest(1, DIGEST)).isEqualTo(before);
        assertThat(target.appliedLsn(1)).isEqualTo(5);
    }

    @Test
    void aTableWithRowsButNoPartitionColumnCannotBeExported() {
        PartitionDatabase source = open("source");
        source.transaction(connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE shared(k INT)");
                statement.execute("INSERT INTO shared VALUES (1)");
            }
            return null;
        });
        assertThatThrownBy(() -> source.writeSnapshot(0, new ByteArrayOutputStream()))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("SHARED holds rows but has no"
                        + " PARTITION_ID column");
    }
}
