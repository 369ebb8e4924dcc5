package com.example.counter;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import io.neptune.core.Write;
import io.neptune.server.storage.ServiceDatabase;
import java.sql.PreparedStatement;
import java.sql.ResultSet;

/** Named counters, 8 partitions, replicated at level 2 on H2 (README: "Running the distribution"). */
@NeptuneService(name = "counter", partitions = 8, consistency = ConsistencyLevel.LEVEL_2)
public final class CounterService implements ServiceLifecycle {
    public record Add(String name, long delta) {}
    public record Get(String name) {}
    public record Count(String name, long value) {}

    private final ServiceDatabase database = new ServiceDatabase("counter");

    @Override
    public void start(ServiceEnvironment environment) {
        database.open(environment.dataDirectory(), "CREATE TABLE IF NOT EXISTS counter(partition_id INT,"
                + " name VARCHAR(256), v BIGINT, PRIMARY KEY(partition_id, name))");
    }

    @Override
    public void stop() {
        database.close();
    }

    @Write
    public Count add(RequestContext context, Add add) {
        return database.get().write(context, connection -> {   // the row and the write's LSN commit together
            try (PreparedStatement update = connection.prepareStatement("MERGE INTO counter(partition_id, name, v)"
                    + " KEY(partition_id, name) VALUES (?, ?, COALESCE((SELECT v FROM counter WHERE partition_id = ?"
                    + " AND name = ?), 0) + ?)")) {
                update.setInt(1, context.partition());
                update.setString(2, add.name());
                update.setInt(3, context.partition());
                update.setString(4, add.name());
                update.setLong(5, add.delta());
                update.executeUpdate();
            }
            return new Count(add.name(), value(connection, context.partition(), add.name()));
        });
    }

    @Read
    public Count get(RequestContext context, Get get) {
        return database.get().read(connection -> new Count(get.name(),
                value(connection, context.partition(), get.name())));
    }

    @Check
    public boolean check(int partition, long lsn) {
        return database.get().isApplied(partition, lsn);
    }

    private static long value(java.sql.Connection connection, int partition, String name) throws java.sql.SQLException {
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT v FROM counter WHERE partition_id = ? AND name = ?")) {
            query.setInt(1, partition);
            query.setString(2, name);
            try (ResultSet rows = query.executeQuery()) {
                return rows.next() ? rows.getLong(1) : 0;
            }
        }
    }
}
