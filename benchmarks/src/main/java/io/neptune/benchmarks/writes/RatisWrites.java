package io.neptune.benchmarks.writes;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.ratis.RaftConfigKeys;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.rpc.SupportedRpcType;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.apache.ratis.util.SizeInBytes;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Apache Ratis, the replicated log users already trust: {@code peers} Raft servers in this JVM on
 * 127.0.0.1 with ephemeral ports and Ratis's default gRPC transport, each hosting {@code groups}
 * Raft groups (one per partition, Ratis's multi-raft) with a {@link KvStateMachine}, and one
 * {@link RaftClient} per group sending asynchronously. Group {@code g}'s peer {@code g mod peers}
 * has the highest priority, so leaders spread over the servers as Neptune's primaries do.
 *
 * <p>Configured as Ratis's own documentation and examples do (issue 26: a floor is configured per its
 * own guidance before a margin is claimed); each setting in {@link #properties()} names its source, in
 * the Apache Ratis repository at tag {@value #RATIS_TAG} (the version this module depends on) unless it
 * says otherwise. {@link #changedSettings()} lists them for the report.
 *
 * <p>The log's durability is Ratis's default and is set explicitly: {@code raft.server.log.unsafe-flush.enabled}
 * and {@code raft.server.log.async-flush.enabled} are false, so a leader counts its own entry, and a
 * follower acknowledges one, only once the log worker forced it ({@code FileChannel.force(false)}, one
 * force for the entries queued meanwhile: when no further write is queued, or after
 * {@code raft.server.log.force.sync.num} entries).
 *
 * <p>Thread-safety: {@link #put} is thread-safe; start and close from one thread.
 */
final class RatisWrites implements WriteTarget {
    private static final Logger logger = LoggerFactory.getLogger(RatisWrites.class);
    /** The Ratis release whose sources the settings cite (the pom's {@code ratis.version}). */
    static final String RATIS_TAG = "ratis-3.1.3";
    /** Where the settings' sources live. */
    static final String RATIS_REPOSITORY = "https://github.com/apache/ratis/blob/" + RATIS_TAG + "/";
    /** The filestore example's server, whose settings "avoid leader change affect the performance". */
    static final String FILESTORE_SERVER = "ratis-examples/src/main/java/org/apache/ratis/examples/filestore/cli/Server.java";
    /** The filestore example's load generator ({@code LoadGen} runs it). */
    static final String FILESTORE_CLIENT = "ratis-examples/src/main/java/org/apache/ratis/examples/filestore/cli/Client.java";
    /** Ratis's configuration reference. */
    static final String CONFIGURATIONS = "ratis-docs/src/site/markdown/configurations.md";
    /** Calls one client may have outstanding: the filestore client's 1000, rounded up; the default is 100. */
    static final int OUTSTANDING_MAX = 1024;
    /** {@code raft.server.rpc.timeout.min}: see {@link #properties()}. */
    static final TimeDuration ELECTION_TIMEOUT_MIN = TimeDuration.valueOf(2, TimeUnit.SECONDS);
    /** {@code raft.server.rpc.timeout.max}: see {@link #properties()}. */
    static final TimeDuration ELECTION_TIMEOUT_MAX = TimeDuration.valueOf(3, TimeUnit.SECONDS);
    /** {@code raft.server.write.element-limit}: see {@link #properties()}. */
    static final int WRITE_ELEMENT_LIMIT = 40960;
    /** {@code raft.server.write.byte-limit}: see {@link #properties()}. */
    static final SizeInBytes WRITE_BYTE_LIMIT = SizeInBytes.valueOf("1000MB");
    /** {@code raft.server.log.appender.buffer.byte-limit}: see {@link #properties()}. */
    static final SizeInBytes APPENDER_BATCH = SizeInBytes.valueOf("1MB");
    /** {@code raft.server.log.write.buffer.size}: see {@link #properties()}. */
    static final SizeInBytes WRITE_BUFFER = SizeInBytes.valueOf("2MB");

    private final Path work;
    private final RaftProperties properties;
    private final List<RaftServer> servers = new ArrayList<>();
    private final List<RaftClient> clients = new ArrayList<>();

    private RatisWrites(Path work, RaftProperties properties) {
        this.work = work;
        this.properties = properties;
    }

    /** Starts {@code peers} servers, adds {@code groups} groups to every one, and waits until each group has a leader. */
    static RatisWrites start(int peers, int groups) {
        RatisWrites ratis;
        try {
            ratis = new RatisWrites(Files.createTempDirectory("neptune-bench-ratis-"), properties());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        try {
            ratis.startServers(peers);
            ratis.addGroups(groups);
            return ratis;
        } catch (IOException e) {
            ratis.close();
            throw new UncheckedIOException(e);
        } catch (RuntimeException e) {
            ratis.close();
            throw e;
        }
    }

    private static RaftProperties properties() {
        RaftProperties p = new RaftProperties();
        RaftConfigKeys.Rpc.setType(p, SupportedRpcType.GRPC);
        GrpcConfigKeys.Server.setHost(p, "127.0.0.1");
        GrpcConfigKeys.Server.setPort(p, 0);
        // Durability: the defaults (CONFIGURATIONS, "Log"), set so that it cannot drift with a Ratis upgrade.
        // unsafe-flush advances the flush index without waiting for the force: not the durability Neptune keeps.
        // async-flush forces on another thread; it stays off because in SegmentedRaftLogWorker.asyncFlushOutStream
        // (ratis-server/src/main/java/org/apache/ratis/server/raftlog/segmented/SegmentedRaftLogWorker.java) the
        // flush index becomes lastWrittenIndex as read when the force completes, which can include entries the
        // worker wrote into its buffer after that force began (and a failed force advances it too), so an entry
        // could be acknowledged before it is forced.
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, false);
        RaftServerConfigKeys.Log.setAsyncFlushEnabled(p, false);
        // raft.server.log.force.sync.num: the default 128 (CONFIGURATIONS; TestSegmentedRaftLog sets the same), set
        // explicitly. The worker forces when no further write is queued, or after this many entries; 64 writers
        // never have 128 entries of one group pending, so every force covers all that was queued (group commit).
        RaftServerConfigKeys.Log.setForceSyncNum(p, RaftServerConfigKeys.Log.FORCE_SYNC_NUM_DEFAULT);
        // raft.server.write.element-limit and byte-limit: the filestore server's 40960 and 1000MB (FILESTORE_SERVER;
        // defaults 4096 and 64MB), so pending writes are never refused; here at most 256 are outstanding anyway.
        RaftServerConfigKeys.Write.setElementLimit(p, WRITE_ELEMENT_LIMIT);
        RaftServerConfigKeys.Write.setByteLimit(p, WRITE_BYTE_LIMIT);
        // raft.server.log.write.buffer.size and raft.server.log.appender.buffer.byte-limit: the filestore client
        // (FILESTORE_CLIENT) raises both to 1 GB for its 1 GB streamed files; the defaults are 8MB and 4MB. The
        // write buffer is direct memory per group and peer, and 192 of even the defaults would not fit this JVM, so
        // both are smaller, keeping the rule the worker enforces (buffer >= byte-limit + 8): an appendEntries of
        // 1MB still holds 250 entries of 4 KB, more than the writes outstanding per group here (at most 64 x 4 KB).
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, APPENDER_BATCH);
        RaftServerConfigKeys.Log.setWriteBufferSize(p, WRITE_BUFFER);
        // raft.grpc.flow.control.window: the default 1MB (GrpcConfigKeys; no example changes it), set explicitly.
        // It matches the largest appendEntries (APPENDER_BATCH) and is four times the bytes outstanding per group.
        GrpcConfigKeys.setFlowControlWindow(p, GrpcConfigKeys.FLOW_CONTROL_WINDOW_DEFAULT);
        // raft.server.rpc.timeout.min/max: the filestore server's 2 s and 3 s, "Avoid leader change affect the
        // performance" (FILESTORE_SERVER; default 150-300 ms, which sets off elections whenever this shared host
        // starves a follower for a few hundred ms). Heartbeats follow at half the minimum.
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, ELECTION_TIMEOUT_MIN);
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, ELECTION_TIMEOUT_MAX);
        // raft.client.async.outstanding-requests.max: the filestore client sets 1000 (FILESTORE_CLIENT); the default
        // of 100 would queue 256 writers in the client.
        RaftClientConfigKeys.Async.setOutstandingRequestsMax(p, OUTSTANDING_MAX);
        return p;
    }

    private void startServers(int peers) throws IOException {
        for (int i = 0; i < peers; i++) {
            RaftProperties p = new RaftProperties(properties);
            RaftServerConfigKeys.setStorageDir(p, List.of(work.resolve("s" + i).toFile()));
            RaftServer server = RaftServer.newBuilder().setServerId(RaftPeerId.valueOf("s" + i)).setProperties(p)
                    .setStateMachineRegistry(group -> new KvStateMachine()).build();
            servers.add(server);
            server.start();
        }
    }

    private void addGroups(int groups) throws IOException {
        for (int g = 0; g < groups; g++) {
            List<RaftPeer> peers = new ArrayList<>();
            for (int i = 0; i < servers.size(); i++) {
                RaftServer server = servers.get(i);
                InetSocketAddress address = server.getServerRpc().getInetSocketAddress();
                peers.add(RaftPeer.newBuilder().setId(server.getId()).setAddress("127.0.0.1:" + address.getPort())
                        .setPriority(i == g % servers.size() ? 1 : 0).build());
            }
            RaftGroup group = RaftGroup.valueOf(RaftGroupId.randomId(), peers);
            try (RaftClient admin = RaftClient.newBuilder().setProperties(adminProperties()).setRaftGroup(group)
                    .setRetryPolicy(RetryPolicies.noRetry()).build()) { // a failed setup fails the run
                for (RaftPeer peer : peers) {
                    check(admin.getGroupManagementApi(peer.getId()).add(group), "add " + group.getGroupId());
                }
            }
            clients.add(RaftClient.newBuilder().setProperties(properties).setRaftGroup(group).build());
        }
        for (RaftClient client : clients) { // the first write waits for the election
            check(client.io().send(KvStateMachine.put("ready", "")), "the first write");
        }
        logger.info("ratis: {} peers, {} groups, leaders elected; {}", servers.size(), groups, durability());
    }

    /** A group add formats storage with forces; on a starved host it can take longer than the 3 s default. */
    private RaftProperties adminProperties() {
        RaftProperties p = new RaftProperties(properties);
        RaftClientConfigKeys.Rpc.setRequestTimeout(p, TimeDuration.valueOf(30, TimeUnit.SECONDS));
        return p;
    }

    private static void check(RaftClientReply reply, String what) {
        if (!reply.isSuccess()) {
            throw new IllegalStateException("ratis: " + what + " failed: " + reply);
        }
    }

    @Override
    public CompletableFuture<?> put(int partition, String key, String value) {
        return clients.get(partition).async().send(KvStateMachine.put(key, value)).thenApply(reply -> {
            if (!reply.isSuccess()) {
                throw new IllegalStateException("ratis: write failed: " + reply.getException());
            }
            return reply;
        });
    }

    /** The settings this experiment sets, each with its source (a path under {@link #RATIS_REPOSITORY}), for the report. */
    static String changedSettings() {
        String server = FILESTORE_SERVER;
        String client = FILESTORE_CLIENT;
        return "raft.server.write.element-limit " + WRITE_ELEMENT_LIMIT + " and raft.server.write.byte-limit "
                + WRITE_BYTE_LIMIT + " (default 4096 and 64MB; " + server + "), raft.server.rpc.timeout.min/max "
                + ELECTION_TIMEOUT_MIN + "/" + ELECTION_TIMEOUT_MAX + " (default 150/300 ms; " + server
                + ": \"Avoid leader change affect the performance\"), raft.client.async.outstanding-requests.max "
                + OUTSTANDING_MAX + " (default 100; " + client + " sets 1000), raft.server.log.write.buffer.size "
                + WRITE_BUFFER + " and raft.server.log.appender.buffer.byte-limit " + APPENDER_BATCH
                + " (default 8MB and 4MB; " + client + " raises both to 1 GB for 1 GB files, but the buffer is"
                + " direct memory per group and peer), and at their defaults, set explicitly: raft.server.log.force.sync.num "
                + RaftServerConfigKeys.Log.FORCE_SYNC_NUM_DEFAULT + ", raft.grpc.flow.control.window "
                + GrpcConfigKeys.FLOW_CONTROL_WINDOW_DEFAULT + ", raft.server.log.unsafe-flush.enabled and"
                + " async-flush.enabled false (" + CONFIGURATIONS + "; async flush stays off because"
                + " in " + RATIS_TAG + "'s SegmentedRaftLogWorker.asyncFlushOutStream the flush index becomes the last"
                + " written index as read when the force completes, which can cover entries written after the force"
                + " began). The state machine follows ratis-examples/src/main/java/org/apache/ratis/"
                + "examples/counter/server/CounterStateMachine.java: BaseStateMachine, applyTransaction applies in"
                + " place and answers with a completed future";
    }

    @Override
    public String durability() {
        return String.format(Locale.ROOT, "the log entry written and forced (FileChannel.force(false) by the log"
                + " worker, one force for the entries queued meanwhile: it forces when no further write is queued,"
                + " or after %d entries, raft.server.log.force.sync.num) on a majority of the %d peers, the leader's own counted only"
                + " once forced (raft.server.log.unsafe-flush.enabled=%s, async-flush.enabled=%s), before the"
                + " leader applies it and answers", RaftServerConfigKeys.Log.forceSyncNum(properties),
                servers.size(), RaftServerConfigKeys.Log.unsafeFlushEnabled(properties),
                RaftServerConfigKeys.Log.asyncFlushEnabled(properties));
    }

    @Override
    public void close() {
        for (RaftClient client : clients) {
            try {
                client.close();
            } catch (IOException | RuntimeException e) {
                logger.warn("ratis: closing a client failed: {}", e.toString());
            }
        }
        clients.clear();
        for (RaftServer server : servers) {
            try {
                server.close();
            } catch (IOException | RuntimeException e) {
                logger.warn("ratis {}: close failed: {}", server.getId(), e.toString());
            }
        }
        servers.clear();
        try (var files = Files.walk(work)) {
            files.sorted(Collections.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            logger.warn("ratis: cannot delete {}: {}", work, e.toString());
        }
    }
}
