package io.neptune.server.storage;

import static io.neptune.server.storage.TestTable.execute;
import static io.neptune.server.storage.TestTable.insert;
import static io.neptune.server.storage.TestTable.rowCount;
import static io.neptune.server.storage.TestTable.update;
import static io.neptune.server.storage.TestTable.value;
import static io.neptune.server.storage.TestTable.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The LSN record kept with each write, reads, digests and the open/close lifecycle. */
class PartitionDatabaseTest {
    private static final String ROWS = "SELECT k, v FROM t WHERE p = ? ORDER BY k";

    @TempDir
    Path directory;

    private final List<PartitionDatabase> opened = new ArrayList<>();
    private PartitionDatabase database;

    @BeforeEach
    void openDatabase() {
        database = open(directory, "test");
    }

    @AfterEach
    void closeDatabases() {
        opened.forEach(PartitionDatabase::close);
    }

    private PartitionDatabase open(Path in, String name) {
        PartitionDatabase db = TestTable.open(in, name);
        opened.add(db);
        return db;
    }

    // ---------------------------------------------------------------- writes and the LSN record

    @Test
    void writeCommitsDataAndLsnTogether() {
        String result = database.write(write(3, 1), connection -> {
            insert(connection, 3, "a", "1");
            return "done";
        });

        assertThat(result).isEqualTo("done");
        assertThat(value(database, 3, "a")).isEqualTo("1");
        assertThat(database.appliedLsn(3)).isEqualTo(1);
        assertThat(database.appliedLsn(2)).isZero();
        assertThat(database.isApplied(3, 1)).isTrue();
        assertThat(database.isApplied(3, 2)).isFalse();
        assertThat(database.isApplied(2, 1)).isFalse();
    }

    /**
     * A database file H2 finds corrupted (a machine crash can leave one half written) is moved aside
     * and replaced by an empty one: CHECK then says nothing was applied, and the replicas execute
     * their REDO logs again from the first write.
     */
    @Test
    void aCorruptedFileIsMovedAsideAndTheDatabaseStartsEmpty() throws Exception {
        Path in = directory.resolve("damaged");
        PartitionDatabase first = open(in, "kv");
        for (int lsn = 1; lsn <= 500; lsn++) {
            String key = "k" + lsn;
            first.write(write(0, lsn), connection -> insert(connection, 0, key, "x".repeat(60)));
        }
        first.close();
        Path file = in.resolve("kv.mv.db");
        byte[] bytes = Files.readAllBytes(file);
        new java.util.Random(7).nextBytes(bytes);
        Files.write(file, bytes);

        PartitionDatabase reopened = open(in, "kv");

        assertThat(reopened.appliedLsn(0)).isZero();
        assertThat(reopened.isApplied(0, 1)).isFalse();
        reopened.write(write(0, 1), connection -> insert(connection, 0, "k1", "again"));
        assertThat(value(reopened, 0, "k1")).isEqualTo("again");
        try (var names = Files.list(in)) {
            assertThat(names.map(p -> p.getFileName().toString())).anyMatch(n -> n.startsWith("kv.mv.db.damaged-"));
        }
    }

    @Test
    void appliedLsnIsTheHighestWrittenAndGapsAreAllowed() {
        database.write(write(0, 1), connection -> insert(connection, 0, "a", "1"));
        database.write(write(0, 2), connection -> insert(connection, 0, "b", "2"));
        database.write(write(0, 7), connection -> insert(connection, 0, "c", "3"));

        assertThat(database.appliedLsn(0)).isEqualTo(7);
        assertThat(database.isApplied(0, 5)).isTrue();
        assertThat(database.isApplied(0, 7)).isTrue();
        assertThat(database.isApplied(0, 8)).isFalse();
    }

    @Test
    void workThatThrowsLeavesNeitherDataNorLsn() {
        database.write(write(1, 1), connection -> insert(connection, 1, "kept", "1"));
        IllegalStateException failure = new IllegalStateException("boom");

        assertThatThrownBy(() -> database.write(write(1, 2), connection -> {
            insert(connection, 1, "lost", "2");
            throw failure;
        })).isSameAs(failure);

        assertThat(value(database, 1, "lost")).isNull();
        assertThat(value(database, 1, "kept")).isEqualTo("1");
        assertThat(database.appliedLsn(1)).isEqualTo(1);
        assertThat(database.isApplied(1, 2)).isFalse();
    }

    @Test
    void sqlFailureIsWrappedAndRolledBack() {
        database.write(write(1, 1), connection -> insert(connection, 1, "a", "1"));

        assertThatThrownBy(() -> database.write(write(1, 2), connection -> {
            insert(connection, 1, "b", "2");
            return insert(connection, 1, "a", "duplicate key");
        }))
                .isInstanceOf(StorageException.class)
                .hasCauseInstanceOf(SQLException.class)
                .hasMessageContaining("write of partition 1 lsn 2 failed")
                .satisfies(e -> assertThat(((StorageException) e).sqlState()).contains("23505"));

        assertThat(value(database, 1, "b")).isNull();
        assertThat(database.appliedLsn(1)).isEqualTo(1);
    }

    @Test
    void repeatedLsnIsRefusedWithoutRunningTheWork() {
        database.write(write(4, 5), connection -> insert(connection, 4, "a", "1"));
        AtomicBoolean ran = new AtomicBoolean();

        assertThatThrownBy(() -> database.write(write(4, 5), connection -> {
            ran.set(true);
            return insert(connection, 4, "b", "2");
        }))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("partition 4 lsn: 5 (expected: > 5, the applied LSN");
        assertThatThrownBy(() -> database.write(write(4, 3), connection -> insert(connection, 4, "c", "3")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("partition 4 lsn: 3 (expected: > 5");

        assertThat(ran).isFalse();
        assertThat(value(database, 4, "b")).isNull();
        assertThat(value(database, 4, "c")).isNull();
        assertThat(database.appliedLsn(4)).isEqualTo(5);
    }

    @Test
    void unreplicatedWriteRecordsNoLsn() {
        database.write(write(2, 0), connection -> insert(connection, 2, "a", "1"));
        database.write(write(2, 0), connection -> insert(connection, 2, "b", "2"));
        database.transaction(connection -> insert(connection, 2, "c", "3"));

        assertThat(value(database, 2, "a")).isEqualTo("1");
        assertThat(value(database, 2, "c")).isEqualTo("3");
        assertThat(database.appliedLsn(2)).isZero();
    }

    @Test
    void badArguments() {
        assertThatThrownBy(() -> database.write(write(0, -1), connection -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lsn: -1 (expected: >= 0)");
        assertThatThrownBy(() -> database.write(write(-2, 1), connection -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partition: -2 (expected: >= 0)");
        assertThatThrownBy(() -> database.isApplied(0, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lsn: 0 (expected: >= 1)");
        assertThatThrownBy(() -> database.appliedLsn(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> PartitionDatabase.open(directory, "a;b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("name: 'a;b' (expected: 1-64 of letters");
        assertThatThrownBy(() -> PartitionDatabase.open(directory, ".hidden"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void writesToDifferentPartitionsRunConcurrently() throws Exception {
        int partitions = 8;
        int writes = 40;
        ExecutorService executor = Executors.newFixedThreadPool(partitions);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                int partition = p;
                futures.add(executor.submit(() -> {
                    for (long lsn = 1; lsn <= writes; lsn++) {
                        long key = lsn;
                        database.write(write(partition, lsn),
                                connection -> insert(connection, partition, "k" + key, "v"));
                    }
                }));
            }
            for (Future<?> future : futures) {
                future.get(60, TimeUnit.SECONDS);
            }
        } finally {
            executor.shutdownNow();
        }

        for (int p = 0; p < partitions; p++) {
            assertThat(database.appliedLsn(p)).isEqualTo(writes);
            assertThat(rowCount(database, p)).isEqualTo(writes);
        }
    }

    @Test
    void racingWritesOfOneLsnApplyItOnce() throws Exception {
        database.write(write(6, 1), connection -> insert(connection, 6, "first", "1"));
        int threads = 6;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            for (long lsn : new long[] {1, 2}) {
                // lsn 1 races on a partition with a record row, lsn 2 on the row a fresh partition lacks.
                int partition = lsn == 1 ? 6 : 7;
                long racedLsn = lsn + 1;
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Boolean>> attempts = new ArrayList<>();
                for (int i = 0; i < threads; i++) {
                    String key = "k" + i;
                    attempts.add(executor.submit(() -> {
                        start.await();
                        try {
                            database.write(write(partition, racedLsn),
                                    connection -> insert(connection, partition, key, "v"));
                            return true;
                        } catch (IllegalStateException | StorageException e) {
                            return false;
                        }
                    }));
                }
                start.countDown();
                int applied = 0;
                for (Future<Boolean> attempt : attempts) {
                    applied += attempt.get(60, TimeUnit.SECONDS) ? 1 : 0;
                }
                assertThat(applied).as("writes of lsn %d on partition %d that succeeded", racedLsn, partition)
                        .isEqualTo(1);
                assertThat(database.appliedLsn(partition)).isEqualTo(racedLsn);
            }
        } finally {
            executor.shutdownNow();
        }
        assertThat(rowCount(database, 6)).isEqualTo(2);
        assertThat(rowCount(database, 7)).isEqualTo(1);
    }

    // ---------------------------------------------------------------- reads

    @Test
    void readSeesCommittedDataAndRollsBackItsChanges() {
        database.write(write(0, 1), connection -> insert(connection, 0, "a", "1"));

        String read = database.read(connection -> {
            insert(connection, 0, "sneaky", "x");
            return value(connection, 0, "a");
        });

        assertThat(read).isEqualTo("1");
        assertThat(value(database, 0, "sneaky")).isNull();
    }

    @Test
    void readFailureIsWrapped() {
        assertThatThrownBy(() -> database.read(connection -> execute(connection, "SELECT * FROM missing")))
                .isInstanceOf(StorageException.class)
                .hasMessageContaining(": read failed: ");
    }

    // ---------------------------------------------------------------- digests

    @Test
    void digestIsEqualForEqualContentAndDifferentOtherwise(@TempDir Path other) {
        PartitionDatabase twin = open(other, "test");
        for (PartitionDatabase db : List.of(database, twin)) {
            db.write(write(0, 1), connection -> insert(connection, 0, "a", "1"));
            db.write(write(0, 2), connection -> insert(connection, 0, "b", null));
        }
        // Other partitions do not count.
        database.write(write(1, 1), connection -> insert(connection, 1, "x", "only here"));

        String digest = database.digest(0, ROWS);
        assertThat(digest).matches("2:[0-9a-f]{64}");
        assertThat(twin.digest(0, ROWS)).isEqualTo(digest);
        assertThat(database.digest(0, ROWS)).as("deterministic").isEqualTo(digest);
        assertThat(database.digest(1, ROWS)).isNotEqualTo(digest);

        twin.write(write(0, 3), connection -> update(connection, 0, "a", "changed"));
        assertThat(twin.digest(0, ROWS)).isNotEqualTo(digest).startsWith("3:");
        database.write(write(0, 3), connection -> update(connection, 0, "a", "changed"));
        assertThat(database.digest(0, ROWS)).isEqualTo(twin.digest(0, ROWS));
    }

    @Test
    void digestIncludesTheAppliedLsn(@TempDir Path other) {
        PartitionDatabase twin = open(other, "test");
        database.write(write(0, 1), connection -> insert(connection, 0, "a", "1"));
        twin.write(write(0, 2), connection -> insert(connection, 0, "a", "1"));

        assertThat(database.digest(0, ROWS)).isNotEqualTo(twin.digest(0, ROWS));
        assertThat(database.digest(0, ROWS).substring(2)).isEqualTo(twin.digest(0, ROWS).substring(2));
    }

    @Test
    void digestSeparatesValuesRowsAndQueries(@TempDir Path other) {
        PartitionDatabase twin = open(other, "test");
        database.write(write(0, 1), connection -> insert(connection, 0, "ab", "c"));
        twin.write(write(0, 1), connection -> insert(connection, 0, "a", "bc"));
        assertThat(database.digest(0, ROWS)).isNotEqualTo(twin.digest(0, ROWS));

        database.write(write(1, 1), connection -> insert(connection, 1, "k", null));
        twin.write(write(1, 1), connection -> insert(connection, 1, "k", ""));
        assertThat(database.digest(1, ROWS)).isNotEqualTo(twin.digest(1, ROWS));

        String keys = "SELECT k FROM t WHERE p = ? ORDER BY k";
        String values = "SELECT v FROM t WHERE p = ? ORDER BY k";
        assertThat(database.digest(0, keys, values)).isNotEqualTo(database.digest(0, values, keys));
        assertThat(database.digest(0, keys)).isNotEqualTo(database.digest(0));
    }

    @Test
    void digestQueryMustTakeThePartition() {
        assertThatThrownBy(() -> database.digest(0, "SELECT k FROM t ORDER BY k"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(
                        "query parameters: 0 in 'SELECT k FROM t ORDER BY k' (expected: 1, the partition)");
        assertThatThrownBy(() -> database.digest(0, "SELECT k FROM t WHERE p = ? AND k = ?"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("query parameters: 2");
    }

    // ---------------------------------------------------------------- lifecycle

    @Test
    void reopenAfterCloseKeepsDataAndLsn() {
        database.write(write(5, 9), connection -> insert(connection, 5, "a", "1"));
        String digest = database.digest(5, ROWS);
        database.close();

        PartitionDatabase reopened = open(directory, "test");

        assertThat(value(reopened, 5, "a")).isEqualTo("1");
        assertThat(reopened.appliedLsn(5)).isEqualTo(9);
        assertThat(reopened.digest(5, ROWS)).isEqualTo(digest);
        assertThat(Files.exists(directory.resolve("test.mv.db"))).isTrue();
    }

    @Test
    void closeIsIdempotentAndLaterCallsFail() {
        database.close();
        database.close();

        assertThat(database.isClosed()).isTrue();
        assertThat(database.toString()).contains("closed");
        assertThatThrownBy(() -> database.appliedLsn(0))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("after close (expected: an open database)");
    }

    @Test
    void openCreatesMissingDirectories() {
        Path nested = directory.resolve("a").resolve("b");

        PartitionDatabase db = open(nested, "nested");

        assertThat(db.appliedLsn(0)).isZero();
        assertThat(Files.isDirectory(nested)).isTrue();
    }
}
