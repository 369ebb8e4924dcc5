package io.neptune.server;

import io.neptune.core.ConsistencyLevel;
import io.neptune.core.Digest;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import io.neptune.core.Write;
import io.neptune.server.storage.ServiceDatabase;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;

/**
 * A level-1 set of strings per partition kept in H2 and without a {@code @Check}: an add is an
 * idempotent {@code MERGE}, so running a logged write again is harmless, which is what recovery
 * without CHECK relies on (every logged write runs again after a restart).
 *
 * <p>Thread-safety: thread-safe once started.
 */
@NeptuneService(name = "uset", partitions = 2, consistency = ConsistencyLevel.LEVEL_1)
public final class UncheckedSetTestService implements ServiceLifecycle {
    static final String SERVICE = "uset";

    /** Adds one element. */
    public record Add(String element) {}

    /** Asks for every element. */
    public record ReadMembers() {}

    /** The elements of a partition, sorted. */
    public record Members(List<String> elements) {}

    private final ServiceDatabase database = new ServiceDatabase(SERVICE);

    @Override
    public void start(ServiceEnvironment environment) {
        database.open(environment.dataDirectory(), "CREATE TABLE IF NOT EXISTS members(partition_id INT,"
                + " element VARCHAR(256), PRIMARY KEY(partition_id, element))");
    }

    @Override
    public void stop() {
        database.close();
    }

    /** Adds an element (again, harmlessly, if it is there). */
    @Write
    public Boolean add(RequestContext context, Add request) {
        return database.get().transaction(connection -> {
            try (PreparedStatement merge = connection.prepareStatement(
                    "MERGE INTO members(partition_id, element) KEY(partition_id, element) VALUES (?, ?)")) {
                merge.setInt(1, context.partition());
                merge.setString(2, request.element());
                return merge.executeUpdate() > 0;
            }
        });
    }

    /** Every element of the partition. */
    @Read
    public Members members(RequestContext context, ReadMembers request) {
        return database.get().read(connection -> {
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT element FROM members WHERE partition_id = ? ORDER BY element")) {
                select.setInt(1, context.partition());
                List<String> elements = new ArrayList<>();
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        elements.add(rows.getString(1));
                    }
                }
                return new Members(elements);
            }
        });
    }

    /** The partition's elements, hashed. */
    @Digest
    public String digest(int partition) {
        return database.get().digest(partition, "SELECT element FROM members WHERE partition_id = ? ORDER BY element");
    }
}
