package io.neptune.benchmarks;

import static java.util.Objects.requireNonNull;

import io.neptune.core.Check;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.Digest;
import io.neptune.core.NeptuneService;
import io.neptune.core.Read;
import io.neptune.core.RequestContext;
import io.neptune.core.ServiceEnvironment;
import io.neptune.core.ServiceLifecycle;
import io.neptune.core.Write;
import io.neptune.server.storage.PartitionDatabase;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The discussion group of the dissertation's replication experiments (§5.3), cut to the two
 * requests the workload uses: {@code AddMsg} posts a message to a topic (the write) and
 * {@code ViewHeaders} lists a topic's newest headers (the read). Both do their real H2 work and
 * hold one of the node's emulated workers ({@link ServerCapacity}) for their emulated service
 * time. A message's id is chosen by the client, so posts commute and the same code serves all
 * three consistency levels; since the level is fixed by {@link NeptuneService}, each level is a
 * tiny subclass ({@link Level1}, {@link Level2}, {@link Level3}).
 *
 * <p>Thread-safety: thread-safe; state lives in H2.
 */
public abstract class EmulatedDiscussion implements ServiceLifecycle {
    /** Partitions of every level's service, as in the dissertation (§5.4.1). */
    public static final int PARTITIONS = 64;
    /** Headers returned by one {@code ViewHeaders}: a page, newest first. */
    static final int HEADERS_PAGE = 20;

    private final ServerCapacity capacity;
    private final ServiceTimes times;
    private volatile @Nullable PartitionDatabase database;

    /**
     * Emulated service times.
     *
     * @param read how long a {@code ViewHeaders} holds a worker
     * @param write how long an {@code AddMsg} holds a worker, at every replica that applies it
     */
    public record ServiceTimes(Duration read, Duration write) {
        /** Validates the times. */
        public ServiceTimes {
            requireNonNull(read, "read");
            requireNonNull(write, "write");
        }
    }

    /**
     * {@code AddMsg}: posts a message.
     *
     * @param topic the discussion group
     * @param id the message id, unique, chosen by the client (so posts commute)
     * @param author who posts
     * @param subject the subject line
     * @param body the text
     * @param postedAt posting time in ms since the epoch, chosen by the client
     */
    public record AddMsg(String topic, long id, String author, String subject, String body, long postedAt) {}

    /**
     * The outcome of a post.
     *
     * @param id the message id
     * @param node the node that ran the post for the client (its origin at level 1, the primary at levels 2 and 3)
     */
    public record Added(long id, String node) {}

    /**
     * {@code ViewHeaders}: the newest message headers of a topic.
     *
     * @param topic the discussion group
     */
    public record ViewHeaders(String topic) {}

    /**
     * One message header.
     *
     * @param id message id
     * @param author who posted
     * @param subject subject line
     * @param postedAt posting time, ms since the epoch
     */
    public record Header(long id, String author, String subject, long postedAt) {}

    /**
     * A page of headers.
     *
     * @param topic the topic
     * @param node the node that served the read
     * @param headers at most {@value EmulatedDiscussion#HEADERS_PAGE} headers, newest first
     */
    public record Headers(String topic, String node, List<Header> headers) {}

    EmulatedDiscussion(ServerCapacity capacity, ServiceTimes times) {
        this.capacity = requireNonNull(capacity, "capacity");
        this.times = requireNonNull(times, "times");
    }

    @Override
    public void start(ServiceEnvironment environment) {
        PartitionDatabase db = PartitionDatabase.open(environment.dataDirectory(), "discussion");
        db.transaction(connection -> {
            try (var statement = connection.createStatement()) {
                statement.execute("CREATE TABLE IF NOT EXISTS message(partition_id INT NOT NULL, id BIGINT NOT NULL,"
                        + " topic VARCHAR(64) NOT NULL, author VARCHAR(64) NOT NULL, subject VARCHAR(200) NOT NULL,"
                        + " body VARCHAR(4000) NOT NULL, posted_at BIGINT NOT NULL, PRIMARY KEY(partition_id, id))");
                statement.execute("CREATE INDEX IF NOT EXISTS message_topic"
                        + " ON message(partition_id, topic, posted_at)");
            }
            return null;
        });
        database = db;
    }

    @Override
    public void stop() {
        PartitionDatabase db = database;
        if (db != null) {
            db.close();
        }
    }

    private PartitionDatabase db() {
        PartitionDatabase db = database;
        if (db == null) {
            throw new IllegalStateException("discussion service not started");
        }
        return db;
    }

    /** Posts a message; a repeated id overwrites the same row, so a post applied twice is harmless. */
    @Write(name = "AddMsg")
    public Added addMsg(RequestContext context, AddMsg request) {
        return capacity.serve(times.write(), () -> db().write(context, connection -> {
            try (PreparedStatement merge = connection.prepareStatement("MERGE INTO message(partition_id, id, topic,"
                    + " author, subject, body, posted_at) KEY(partition_id, id) VALUES (?, ?, ?, ?, ?, ?, ?)")) {
                merge.setInt(1, context.partition());
                merge.setLong(2, request.id());
                merge.setString(3, request.topic());
                merge.setString(4, request.author());
                merge.setString(5, request.subject());
                merge.setString(6, request.body());
                merge.setLong(7, request.postedAt());
                merge.executeUpdate();
            }
            return new Added(request.id(), context.node().value());
        }));
    }

    /** The newest headers of a topic. */
    @Read(name = "ViewHeaders")
    public Headers viewHeaders(RequestContext context, ViewHeaders request) {
        return capacity.serve(times.read(), () -> db().read(connection -> {
            List<Header> headers = new ArrayList<>(HEADERS_PAGE);
            try (PreparedStatement select = connection.prepareStatement("SELECT id, author, subject, posted_at"
                    + " FROM message WHERE partition_id = ? AND topic = ? ORDER BY posted_at DESC, id DESC LIMIT ?")) {
                select.setInt(1, context.partition());
                select.setString(2, request.topic());
                select.setInt(3, HEADERS_PAGE);
                try (ResultSet r = select.executeQuery()) {
                    while (r.next()) {
                        headers.add(new Header(r.getLong(1), r.getString(2), r.getString(3), r.getLong(4)));
                    }
                }
            }
            return new Headers(request.topic(), context.node().value(), headers);
        }));
    }

    /** CHECK: whether the write with {@code lsn} was applied on {@code partition}. */
    @Check
    public boolean check(int partition, long lsn) {
        return db().isApplied(partition, lsn);
    }

    /** The partition's messages, hashed, so replicas can be compared ({@code ClusterAdmin.replicas}). */
    @Digest
    public String digest(int partition) {
        return db().digest(partition, "SELECT id, topic, author, subject, body, posted_at FROM message"
                + " WHERE partition_id = ? ORDER BY id");
    }

    /** The service class of {@code level}. */
    static Class<? extends EmulatedDiscussion> classOf(ConsistencyLevel level) {
        return switch (level) {
            case LEVEL_1 -> Level1.class;
            case LEVEL_2 -> Level2.class;
            case LEVEL_3 -> Level3.class;
        };
    }

    /** The service name of {@code level}. */
    static String nameOf(ConsistencyLevel level) {
        return classOf(level).getAnnotation(NeptuneService.class).name();
    }

    /** A new instance of {@code level}'s service on a node with {@code capacity}. */
    static EmulatedDiscussion create(ConsistencyLevel level, ServerCapacity capacity, ServiceTimes times) {
        return switch (level) {
            case LEVEL_1 -> new Level1(capacity, times);
            case LEVEL_2 -> new Level2(capacity, times);
            case LEVEL_3 -> new Level3(capacity, times);
        };
    }

    /** The discussion group with level-1 (write-anywhere) replication. */
    @NeptuneService(name = "bench-discussion-l1", partitions = PARTITIONS, consistency = ConsistencyLevel.LEVEL_1)
    public static final class Level1 extends EmulatedDiscussion {
        Level1(ServerCapacity capacity, ServiceTimes times) {
            super(capacity, times);
        }
    }

    /** The discussion group with level-2 (primary-secondary) replication. */
    @NeptuneService(name = "bench-discussion-l2", partitions = PARTITIONS, consistency = ConsistencyLevel.LEVEL_2)
    public static final class Level2 extends EmulatedDiscussion {
        /**
         * For the node processes of the {@link FailureTimelineExperiment}, started from a config
         * file: one emulated machine with {@link ReplicationExperiment#WORKERS} workers and
         * {@link FailureTimelineExperiment#TIMES}.
         */
        public Level2() {
            this(new ServerCapacity(ReplicationExperiment.WORKERS), FailureTimelineExperiment.TIMES);
        }

        Level2(ServerCapacity capacity, ServiceTimes times) {
            super(capacity, times);
        }
    }

    /** The discussion group with level-3 replication: level 2 plus a one-second staleness bound. */
    @NeptuneService(name = "bench-discussion-l3", partitions = PARTITIONS, consistency = ConsistencyLevel.LEVEL_3,
            stalenessMillis = 1000)
    public static final class Level3 extends EmulatedDiscussion {
        Level3(ServerCapacity capacity, ServiceTimes times) {
            super(capacity, times);
        }
    }
}
