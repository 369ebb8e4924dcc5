package io.neptune.examples.discussion;

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
import io.neptune.server.storage.ServiceDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A discussion group: topics hash to partitions; each topic holds messages that reply to each
 * other. Level 2: every replica applies the same posts in the same order, so message ids (the
 * write's LSN) and the reply hierarchy are identical everywhere.
 *
 * <p>Thread-safety: thread-safe; state lives in H2.
 */
@NeptuneService(name = "discussion", partitions = 64, consistency = ConsistencyLevel.LEVEL_2)
public final class DiscussionService implements ServiceLifecycle {
    /**
     * {@code AddMsg}: posts a message, optionally as a reply.
     *
     * @param topic the topic
     * @param author who posts
     * @param subject the subject line
     * @param body the text, at most 64 KiB
     * @param parentId the message this replies to, in the same topic; null for a new thread
     * @param postedAt posting time in ms since the epoch, chosen by the caller so every replica stores the same
     */
    public record AddMsg(String topic, String author, String subject, String body, @Nullable Long parentId,
            long postedAt) {
        /** Validates the fields. */
        public AddMsg {
            Texts.name("topic", topic);
            Texts.name("author", author);
            Texts.name("subject", subject);
            Texts.text("body", body);
        }
    }

    /**
     * The outcome of a post.
     *
     * @param added whether it was stored
     * @param id the new message id (0 if not added)
     * @param version the partition version after the post
     * @param error why it was refused (e.g. unknown parent); empty when added
     */
    public record Added(boolean added, long id, long version, String error) {}

    /**
     * {@code ViewHeaders}: the message headers of a topic.
     *
     * @param topic the topic
     */
    public record ViewHeaders(String topic) {
        /** Validates the topic. */
        public ViewHeaders {
            Texts.name("topic", topic);
        }
    }

    /**
     * One message header.
     *
     * @param id message id
     * @param parentId the message it replies to, or null
     * @param author who posted
     * @param subject subject line
     * @param postedAt posting time, ms since the epoch
     * @param depth 0 for a thread's first message, 1 for its replies, and so on
     */
    public record Header(long id, @Nullable Long parentId, String author, String subject, long postedAt, int depth) {}

    /**
     * The headers of a topic: each reply right after its parent, depth-first, by posting time.
     *
     * @param topic the topic
     * @param version the partition version they were read at
     * @param headers the headers in reply-to order
     */
    public record Headers(String topic, long version, List<Header> headers) {}

    /**
     * {@code ViewMsg}: one message.
     *
     * @param topic the topic
     * @param id the message id
     */
    public record ViewMsg(String topic, long id) {
        /** Validates the topic. */
        public ViewMsg {
            Texts.name("topic", topic);
        }
    }

    /**
     * A message, if found.
     *
     * @param found whether it exists in the topic
     * @param id message id
     * @param parentId the message it replies to, or null
     * @param author who posted
     * @param subject subject line
     * @param body the text
     * @param postedAt posting time, ms since the epoch
     * @param version the partition version it was read at
     */
    public record Message(boolean found, long id, @Nullable Long parentId, String author, String subject, String body,
            long postedAt, long version) {}

    private final ServiceDatabase database = new ServiceDatabase("discussion");

    @Override
    public void start(ServiceEnvironment environment) {
        database.open(environment.dataDirectory(),
                "CREATE TABLE IF NOT EXISTS message(partition_id INT NOT NULL, id BIGINT NOT NULL,"
                        + " topic VARCHAR(200) NOT NULL, parent_id BIGINT, author VARCHAR(200) NOT NULL,"
                        + " subject VARCHAR(200) NOT NULL, body CLOB NOT NULL, posted_at BIGINT NOT NULL,"
                        + " PRIMARY KEY(partition_id, id))",
                "CREATE INDEX IF NOT EXISTS message_topic ON message(partition_id, topic, posted_at)");
    }

    @Override
    public void stop() {
        database.close();
    }

    private PartitionDatabase db() {
        return database.get();
    }

    /** Posts a message; a reply's parent must exist in the same topic. */
    @Write(name = "AddMsg")
    public Added addMsg(RequestContext context, AddMsg request) {
        return db().write(context, connection -> {
            if (request.parentId() != null && !exists(connection, context.partition(), request.topic(),
                    request.parentId())) {
                return new Added(false, 0, context.lsn(), "parentId: " + request.parentId()
                        + " (expected: a message of topic '" + request.topic() + "')");
            }
            try (PreparedStatement insert = connection.prepareStatement("INSERT INTO message(partition_id, id, topic,"
                    + " parent_id, author, subject, body, posted_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                insert.setInt(1, context.partition());
                insert.setLong(2, context.lsn());
                insert.setString(3, request.topic());
                if (request.parentId() == null) {
                    insert.setNull(4, java.sql.Types.BIGINT);
                } else {
                    insert.setLong(4, request.parentId());
                }
                insert.setString(5, request.author());
                insert.setString(6, request.subject());
                insert.setString(7, request.body());
                insert.setLong(8, request.postedAt());
                insert.executeUpdate();
            }
            return new Added(true, context.lsn(), context.lsn(), "");
        });
    }

    private static boolean exists(Connection connection, int partition, String topic, long id) throws SQLException {
        try (PreparedStatement select = connection.prepareStatement(
                "SELECT 1 FROM message WHERE partition_id = ? AND topic = ? AND id = ?")) {
            select.setInt(1, partition);
            select.setString(2, topic);
            select.setLong(3, id);
            try (ResultSet rows = select.executeQuery()) {
                return rows.next();
            }
        }
    }

    /** The headers of a topic in reply-to order. */
    @Read(name = "ViewHeaders")
    public Headers viewHeaders(RequestContext context, ViewHeaders request) {
        List<Header> flat = db().read(connection -> {
            List<Header> rows = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement("SELECT id, parent_id, author, subject,"
                    + " posted_at FROM message WHERE partition_id = ? AND topic = ? ORDER BY posted_at, id")) {
                select.setInt(1, context.partition());
                select.setString(2, request.topic());
                try (ResultSet r = select.executeQuery()) {
                    while (r.next()) {
                        long parent = r.getLong(2);
                        Long parentId = r.wasNull() ? null : parent; // before the next getter resets wasNull()
                        rows.add(new Header(r.getLong(1), parentId, r.getString(3), r.getString(4), r.getLong(5), 0));
                    }
                }
            }
            return rows;
        });
        return new Headers(request.topic(), db().appliedLsn(context.partition()), threaded(flat));
    }

    /** Orders headers depth-first: each reply directly after its parent, siblings by posting time. */
    static List<Header> threaded(List<Header> byTime) {
        Map<Long, List<Header>> children = new HashMap<>();
        List<Header> roots = new ArrayList<>();
        for (Header h : byTime) {
            if (h.parentId() == null) {
                roots.add(h);
            } else {
                children.computeIfAbsent(h.parentId(), k -> new ArrayList<>()).add(h);
            }
        }
        List<Header> out = new ArrayList<>(byTime.size());
        java.util.ArrayDeque<Visit> stack = new java.util.ArrayDeque<>();
        for (int i = roots.size() - 1; i >= 0; i--) {
            stack.push(new Visit(roots.get(i), 0));
        }
        while (!stack.isEmpty()) {
            Visit visit = stack.pop();
            Header h = visit.header();
            out.add(new Header(h.id(), h.parentId(), h.author(), h.subject(), h.postedAt(), visit.depth()));
            List<Header> replies = children.getOrDefault(h.id(), List.of());
            for (int i = replies.size() - 1; i >= 0; i--) {
                stack.push(new Visit(replies.get(i), visit.depth() + 1));
            }
        }
        return out;
    }

    private record Visit(Header header, int depth) {}

    /** One message of a topic. */
    @Read(name = "ViewMsg")
    public Message viewMsg(RequestContext context, ViewMsg request) {
        long version = db().appliedLsn(context.partition());
        return db().read(connection -> {
            try (PreparedStatement select = connection.prepareStatement("SELECT parent_id, author, subject, body,"
                    + " posted_at FROM message WHERE partition_id = ? AND topic = ? AND id = ?")) {
                select.setInt(1, context.partition());
                select.setString(2, request.topic());
                select.setLong(3, request.id());
                try (ResultSet r = select.executeQuery()) {
                    if (!r.next()) {
                        return new Message(false, request.id(), null, "", "", "", 0, version);
                    }
                    long parent = r.getLong(1);
                    Long parentId = r.wasNull() ? null : parent;
                    return new Message(true, request.id(), parentId, r.getString(2), r.getString(3), r.getString(4),
                            r.getLong(5), version);
                }
            }
        });
    }

    /** CHECK: whether the write with {@code lsn} was applied on {@code partition}. */
    @Check
    public boolean check(int partition, long lsn) {
        return db().isApplied(partition, lsn);
    }

    /** A hash of the partition's messages. */
    @Digest
    public String digest(int partition) {
        return db().digest(partition, "SELECT id, topic, parent_id, author, subject, body, posted_at FROM message"
                + " WHERE partition_id = ? ORDER BY id");
    }
}
