package io.neptune.examples.cache;

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
import io.neptune.server.storage.ServiceDatabase;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Base64;
import org.jspecify.annotations.Nullable;

/**
 * A persistent cache replicated at level 2: {@code update} stores a value under a key,
 * {@code lookup} reads it. Each write records its LSN in the same H2 transaction, so CHECK and
 * recovery come for free from {@link PartitionDatabase}, and so do snapshots ({@link Snapshottable}):
 * its nodes drop old REDO log records and bring a new replica up with a snapshot and the log tail.
 *
 * <p>Thread-safety: thread-safe; H2 serializes writes per row.
 */
@NeptuneService(name = "cache", partitions = 64, consistency = ConsistencyLevel.LEVEL_2)
public final class CacheService implements ServiceLifecycle, Snapshottable {
    /** Longest key, in characters. */
    public static final int MAX_KEY_LENGTH = 256;
    /** Largest value, in bytes. */
    public static final int MAX_VALUE_BYTES = 64 * 1024;

    /**
     * Stores {@code value} under {@code key}.
     *
     * @param key 1 to {@value #MAX_KEY_LENGTH} characters
     * @param value base64 of up to {@value #MAX_VALUE_BYTES} bytes
     */
    public record CacheUpdate(String key, String value) {
        /** Validates the sizes. */
        public CacheUpdate {
            checkKey(key);
            String problem = value == null ? "missing" : valueProblem(value);
            if (problem != null) {
                throw new IllegalArgumentException("value: " + problem + " (expected: base64 of at most "
                        + MAX_VALUE_BYTES + " bytes)");
            }
        }
    }

    /**
     * Looks {@code key} up.
     *
     * @param key the key
     */
    public record CacheLookup(String key) {
        /** Validates the key. */
        public CacheLookup {
            checkKey(key);
        }
    }

    /**
     * The stored value, if any.
     *
     * @param found whether the key is present
     * @param value base64 of the value, or null
     * @param version the partition version the answer was read at
     */
    public record CacheEntry(boolean found, @Nullable String value, long version) {}

    /**
     * The outcome of an update.
     *
     * @param version the LSN of the write
     */
    public record Updated(long version) {}

    private final ServiceDatabase database = new ServiceDatabase("cache");

    /** What is wrong with {@code value}, or null if it is base64 of at most {@value #MAX_VALUE_BYTES} bytes. */
    private static @Nullable String valueProblem(String value) {
        try {
            return Base64.getDecoder().decode(value).length > MAX_VALUE_BYTES ? "too large" : null;
        } catch (IllegalArgumentException e) {
            return "not base64 (" + e.getMessage() + ")";
        }
    }

    private static void checkKey(@Nullable String key) {
        if (key == null || key.isEmpty() || key.length() > MAX_KEY_LENGTH) {
            throw new IllegalArgumentException("key: " + (key == null ? "missing" : key.length() + " characters")
                    + " (expected: 1.." + MAX_KEY_LENGTH + " characters)");
        }
    }

    /** The bucket (partition) of {@code key}: MD5 of its UTF-8 bytes modulo the partition count. */
    public static int bucketOf(String key, int partitions) {
        try {
            byte[] md5 = MessageDigest.getInstance("MD5").digest(key.getBytes(StandardCharsets.UTF_8));
            return new BigInteger(1, md5).mod(BigInteger.valueOf(partitions)).intValue();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every JVM", e);
        }
    }

    @Override
    public void start(ServiceEnvironment environment) {
        database.open(environment.dataDirectory(),
                "CREATE TABLE IF NOT EXISTS cache(partition_id INT, k VARCHAR(" + MAX_KEY_LENGTH
                        + "), v VARCHAR(" + (MAX_VALUE_BYTES * 2) + "), PRIMARY KEY(partition_id, k))");
    }

    @Override
    public void stop() {
        database.close();
    }

    private PartitionDatabase db() {
        return database.get();
    }

    /** Stores the value. */
    @Write(name = "CacheUpdate")
    public Updated update(RequestContext context, CacheUpdate request) {
        db().write(context, connection -> {
            try (PreparedStatement merge = connection.prepareStatement(
                    "MERGE INTO cache(partition_id, k, v) KEY(partition_id, k) VALUES (?, ?, ?)")) {
                merge.setInt(1, context.partition());
                merge.setString(2, request.key());
                merge.setString(3, request.value());
                merge.executeUpdate();
            }
            return null;
        });
        return new Updated(context.lsn());
    }

    /** Reads the value. */
    @Read(name = "CacheLookup")
    public CacheEntry lookup(RequestContext context, CacheLookup request) {
        return db().read(connection -> {
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT v FROM cache WHERE partition_id = ? AND k = ?")) {
                select.setInt(1, context.partition());
                select.setString(2, request.key());
                try (ResultSet rows = select.executeQuery()) {
                    long version = db().appliedLsn(context.partition());
                    return rows.next() ? new CacheEntry(true, rows.getString(1), version)
                            : new CacheEntry(false, null, version);
                }
            }
        });
    }

    /** CHECK: whether the write with {@code lsn} was applied on {@code partition}. */
    @Check
    public boolean check(int partition, long lsn) {
        return db().isApplied(partition, lsn);
    }

    /** Exports a partition: {@link PartitionDatabase#writeSnapshot}. */
    @Override
    public long writeSnapshot(int partition, OutputStream out) {
        return db().writeSnapshot(partition, out);
    }

    /** Imports a partition: {@link PartitionDatabase#restoreSnapshot}. */
    @Override
    public void restoreSnapshot(int partition, InputStream in, long lsn) {
        db().restoreSnapshot(partition, in, lsn);
    }

    /** Forces the database before the node drops log records: {@link PartitionDatabase#force}. */
    @Override
    public void force(int partition) {
        db().force();
    }

    /** A hash of the partition's entries, to compare replicas. */
    @Digest
    public String digest(int partition) {
        return db().digest(partition, "SELECT k, v FROM cache WHERE partition_id = ? ORDER BY k");
    }
}
