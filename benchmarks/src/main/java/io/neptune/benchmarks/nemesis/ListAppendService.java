package io.neptune.benchmarks.nemesis;

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
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The nemesis bench's test service: every key holds an append-only list of longs. {@code append}
 * adds one value at the end of a key's list, {@code read} returns the whole list. Because every
 * appended value is unique, a history of appends and reads says exactly which writes a replica
 * applied, in which order, and whether one was applied twice: the list-append check needs no search.
 *
 * <p>State lives in H2 through {@link PartitionDatabase}, one row per list element with the LSN of
 * the write that added it, so it survives restarts and a replica that applied a write twice or out
 * of order shows it. A key's partition is {@link #partitionOf}: the client and the final-state
 * reader use the same rule.
 *
 * <p>Thread-safety: thread-safe once started; {@link #start} and {@link #stop} are called by one thread.
 */
public abstract class ListAppendService implements ServiceLifecycle, Snapshottable {
    /** Partitions of both variants. */
    public static final int PARTITIONS = 8;
    /** The database file name (without extension) in the service's data directory. */
    public static final String DATABASE = "list-append";

    private static final String SCHEMA = "CREATE TABLE IF NOT EXISTS elements(partition_id INT, k VARCHAR(64),"
            + " pos INT, v BIGINT NOT NULL, lsn BIGINT NOT NULL, PRIMARY KEY(partition_id, k, pos))";
    private static final String DIGEST_QUERY = "SELECT k, pos, v FROM elements WHERE partition_id = ? ORDER BY k, pos";

    /** Appends {@code value} to the list of {@code key}. */
    public record Append(String key, long value) {}

    /** What an append did: the node that ran it and the write's LSN (the partition version it made). */
    public record Appended(String node, long lsn) {}

    /** Reads the list of {@code key}. */
    public record ReadList(String key) {}

    /**
     * A key's list as one replica saw it.
     *
     * @param values the list, oldest first; empty for a key never appended to
     * @param version the partition's applied LSN in the same snapshot
     * @param node the node that served the read
     */
    public record Listed(List<Long> values, long version, String node) {}

    private volatile @Nullable PartitionDatabase database;

    /** Opens the database in the environment's data directory and creates the table. */
    @Override
    public void start(ServiceEnvironment environment) {
        PartitionDatabase opened = PartitionDatabase.open(environment.dataDirectory(), DATABASE);
        try {
            createSchema(opened);
        } catch (RuntimeException e) {
            opened.close();
            throw e;
        }
        database = opened;
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

    /** Appends a value to a key's list. */
    @Write
    public Appended append(RequestContext context, Append request) {
        db().write(context, connection -> {
            int next;
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT COALESCE(MAX(pos) + 1, 0) FROM elements WHERE partition_id = ? AND k = ?")) {
                select.setInt(1, context.partition());
                select.setString(2, request.key());
                try (ResultSet rows = select.executeQuery()) {
                    rows.next();
                    next = rows.getInt(1);
                }
            }
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO elements(partition_id, k, pos, v, lsn) VALUES (?, ?, ?, ?, ?)")) {
                insert.setInt(1, context.partition());
                insert.setString(2, request.key());
                insert.setInt(3, next);
                insert.setLong(4, request.value());
                insert.setLong(5, context.lsn());
                insert.executeUpdate();
            }
            return null;
        });
        return new Appended(context.node().value(), context.lsn());
    }

    /** Reads a key's list and the partition version it was read at. */
    @Read
    public Listed read(RequestContext context, ReadList request) {
        return db().read(connection -> new Listed(list(connection, context.partition(), request.key()),
                appliedLsn(connection, context.partition()), context.node().value()));
    }

    /** The CHECK callback: whether the write with {@code lsn} was applied. */
    @Check
    public boolean check(int partition, long lsn) {
        return db().isApplied(partition, lsn);
    }

    /** A partition's rows, for a replica that installs a snapshot (its REDO log then stays bounded). */
    @Override
    public long writeSnapshot(int partition, OutputStream out) {
        return db().writeSnapshot(partition, out);
    }

    @Override
    public void restoreSnapshot(int partition, InputStream in, long lsn) {
        db().restoreSnapshot(partition, in, lsn);
    }

    /** Forces the database before the node drops log records. */
    @Override
    public void force(int partition) {
        db().force();
    }

    /** Every list of the partition, hashed, so replicas can be compared. */
    @Digest
    public String digest(int partition) {
        return db().digest(partition, digestQuery());
    }

    /** The rows the digest hashes, in a replica-independent order: each list in its order (levels 2 and 3). */
    String digestQuery() {
        return DIGEST_QUERY;
    }

    /** The partition of {@code key}: its string hash modulo {@link #PARTITIONS}. */
    public static int partitionOf(String key) {
        return Math.floorMod(key.hashCode(), PARTITIONS);
    }

    /** Creates the table if missing; also used when the final state is read from a stopped node's file. */
    static void createSchema(PartitionDatabase database) {
        database.transaction(connection -> {
            try (Statement statement = connection.createStatement()) {
                statement.execute(SCHEMA);
            }
            return null;
        });
    }

    /**
     * Every key's list in {@code database}, by partition then key, read in one snapshot: how the
     * bench reads a stopped replica's final state directly from its file.
     */
    static Map<Integer, Map<String, List<Long>>> dump(PartitionDatabase database) {
        return database.read(connection -> {
            Map<Integer, Map<String, List<Long>>> lists = new TreeMap<>();
            try (Statement select = connection.createStatement();
                    ResultSet rows = select.executeQuery(
                            "SELECT partition_id, k, v FROM elements ORDER BY partition_id, k, pos")) {
                while (rows.next()) {
                    lists.computeIfAbsent(rows.getInt(1), p -> new TreeMap<>())
                            .computeIfAbsent(rows.getString(2), k -> new ArrayList<>()).add(rows.getLong(3));
                }
            }
            return lists;
        });
    }

    private PartitionDatabase db() {
        PartitionDatabase opened = database;
        if (opened == null) {
            throw new IllegalStateException("list-append: not started (expected: start() before calls)");
        }
        return opened;
    }

    private static List<Long> list(Connection connection, int partition, String key) throws SQLException {
        List<Long> values = new ArrayList<>();
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT v FROM elements WHERE partition_id = ? AND k = ? ORDER BY pos")) {
            select.setInt(1, partition);
            select.setString(2, key);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    values.add(rows.getLong(1));
                }
            }
        }
        return values;
    }

    private static long appliedLsn(Connection connection, int partition) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT lsn FROM neptune_applied WHERE partition_id = ?")) {
            select.setInt(1, partition);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next() ? rows.getLong(1) : 0;
            }
        }
    }

    /** The service class of {@code level} (1, 2 or 3). */
    static Class<? extends ListAppendService> classOf(int level) {
        return switch (level) {
            case 1 -> Level1.class;
            case 2 -> Level2.class;
            case 3 -> Level3.class;
            default -> throw new IllegalArgumentException("level: " + level + " (expected: 1, 2 or 3)");
        };
    }

    /** The service name of {@code level} (1, 2 or 3). */
    static String nameOf(int level) {
        return classOf(level).getAnnotation(NeptuneService.class).name();
    }

    /**
     * The list-append service at level 1 (write-anywhere): appends commute only as a set, so each
     * replica may hold a key's values in another order; the digest hashes each list sorted by value,
     * so replicas with the same values agree. The checkers treat level-1 lists as sets.
     */
    @NeptuneService(name = "nemesis-list-l1", partitions = PARTITIONS, consistency = ConsistencyLevel.LEVEL_1)
    public static final class Level1 extends ListAppendService {
        private static final String UNORDERED_DIGEST_QUERY =
                "SELECT k, v FROM elements WHERE partition_id = ? ORDER BY k, v";

        /** For node processes started from a config file. */
        public Level1() {}

        @Override
        String digestQuery() {
            return UNORDERED_DIGEST_QUERY;
        }
    }

    /** The list-append service at level 2 (primary-secondary). */
    @NeptuneService(name = "nemesis-list-l2", partitions = PARTITIONS, consistency = ConsistencyLevel.LEVEL_2)
    public static final class Level2 extends ListAppendService {
        /** For node processes started from a config file. */
        public Level2() {}
    }

    /** The list-append service at level 3: level 2 plus a one-second staleness bound and session versions. */
    @NeptuneService(name = "nemesis-list-l3", partitions = PARTITIONS, consistency = ConsistencyLevel.LEVEL_3,
            stalenessMillis = 1000)
    public static final class Level3 extends ListAppendService {
        /** For node processes started from a config file. */
        public Level3() {}
    }
}
