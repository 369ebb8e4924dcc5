package io.neptune.server;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import io.neptune.core.Snapshottable;
import io.neptune.core.Write;
import io.neptune.server.SetTestService.Add;
import io.neptune.server.SetTestService.Added;
import io.neptune.server.SetTestService.Members;
import io.neptune.server.SetTestService.ReadMembers;
import io.neptune.server.storage.PartitionDatabase;
import java.io.InputStream;
import java.io.OutputStream;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * {@link SetTestService}'s replicated set (level 1, write-anywhere) on a {@link PartitionDatabase},
 * so its state survives a restart (CHECK answers from the database) and it is {@link Snapshottable}:
 * its replicas' REDO logs are bounded, and one that needs writes its peers dropped installs a snapshot.
 *
 * <p>Thread-safety: thread-safe once started.
 */
@NeptuneService(name = "setdb", partitions = 4, consistency = ConsistencyLevel.LEVEL_1)
public final class SetDbTestService implements ServiceLifecycle, Snapshottable {
    private static final String SCHEMA = "CREATE TABLE IF NOT EXISTS elements(partition_id INT,"
            + " element VARCHAR(256), PRIMARY KEY(partition_id, element))";

    private volatile @Nullable PartitionDatabase database;

    @Override
    public void start(ServiceEnvironment environment) {
        PartitionDatabase opened = PartitionDatabase.open(environment.dataDirectory(), "setdb");
        try {
            opened.transaction(connection -> {
                try (Statement statement = connection.createStatement()) {
                    statement.execute(SCHEMA);
                }
                return null;
            });
        } catch (RuntimeException e) {
            opened.close();
            throw e;
        }
        database = opened;
    }

    @Override
    public void stop() {
        PartitionDatabase opened = database;
        database = null;
        if (opened != null) {
            opened.close();
        }
    }

    /** Adds one element (adds commute: a second add of it changes nothing). */
    @Write
    public Added add(RequestContext context, Add request) {
        int changed = database().write(context, connection -> {
            try (PreparedStatement merge = connection.prepareStatement(
                    "MERGE INTO elements(partition_id, element) KEY(partition_id, element) VALUES (?, ?)")) {
                merge.setInt(1, context.partition());
                merge.setString(2, request.element());
                return merge.executeUpdate();
            }
        });
        return new Added(context.lsn(), changed > 0);
    }

    /** Every element of the partition, sorted. */
    @Read
    public Members members(RequestContext context, ReadMembers request) {
        return database().read(connection -> {
            List<String> elements = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT element FROM elements WHERE partition_id = ? ORDER BY element")) {
                select.setInt(1, context.partition());
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        elements.add(rows.getString(1));
                    }
                }
            }
            return new Members(elements, database().appliedLsn(context.partition()), elements.size());
        });
    }

    @Check
    public boolean check(int partition, long lsn) {
        return database().isApplied(partition, lsn);
    }

    @Override
    public long writeSnapshot(int partition, OutputStream out) {
        return database().writeSnapshot(partition, out);
    }

    @Override
    public void restoreSnapshot(int partition, InputStream in, long lsn) {
        database().restoreSnapshot(partition, in, lsn);
    }

    @Override
    public void force(int partition) {
        database().force();
    }

    private PartitionDatabase database() {
        PartitionDatabase opened = database;
        if (opened == null) {
            throw new IllegalStateException("setdb: not started (expected: start() before calls)");
        }
        return opened;
    }
}
