package io.neptune.server;

import static java.util.Objects.requireNonNull;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.Digest;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import io.neptune.core.Snapshottable;
import io.neptune.core.Write;
import io.neptune.server.storage.PartitionDatabase;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;

/**
 * A replicated key-value service on a {@link PartitionDatabase}, for replication and recovery tests.
 *
 * <p>{@code put} overwrites and {@code append} concatenates, so a replica that applied writes in a
 * different order ends with a different value. Every replicated write (LSN &gt; 0) also adds a
 * {@code kv_log} row keyed by (partition, LSN): applying the same LSN twice fails on that key
 * instead of passing unnoticed, and {@code count} tells how many writes a partition applied.
 * Unreplicated writes (LSN 0) change {@code kv} only.
 *
 * <p>It records the partitions an operator adds or removes while it runs ({@link #placementEvents()},
 * each with {@link ServiceEnvironment#partitions()} as the callback saw it), and every call of a
 * partition it was not prepared for ({@link #unpreparedCalls()}: not hosted at start, or removed,
 * and not added since); {@link #refusePartitions} makes {@link #partitionAdded} throw.
 *
 * <p>Thread-safety: thread-safe once started; {@link #start} and {@link #stop} are called by one
 * thread.
 */
@NeptuneService(name = "kv", partitions = 8, consistency = ConsistencyLevel.LEVEL_2)
public final class KvTestService implements ServiceLifecycle, Snapshottable {
    /** The database file name in the data directory. */
    public static final String DATABASE_NAME = "kv";

    /**
     * {@code vh} is the SHA-256 of {@code v}, written with it in the same statement: the digest hashes
     * it instead of {@code v}. A {@code status} call computes the digest on the partition's executor,
     * and tests that poll it (a primary watch, convergence waits) with megabytes of values in a
     * partition kept that executor hashing them over and over, starving replication; {@code vh} changes
     * whenever {@code v} does, so the digest tells replicas apart exactly as before.
     */
    private static final String[] SCHEMA = {
        "CREATE TABLE IF NOT EXISTS kv(partition_id INT, k VARCHAR(256), v VARCHAR(65536), vh VARCHAR(64),"
                + " PRIMARY KEY(partition_id, k))",
        "CREATE TABLE IF NOT EXISTS kv_log(partition_id INT, lsn BIGINT, k VARCHAR(256),"
                + " PRIMARY KEY(partition_id, lsn))",
    };
    private static final String[] DIGEST_QUERIES = {
        "SELECT k, vh FROM kv WHERE partition_id = ? ORDER BY k",
        "SELECT lsn, k FROM kv_log WHERE partition_id = ? ORDER BY lsn",
    };

    /** Sets {@code k} to {@code v}. */
    public record Put(String k, String v) {}

    /** Appends {@code suffix} to the value of {@code k} (an absent key counts as empty). */
    public record Append(String k, String suffix) {}

    /** What a write did: its LSN (0 if unreplicated) and the node that executed it. */
    public record Written(long lsn, String node) {}

    /** Reads the value of {@code k}. */
    public record Get(String k) {}

    /** The value of a key (null if absent), the partition's applied LSN it was read at, and the node. */
    public record Value(@Nullable String v, long lsn, String node) {}

    /** Counts the replicated writes a partition applied. */
    public record Count() {}

    private volatile @Nullable PartitionDatabase database;
    private volatile @Nullable ServiceEnvironment environment;
    private final Set<Integer> prepared = ConcurrentHashMap.newKeySet();
    private final List<String> placementEvents = new CopyOnWriteArrayList<>();
    private final List<String> unpreparedCalls = new CopyOnWriteArrayList<>();
    private volatile boolean refusePartitions;

    /** Opens the database in the environment's data directory and creates the tables. */
    @Override
    public void start(ServiceEnvironment environment) {
        this.environment = environment;
        prepared.addAll(environment.partitions());
        PartitionDatabase opened = PartitionDatabase.open(environment.dataDirectory(), DATABASE_NAME);
        try {
            opened.transaction(connection -> {
                try (Statement statement = connection.createStatement()) {
                    for (String ddl : SCHEMA) {
                        statement.execute(ddl);
                    }
                }
                return null;
            });
        } catch (RuntimeException e) {
            opened.close();
            throw e;
        }
        database = opened;
    }

    /** Records the partition (a {@code PartitionDatabase} needs nothing more), or throws if told to refuse. */
    @Override
    public void partitionAdded(int partition) {
        if (refusePartitions) {
            placementEvents.add("refused " + partition + " " + environment().partitions());
            throw new IllegalStateException("kv: refusing partition " + partition + " on purpose");
        }
        prepared.add(partition);
        placementEvents.add("added " + partition + " " + environment().partitions());
    }

    /** Records that the partition left; its rows stay. */
    @Override
    public void partitionRemoved(int partition) {
        prepared.remove(partition);
        placementEvents.add("removed " + partition + " " + environment().partitions());
    }

    /** Makes {@link #partitionAdded} throw while {@code refuse}. */
    public void refusePartitions(boolean refuse) {
        refusePartitions = refuse;
    }

    /** {@code added p [partitions]}, {@code removed p [...]} or {@code refused p [...]}, in order. */
    public List<String> placementEvents() {
        return List.copyOf(placementEvents);
    }

    /** The calls of a partition not prepared for, as {@code method partition}; empty if the node kept its promise. */
    public List<String> unpreparedCalls() {
        return List.copyOf(unpreparedCalls);
    }

    /** The environment the service started with. */
    public ServiceEnvironment environment() {
        ServiceEnvironment started = environment;
        if (started == null) {
            throw new IllegalStateException("kv: not started");
        }
        return started;
    }

    private void calling(String method, int partition) {
        if (!prepared.contains(partition)) {
            unpreparedCalls.add(method + " " + partition);
        }
    }

    /** Closes the database. */
    @Override
    public void stop() {
        PartitionDatabase opened = database;
        database = null;
        if (opened != null) {
            opened.close();
        }
    }

    /** Sets a key. */
    @Write
    public Written put(RequestContext context, Put request) {
        calling("put", context.partition());
        database().write(context, connection -> {
            store(connection, context.partition(), request.k(), request.v());
            log(connection, context, request.k());
            return null;
        });
        return new Written(context.lsn(), context.node().value());
    }

    /** Appends to a key's value. */
    @Write
    public Written append(RequestContext context, Append request) {
        calling("append", context.partition());
        database().write(context, connection -> {
            String current = value(connection, context.partition(), request.k(), true);
            store(connection, context.partition(), request.k(), (current == null ? "" : current) + request.suffix());
            log(connection, context, request.k());
            return null;
        });
        return new Written(context.lsn(), context.node().value());
    }

    /** Reads a key. */
    @Read
    public Value get(RequestContext context, Get request) {
        calling("get", context.partition());
        PartitionDatabase opened = database();
        return opened.read(connection -> new Value(value(connection, context.partition(), request.k(), false),
                appliedLsn(connection, context.partition()), context.node().value()));
    }

    /** The number of replicated writes applied on the partition. */
    @Read
    public Long count(RequestContext context, Count request) {
        calling("count", context.partition());
        return database().read(connection -> {
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT COUNT(*) FROM kv_log WHERE partition_id = ?")) {
                select.setInt(1, context.partition());
                try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                    return rows.getLong(1);
                }
            }
        });
    }

    /** The CHECK callback. */
    @Check
    public boolean check(int partition, long lsn) {
        calling("check", partition);
        return database().isApplied(partition, lsn);
    }

    /** The partition's keys, values and write log, hashed. */
    @Digest
    public String digest(int partition) {
        calling("digest", partition);
        return database().digest(partition, DIGEST_QUERIES);
    }

    /** Exports a partition with its database's snapshot support. */
    @Override
    public long writeSnapshot(int partition, OutputStream out) {
        calling("writeSnapshot", partition);
        return database().writeSnapshot(partition, out);
    }

    /** Imports a partition with its database's snapshot support. */
    @Override
    public void restoreSnapshot(int partition, InputStream in, long lsn) {
        calling("restoreSnapshot", partition);
        placementEvents.add("restored " + partition);
        database().restoreSnapshot(partition, in, lsn);
    }

    /** Forces the database before the node drops log records. */
    @Override
    public void force(int partition) {
        calling("force", partition);
        database().force();
    }

    private PartitionDatabase database() {
        PartitionDatabase opened = database;
        if (opened == null) {
            throw new IllegalStateException("kv: not started (expected: start() before calls)");
        }
        return opened;
    }

    private static @Nullable String value(Connection connection, int partition, String k, boolean forUpdate)
            throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT v FROM kv WHERE partition_id = ? AND k = ?" + (forUpdate ? " FOR UPDATE" : ""))) {
            select.setInt(1, partition);
            select.setString(2, k);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        }
    }

    /** The applied LSN read inside the caller's snapshot, so it matches the values read with it. */
    private static long appliedLsn(Connection connection, int partition) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT lsn FROM neptune_applied WHERE partition_id = ?")) {
            select.setInt(1, partition);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getLong(1) : 0;
            }
        }
    }

    private static void store(Connection connection, int partition, String k, String v) throws SQLException {
        requireNonNull(k, "k");
        requireNonNull(v, "v");
        try (PreparedStatement merge = connection.prepareStatement(
                "MERGE INTO kv(partition_id, k, v, vh) KEY(partition_id, k) VALUES (?, ?, ?, ?)")) {
            merge.setInt(1, partition);
            merge.setString(2, k);
            merge.setString(3, v);
            merge.setString(4, sha256(v));
            merge.executeUpdate();
        }
    }

    private static String sha256(String v) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(v.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }

    private static void log(Connection connection, RequestContext context, String k) throws SQLException {
        if (context.lsn() == 0) {
            return;
        }
        try (PreparedStatement insert = connection.prepareStatement(
                "INSERT INTO kv_log(partition_id, lsn, k) VALUES (?, ?, ?)")) {
            insert.setInt(1, context.partition());
            insert.setLong(2, context.lsn());
            insert.setString(3, k);
            insert.executeUpdate();
        }
    }
}
