package io.neptune.server.storage;

import static io.neptune.server.storage.TestTable.insert;
import static io.neptune.server.storage.TestTable.value;
import static io.neptune.server.storage.TestTable.write;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.neptune.server.storage.internal.WriteBatch;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replicated writes inside a {@link WriteBatch}, as a replica applies a run of them: one transaction
 * that commits once, with each write's own all-or-nothing and LSN record kept.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PartitionDatabaseBatchTest {
    @TempDir
    Path directory;

    private final List<PartitionDatabase> opened = new ArrayList<>();
    private final ExecutorService other = Executors.newSingleThreadExecutor();
    private PartitionDatabase database;

    @BeforeEach
    void openDatabase() {
        database = open("test");
    }

    @AfterEach
    void close() {
        other.shutdownNow();
        opened.forEach(PartitionDatabase::close);
    }

    private PartitionDatabase open(String name) {
        PartitionDatabase db = TestTable.open(directory, name);
        opened.add(db);
        return db;
    }

    @Test
    void writesOfABatchBecomeVisibleToOthersOnlyWhenItCommits() throws Exception {
        try (WriteBatch batch = WriteBatch.open()) {
            database.write(write(1, 1), connection -> insert(connection, 1, "a", "1"));
            database.write(write(1, 2), connection -> insert(connection, 1, "b", "2"));

            assertThat(onOtherThread(() -> value(database, 1, "a"))).isNull();
            assertThat(onOtherThread(() -> database.appliedLsn(1))).isZero();

            batch.commit();
        }
        assertThat(onOtherThread(() -> value(database, 1, "b"))).isEqualTo("2");
        assertThat(onOtherThread(() -> database.appliedLsn(1))).isEqualTo(2);
    }

    @Test
    void aWriteThatThrowsLeavesNothingAndTheOthersCommit() {
        IllegalStateException failure = new IllegalStateException("boom");
        try (WriteBatch batch = WriteBatch.open()) {
            database.write(write(1, 1), connection -> insert(connection, 1, "a", "1"));
            assertThatThrownBy(() -> database.write(write(1, 2), connection -> {
                insert(connection, 1, "lost", "2");
                throw failure;
            })).isSameAs(failure);
            assertThatThrownBy(() -> database.write(write(1, 3), connection -> insert(connection, 1, "a", "dup")))
                    .isInstanceOf(StorageException.class).hasMessageContaining("lsn 3");
            database.write(write(1, 4), connection -> insert(connection, 1, "c", "4"));
            batch.commit();
        }

        assertThat(value(database, 1, "a")).isEqualTo("1");
        assertThat(value(database, 1, "lost")).isNull();
        assertThat(value(database, 1, "c")).isEqualTo("4");
        assertThat(database.appliedLsn(1)).isEqualTo(4);
        assertThat(database.isApplied(1, 2)).isTrue(); // LSNs below the applied one count as applied (gaps allowed)
    }

    @Test
    void aBatchClosedWithoutCommitLeavesNothing() throws Exception {
        try (WriteBatch batch = WriteBatch.open()) {
            database.write(write(1, 1), connection -> insert(connection, 1, "a", "1"));
        }

        assertThat(value(database, 1, "a")).isNull();
        assertThat(database.appliedLsn(1)).isZero();
        // the write lock is free again: another thread writes at once
        onOtherThread(() -> database.write(write(1, 1), connection -> insert(connection, 1, "a", "again")));
        assertThat(value(database, 1, "a")).isEqualTo("again");
    }

    @Test
    void aReadOnTheApplyingThreadSeesTheWritesBeforeIt() {
        try (WriteBatch batch = WriteBatch.open()) {
            database.write(write(1, 1), connection -> insert(connection, 1, "a", "1"));

            assertThat(value(database, 1, "a")).isEqualTo("1");
            assertThat(database.appliedLsn(1)).isEqualTo(1);

            database.write(write(1, 2), connection -> insert(connection, 1, "b", "2"));
            batch.commit();
        }
        assertThat(database.appliedLsn(1)).isEqualTo(2);
    }

    @Test
    void aWriteToAnotherDatabaseCommitsTheFirstOneBeforeItsOwn() throws Exception {
        PartitionDatabase second = open("second");
        try (WriteBatch batch = WriteBatch.open()) {
            database.write(write(1, 1), connection -> insert(connection, 1, "a", "1"));
            second.write(write(1, 1), connection -> insert(connection, 1, "x", "1"));

            assertThat(onOtherThread(() -> value(database, 1, "a"))).isEqualTo("1");
            assertThat(onOtherThread(() -> value(second, 1, "x"))).isNull();
            batch.commit();
        }
        assertThat(value(second, 1, "x")).isEqualTo("1");
    }

    @Test
    void aRepeatedLsnInABatchIsRefused() {
        try (WriteBatch batch = WriteBatch.open()) {
            database.write(write(1, 5), connection -> insert(connection, 1, "a", "1"));
            assertThatThrownBy(() -> database.write(write(1, 5), connection -> insert(connection, 1, "b", "2")))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("executed once");
            batch.commit();
        }
        assertThat(value(database, 1, "b")).isNull();
        assertThat(database.appliedLsn(1)).isEqualTo(5);
    }

    private <T> T onOtherThread(Callable<T> work) throws Exception {
        Future<T> result = other.submit(work);
        return result.get(30, TimeUnit.SECONDS);
    }
}
