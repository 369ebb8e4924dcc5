package io.neptune.server.storage;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * The {@link PartitionDatabase} of a service, opened with its schema when the service starts and
 * closed when it stops: the lifecycle every H2-backed service repeats, in one place.
 *
 * <pre>{@code
 * private final ServiceDatabase database = new ServiceDatabase("cache");
 * public void start(ServiceEnvironment env) { database.open(env.dataDirectory(), "CREATE TABLE IF NOT EXISTS ..."); }
 * public void stop() { database.close(); }
 * ... database.get().write(context, connection -> ...)
 * }</pre>
 *
 * <p>Thread-safety: thread-safe.
 */
public final class ServiceDatabase implements AutoCloseable {
    private final String name;
    private volatile @Nullable PartitionDatabase database;

    /** Creates an unopened holder; {@code name} names the database file and appears in errors. */
    public ServiceDatabase(String name) {
        this.name = name;
    }

    /** Opens {@code directory/name} and runs the schema statements (e.g. {@code CREATE TABLE IF NOT EXISTS}) in one transaction. */
    public void open(Path directory, String... schema) {
        PartitionDatabase db = PartitionDatabase.open(directory, name);
        db.transaction(connection -> {
            try (var statement = connection.createStatement()) {
                for (String sql : schema) {
                    statement.execute(sql);
                }
            }
            return null;
        });
        database = db;
    }

    /** The open database; throws if the service has not started. */
    public PartitionDatabase get() {
        PartitionDatabase db = database;
        if (db == null) {
            throw new IllegalStateException(name + " service not started");
        }
        return db;
    }

    /** Closes the database if open; idempotent. */
    @Override
    public void close() {
        PartitionDatabase db = database;
        database = null;
        if (db != null) {
            db.close();
        }
    }
}
