package io.neptune.server.storage;

import static java.util.Objects.requireNonNull;

import io.neptune.core.Check;
import io.neptune.core.Digest;
import io.neptune.core.RequestContext;
import io.neptune.server.storage.internal.H2ConnectionPool;
import io.neptune.server.storage.internal.PartitionSnapshotCodec;
import io.neptune.server.storage.internal.WriteBatch;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An embedded H2 database for a service's partitions that records each replicated write's LSN in
 * the same transaction as the write, so {@link Check} can answer from it after a crash (DESIGN §6.5).
 *
 * <pre>{@code
 * @NeptuneService(name = "board", partitions = 64, consistency = ConsistencyLevel.LEVEL_2)
 * public final class BoardService implements ServiceLifecycle {
 *     private volatile PartitionDatabase database;
 *
 *     public void start(ServiceEnvironment environment) {
 *         database = PartitionDatabase.open(environment.dataDirectory(), "board");
 *     }
 *
 *     @Write
 *     public Posted post(RequestContext context, Post post) {
 *         return database.write(context, connection -> insertPost(connection, context.partition(), post));
 *     }
 *
 *     @Check
 *     public boolean check(int partition, long lsn) {
 *         return database.isApplied(partition, lsn);
 *     }
 * }
 * }</pre>
 *
 * <p>The record is one row per partition in {@code neptune_applied(partition_id, lsn)} holding the
 * highest applied LSN: a write with LSN {@code n} is applied exactly when {@code n <= appliedLsn}.
 * That holds because consistency levels 2 and 3 apply the writes of a partition one at a time in
 * increasing LSN order (gaps are allowed); level 1, whose writes arrive in any order, needs a
 * different record. Writing transactions of one database run one at a time, whatever their
 * partition: that is what keeps data and record together across a crash in H2 (see
 * {@code run}); a repeated LSN fails instead of being applied twice. Data and record are kept or
 * lost together: a write survives a crash of the process once {@link #write} returned, and one
 * cut short by a crash leaves neither. Reads run concurrently with each other and with a write.
 *
 * <p>The database is the file {@code directory/name.mv.db}; one process opens it at a time. At most
 * {@value #MAX_CONNECTIONS} operations run at once, more wait for a connection.
 *
 * <p>A replica applies a run of replicated writes in one transaction that commits once (a savepoint
 * per write keeps each write all or nothing, and a read on the applying thread sees the writes before
 * it): call {@link #write} on the thread that runs the write method. Work handed to another thread
 * that the write method then waits for would wait for the run's write lock.
 *
 * <p>Thread-safety: thread-safe. Every method blocks on storage: call it from a service worker,
 * never from an event loop.
 */
public final class PartitionDatabase implements AutoCloseable {
    /** Connections open at once; enough for the default number of service workers. */
    public static final int MAX_CONNECTIONS = 16;

    private static final Logger logger = LoggerFactory.getLogger(PartitionDatabase.class);
    private static final Pattern VALID_NAME = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,63}");
    private static final String CREATE_APPLIED = "CREATE TABLE IF NOT EXISTS neptune_applied"
            + "(partition_id INT PRIMARY KEY, lsn BIGINT NOT NULL)";
    private static final String SELECT_APPLIED = "SELECT lsn FROM neptune_applied WHERE partition_id = ?";
    private static final String INSERT_APPLIED = "INSERT INTO neptune_applied(lsn, partition_id) VALUES (?, ?)";
    /**
     * H2's SNAPSHOT isolation ({@code org.h2.engine.Constants.TRANSACTION_SNAPSHOT}, which the JDBC
     * driver accepts): every table is read as of the transaction's first statement. Under REPEATABLE
     * READ, H2 fixes each table's view at the first statement that reads that table, so the applied
     * LSN and the rows read after it could come from different moments: a snapshot or digest "at LSN
     * n" then held writes above n, and a replica that installed it applied them twice.
     */
    private static final int TRANSACTION_SNAPSHOT = 6;
    private static final String UPDATE_APPLIED = "UPDATE neptune_applied SET lsn = ? WHERE partition_id = ?";

    private final String name;
    private final H2ConnectionPool pool;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ReentrantLock writeLock = new ReentrantLock();

    private PartitionDatabase(String name, H2ConnectionPool pool) {
        this.name = name;
        this.pool = pool;
    }

    /**
     * Opens (creating if missing) the database {@code name} in {@code directory}, which is created
     * too if missing, and the {@code neptune_applied} table.
     *
     * <p>A database file that H2 finds corrupted (a machine crash can leave one half written) is
     * moved aside to {@code name.mv.db.damaged-<millis>} and replaced with an empty database, with
     * an ERROR in the log: {@link Check} then reports nothing applied, so the replicas of its
     * partitions execute their REDO logs again from the first write and end where they were. Keep
     * in a partition database only what replicated writes put there (and the schema the service
     * creates at start): anything else is not rebuilt.
     *
     * @param directory where the database file lives, typically
     *     {@link io.neptune.core.ServiceEnvironment#dataDirectory()}
     * @param name the file name without extension: 1-64 of letters, digits, {@code '.'}, {@code '_'},
     *     {@code '-'}, not starting with {@code '.'}
     * @throws StorageException if the database cannot be opened, for example because another
     *     process has it open
     */
    public static PartitionDatabase open(Path directory, String name) {
        requireNonNull(directory, "directory");
        requireNonNull(name, "name");
        if (!VALID_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("name: '" + name
                    + "' (expected: 1-64 of letters, digits, '.', '_', '-', not starting with '.')");
        }
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + directory, e);
        }
        Path file = directory.resolve(name);
        try {
            return openFile(file);
        } catch (StorageException e) {
            if (!(e.getCause() instanceof SQLException cause) || !H2ConnectionPool.isCorrupted(cause)) {
                throw e;
            }
            Path damaged = H2ConnectionPool.moveAside(file, "damaged-" + System.currentTimeMillis());
            logger.error("{}: [NEP-STORE-002] the database file is corrupted ({}); moved it to {} and starting empty:"
                    + " the replicas of its partitions execute their REDO logs again from the first write"
                    + " (docs/OPERATIONS.md, 'Machine crashes')", file, cause.getMessage(), damaged);
            return openFile(file);
        }
    }

    private static PartitionDatabase openFile(Path file) {
        H2ConnectionPool pool = H2ConnectionPool.open(file, MAX_CONNECTIONS);
        PartitionDatabase database = new PartitionDatabase(file.toString(), pool);
        try {
            database.inTransaction("open", connection -> {
                try (Statement statement = connection.createStatement()) {
                    statement.execute(CREATE_APPLIED);
                }
                return null;
            });
        } catch (RuntimeException e) {
            pool.close();
            throw e;
        }
        logger.info("{}: opened", database.name);
        return database;
    }

    /**
     * Runs {@code work} and records {@code context.lsn()} as applied on {@code context.partition()},
     * in one transaction: either both commit or neither does.
     *
     * <p>A write with LSN 0 (an unreplicated write) only runs {@code work} in a transaction and
     * records nothing. A write whose LSN is not above {@link #appliedLsn} was already applied; the
     * replication engine re-executes only writes {@link Check} reported as not applied, so this is a
     * bug in the caller and is refused with {@link IllegalStateException}, leaving the database
     * unchanged.
     *
     * @param <T> the result type
     * @param context the write's context: its partition and LSN
     * @param work the write's database changes, on a connection inside the transaction
     * @return what {@code work} returned
     * @throws IllegalStateException if the LSN was already applied on the partition
     * @throws StorageException if the database fails, including when another write of the
     *     partition's first LSN was committed concurrently; nothing was changed
     * @throws RuntimeException whatever {@code work} throws unchecked; nothing was changed
     */
    public <T extends @Nullable Object> T write(RequestContext context, SqlWork<T> work) {
        requireNonNull(context, "context");
        requireNonNull(work, "work");
        int partition = checkPartition(context.partition());
        long lsn = context.lsn();
        if (lsn < 0) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: >= 0)");
        }
        if (lsn == 0) {
            return inTransaction("write of partition " + partition, work);
        }
        WriteBatch batch = WriteBatch.current();
        if (batch != null) {
            return writeInBatch(batch, partition, lsn, work);
        }
        return inTransaction("write of partition " + partition + " lsn " + lsn, connection -> {
            recordLsn(connection, partition, lsn);
            return work.apply(connection);
        });
    }

    /**
     * A replicated write inside the replication engine's {@link WriteBatch}: it runs in the batch's
     * open transaction on this database, under a savepoint, so a write that throws leaves nothing
     * (as on its own), and the ones before it commit with the batch. The transaction holds the write
     * lock until the batch commits, as one transaction of its own would.
     */
    private <T extends @Nullable Object> T writeInBatch(WriteBatch batch, int partition, long lsn, SqlWork<T> work) {
        String what = "write of partition " + partition + " lsn " + lsn;
        BatchTransaction transaction = batch.member() instanceof BatchTransaction open && open.database() == this
                ? open : null;
        if (transaction == null) {
            batch.commit(); // another database's transaction: commit it before taking this write lock
            transaction = begin(what);
            batch.enlist(transaction);
        }
        Connection connection = transaction.connection();
        Savepoint savepoint;
        try {
            savepoint = connection.setSavepoint();
        } catch (SQLException e) {
            transaction.markBroken();
            throw new StorageException(name + ": " + what + " failed", e);
        }
        try {
            recordLsn(connection, partition, lsn);
            T result = work.apply(connection);
            connection.releaseSavepoint(savepoint);
            return result;
        } catch (SQLException e) {
            transaction.rollBackTo(savepoint, e);
            throw new StorageException(name + ": " + what + " failed", e);
        } catch (RuntimeException | Error e) {
            transaction.rollBackTo(savepoint, e);
            throw e;
        }
    }

    private BatchTransaction begin(String what) {
        if (closed.get()) {
            throw new IllegalStateException(name + ": " + what + " after close (expected: an open database)");
        }
        writeLock.lock();
        Connection connection = null;
        try {
            connection = pool.connection();
            connection.setAutoCommit(false);
            connection.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            return new BatchTransaction(this, name, connection, writeLock);
        } catch (SQLException | RuntimeException e) {
            if (connection != null) {
                closeQuietly(connection, e);
            }
            writeLock.unlock();
            if (e instanceof SQLException sql) {
                throw new StorageException(name + ": " + what + " failed", sql);
            }
            throw (RuntimeException) e;
        }
    }

    /** Commits the calling thread's batch if it holds a transaction on this database, so work here sees it. */
    private void commitBatchHere() {
        WriteBatch batch = WriteBatch.current();
        if (batch != null && batch.member() instanceof BatchTransaction open && open.database() == this) {
            batch.commit();
        }
    }

    private static void closeQuietly(Connection connection, Throwable failure) {
        try {
            connection.close();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }

    /**
     * Runs {@code work} in one committed transaction that records no LSN: for creating the schema
     * at start, and for local changes that are not replicated writes. Replicated writes use
     * {@link #write}; a change made here is invisible to {@link Check}.
     *
     * @param <T> the result type
     * @param work the changes
     * @return what {@code work} returned
     * @throws StorageException if the database fails; nothing was changed
     * @throws RuntimeException whatever {@code work} throws unchecked; nothing was changed
     */
    public <T extends @Nullable Object> T transaction(SqlWork<T> work) {
        requireNonNull(work, "work");
        return inTransaction("transaction", work);
    }

    /**
     * Runs {@code work} on a consistent snapshot of the database (every table as of the first
     * statement), then rolls the transaction back, so a read can never change data behind the LSN
     * record (DDL excepted, which H2 commits at once).
     *
     * @param <T> the result type
     * @param work the queries
     * @return what {@code work} returned
     * @throws StorageException if the database fails
     */
    public <T extends @Nullable Object> T read(SqlWork<T> work) {
        requireNonNull(work, "work");
        return inSnapshot("read", work);
    }

    /**
     * The highest LSN applied on {@code partition}, or 0 if none was.
     *
     * @param partition the partition id, {@code >= 0}
     * @return the applied LSN
     */
    public long appliedLsn(int partition) {
        checkPartition(partition);
        return inSnapshot("appliedLsn of partition " + partition,
                connection -> appliedLsn(connection, partition, false));
    }

    /**
     * Whether the write with {@code lsn} was applied on {@code partition}: what a {@link Check}
     * method returns.
     *
     * @param partition the partition id, {@code >= 0}
     * @param lsn the write's LSN, {@code >= 1}
     * @return whether {@code lsn <= appliedLsn(partition)}
     */
    public boolean isApplied(int partition, long lsn) {
        if (lsn < 1) {
            throw new IllegalArgumentException("lsn: " + lsn + " (expected: >= 1)");
        }
        return lsn <= appliedLsn(partition);
    }

    /**
     * A digest of {@code partition}'s state, for a {@link Digest} method: the applied LSN, then
     * {@code ':'}, then the hex SHA-256 of every row of every query, all read from one snapshot.
     *
     * <p>Each query takes the partition as its single {@code ?} parameter and must list its rows in
     * a deterministic order ({@code ORDER BY} a key), for example
     * {@code "SELECT k, v FROM kv WHERE partition_id = ? ORDER BY k"}. Values are hashed by their
     * SQL string form with length prefixes and null markers, so rows and columns cannot run into
     * each other. Replicas that applied the same writes to the same schema return equal digests.
     *
     * @param partition the partition id, {@code >= 0}
     * @param queries the queries whose rows make up the partition's state
     * @return {@code "<applied LSN>:<64 hex digits>"}
     * @throws IllegalArgumentException if a query does not take exactly one parameter
     * @throws StorageException if the database fails
     */
    public String digest(int partition, String... queries) {
        checkPartition(partition);
        requireNonNull(queries, "queries");
        for (String query : queries) {
            requireNonNull(query, "query");
        }
        return inSnapshot("digest of partition " + partition, connection -> {
            MessageDigest sha256 = sha256();
            for (String query : queries) {
                hashQuery(connection, partition, query, sha256);
            }
            long applied = appliedLsn(connection, partition, false);
            return applied + ":" + HexFormat.of().formatHex(sha256.digest());
        });
    }

    /**
     * Writes a snapshot of {@code partition} to {@code out} and returns its LSN: for a service's
     * {@link io.neptune.core.Snapshottable#writeSnapshot}. The snapshot holds the partition's rows in
     * every table with a {@code partition_id} column and its applied LSN, all read from one database
     * snapshot, so it may run while writes go on; rows stream to {@code out} one at a time.
     *
     * @param partition the partition id, {@code >= 0}
     * @param out where the snapshot goes; not closed
     * @return the partition's applied LSN the snapshot is consistent with
     * @throws IllegalStateException if a table with rows has no {@code partition_id} column
     * @throws UncheckedIOException if {@code out} fails
     * @throws StorageException if the database fails
     */
    public long writeSnapshot(int partition, OutputStream out) {
        checkPartition(partition);
        requireNonNull(out, "out");
        return inSnapshot("snapshot of partition " + partition, connection -> {
            long applied = appliedLsn(connection, partition, false);
            try {
                PartitionSnapshotCodec.write(connection, partition, applied, out);
            } catch (IOException e) {
                throw new UncheckedIOException(name + ": cannot write the snapshot of partition " + partition, e);
            }
            return applied;
        });
    }

    /**
     * Replaces {@code partition}'s rows and applied LSN with the snapshot in {@code in}, in one
     * transaction (a crash keeps the old state or installs the new one whole): for a service's
     * {@link io.neptune.core.Snapshottable#restoreSnapshot}.
     *
     * @param partition the partition id, {@code >= 0}
     * @param in a snapshot {@link #writeSnapshot} wrote for the same partition; not closed
     * @param lsn the LSN the partition counts as applied afterwards: the one {@link #writeSnapshot}
     *     returned for it, or a higher one of the receiving replica's own (level 1, whose LSNs are
     *     each replica's order of arrival)
     * @throws IllegalArgumentException if {@code in} is not such a snapshot, or one of a write above
     *     {@code lsn}, or names a table or column this database lacks (its message then starts with
     *     {@code NEP-SNAP-007}; names are checked before they reach SQL); nothing was changed
     * @throws UncheckedIOException if {@code in} fails; nothing was changed
     * @throws StorageException if the database fails; nothing was changed
     */
    public void restoreSnapshot(int partition, InputStream in, long lsn) {
        checkPartition(partition);
        requireNonNull(in, "in");
        inTransaction("restore of partition " + partition, connection -> {
            long snapshotLsn;
            try {
                snapshotLsn = PartitionSnapshotCodec.read(connection, partition, in);
            } catch (IOException e) {
                throw new UncheckedIOException(name + ": cannot read the snapshot of partition " + partition, e);
            }
            if (snapshotLsn > lsn) {
                throw new IllegalArgumentException("snapshot lsn: " + snapshotLsn + " (expected: <= " + lsn + ")");
            }
            try (PreparedStatement delete = connection.prepareStatement(
                    "DELETE FROM neptune_applied WHERE partition_id = ?")) {
                delete.setInt(1, partition);
                delete.executeUpdate();
            }
            if (lsn > 0) {
                try (PreparedStatement insert = connection.prepareStatement(INSERT_APPLIED)) {
                    insert.setLong(1, lsn);
                    insert.setInt(2, partition);
                    insert.executeUpdate();
                }
            }
            return null;
        });
        logger.info("{}: restored partition {} from a snapshot at LSN {}", name, partition, lsn);
    }

    /**
     * Forces every committed write to the disk ({@code CHECKPOINT SYNC}): H2 does not force at each
     * commit, so a power loss can take back recent commits otherwise. For a service's
     * {@link io.neptune.core.Snapshottable#force}, before the node drops REDO log records.
     *
     * @throws StorageException if the database fails
     */
    public void force() {
        inTransaction("force", connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute("CHECKPOINT SYNC");
            }
            return null;
        });
    }

    /** Whether {@link #close} was called. */
    public boolean isClosed() {
        return closed.get();
    }

    /** Closes the database once running operations have returned their connections; idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            pool.close();
            logger.info("{}: closed", name);
        }
    }

    @Override
    public String toString() {
        return "PartitionDatabase[" + name + (closed.get() ? ", closed]" : "]");
    }

    private static int checkPartition(int partition) {
        if (partition < 0) {
            throw new IllegalArgumentException("partition: " + partition + " (expected: >= 0)");
        }
        return partition;
    }

    private static long appliedLsn(Connection connection, int partition, boolean forUpdate) throws SQLException {
        String sql = forUpdate ? SELECT_APPLIED + " FOR UPDATE" : SELECT_APPLIED;
        try (PreparedStatement select = connection.prepareStatement(sql)) {
            select.setInt(1, partition);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getLong(1) : 0;
            }
        }
    }

    /**
     * Raises the partition's applied LSN to {@code lsn} before the work runs, so a concurrent write
     * of the same partition waits for this transaction on the row lock (or, for the partition's
     * first write, fails on the primary key) instead of applying the same LSN again.
     */
    private void recordLsn(Connection connection, int partition, long lsn) throws SQLException {
        long applied = appliedLsn(connection, partition, true);
        if (lsn <= applied) {
            throw new IllegalStateException(name + ": partition " + partition + " lsn: " + lsn
                    + " (expected: > " + applied + ", the applied LSN; a write is executed once)");
        }
        // Recorded LSNs are >= 1, so 0 means the partition has no row yet.
        String sql = applied == 0 ? INSERT_APPLIED : UPDATE_APPLIED;
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setLong(1, lsn);
            statement.setInt(2, partition);
            statement.executeUpdate();
        }
    }

    private static void hashQuery(Connection connection, int partition, String query, MessageDigest sha256)
            throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(query)) {
            int parameters = statement.getParameterMetaData().getParameterCount();
            if (parameters != 1) {
                throw new IllegalArgumentException("query parameters: " + parameters + " in '" + query
                        + "' (expected: 1, the partition)");
            }
            statement.setInt(1, partition);
            try (ResultSet rows = statement.executeQuery()) {
                int columns = rows.getMetaData().getColumnCount();
                sha256.update((byte) 'Q');
                updateInt(sha256, columns);
                while (rows.next()) {
                    sha256.update((byte) 'R');
                    for (int column = 1; column <= columns; column++) {
                        String value = rows.getString(column);
                        if (value == null) {
                            sha256.update((byte) 0);
                        } else {
                            byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
                            sha256.update((byte) 1);
                            updateInt(sha256, bytes.length);
                            sha256.update(bytes);
                        }
                    }
                }
            }
        }
    }

    private static void updateInt(MessageDigest digest, int value) {
        digest.update((byte) (value >>> 24));
        digest.update((byte) (value >>> 16));
        digest.update((byte) (value >>> 8));
        digest.update((byte) value);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM (expected: every JVM has it)", e);
        }
    }

    /** Runs {@code work} in a read-committed transaction and commits it. */
    private <T extends @Nullable Object> T inTransaction(String what, SqlWork<T> work) {
        return run(what, Connection.TRANSACTION_READ_COMMITTED, true, work);
    }

    /** Runs {@code work} in a repeatable-read transaction, a snapshot, and rolls it back. */
    private <T extends @Nullable Object> T inSnapshot(String what, SqlWork<T> work) {
        return run(what, TRANSACTION_SNAPSHOT, false, work);
    }

    private <T extends @Nullable Object> T run(String what, int isolation, boolean commit, SqlWork<T> work) {
        if (closed.get()) {
            throw new IllegalStateException(name + ": " + what + " after close (expected: an open database)");
        }
        WriteBatch batch = WriteBatch.current();
        if (batch != null && commit) {
            batch.commit(); // whatever database it holds: this takes a write lock, and holds one at a time
        } else {
            commitBatchHere(); // a read on the applying thread sees the writes applied before it
        }
        if (!commit) {
            return runOnConnection(what, isolation, false, work);
        }
        // One writing transaction at a time. With WRITE_DELAY=0, H2 stores every map to the file at the
        // end of each commit, but a store is a consistent snapshot of each map, not of all maps together
        // (h2database issue #2080): a transaction changing other maps meanwhile can be saved half-way,
        // and a process killed then may reopen with a write's data and its LSN record out of step. We
        // saw exactly that under SIGKILL (LogKillIT): a replica kept an LSN's kv_log row but lost its
        // value change. Writes here are short, so serializing them costs little.
        writeLock.lock();
        try {
            return runOnConnection(what, isolation, true, work);
        } finally {
            writeLock.unlock();
        }
    }

    private <T extends @Nullable Object> T runOnConnection(String what, int isolation, boolean commit,
            SqlWork<T> work) {
        try (Connection connection = pool.connection()) {
            connection.setAutoCommit(false);
            connection.setTransactionIsolation(isolation);
            try {
                T result = work.apply(connection);
                if (commit) {
                    connection.commit();
                } else {
                    connection.rollback();
                }
                return result;
            } catch (SQLException | RuntimeException | Error e) {
                rollback(connection, e);
                throw e;
            }
        } catch (SQLException e) {
            throw new StorageException(name + ": " + what + " failed", e);
        }
    }

    private static void rollback(Connection connection, Throwable failure) {
        try {
            connection.rollback();
        } catch (SQLException e) {
            failure.addSuppressed(e);
        }
    }
}
