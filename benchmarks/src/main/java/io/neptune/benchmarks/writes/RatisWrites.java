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
    /** Calls one client may have outstanding; Ratis's default of 100 would queue 256 writers in the client. */
    static final int OUTSTANDING_MAX = 1024;
    /** {@code raft.server.rpc.timeout.min}: see {@link #properties()}. */
    static final TimeDuration ELECTION_TIMEOUT_MIN = TimeDuration.valueOf(1000, TimeUnit.MILLISECONDS);
    /** {@code raft.server.rpc.timeout.max}: see {@link #properties()}. */
    static final TimeDuration ELECTION_TIMEOUT_MAX = TimeDuration.valueOf(1250, TimeUnit.MILLISECONDS);
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
        // The defaults, set so the durability stated in the report cannot drift with a Ratis upgrade.
        RaftServerConfigKeys.Log.setUnsafeFlushEnabled(p, false);
        RaftServerConfigKeys.Log.setAsyncFlushEnabled(p, false);
        // Memory, not durability: the buffer in front of each log file is direct memory per group and peer, and
        // 192 of Ratis's 8 MB default would not fit this JVM. It must exceed the appender's batch limit (4 MB by
        // default), so that goes down too: 1 MB per appendEntries is still 250 entries of 4 KB.
        RaftServerConfigKeys.Log.Appender.setBufferByteLimit(p, APPENDER_BATCH);
        RaftServerConfigKeys.Log.setWriteBufferSize(p, WRITE_BUFFER);
        // Failure detection as Neptune's level 2 has it (an election timeout of 1 s, half the default ack timeout,
        // plus jitter): Ratis's 150-300 ms default sets off elections whenever this shared host starves a follower
        // for a few hundred ms. Heartbeats follow at half the minimum (500 ms; Neptune's: 250 ms).
        RaftServerConfigKeys.Rpc.setTimeoutMin(p, ELECTION_TIMEOUT_MIN);
        RaftServerConfigKeys.Rpc.setTimeoutMax(p, ELECTION_TIMEOUT_MAX);
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

    /** The settings this experiment changes from Ratis's defaults, for the report. */
    static String changedSettings() {
        return "raft.server.rpc.timeout.min/max " + ELECTION_TIMEOUT_MIN + "/" + ELECTION_TIMEOUT_MAX
                + " (default 150/300 ms; Neptune's election timeout is 1 s plus jitter), raft.server.log.write.buffer.size "
                + WRITE_BUFFER + " and raft.server.log.appender.buffer.byte-limit " + APPENDER_BATCH
                + " (default 8 MB and 4 MB; direct memory per group and peer), raft.client.async.outstanding-requests.max "
                + OUTSTANDING_MAX + " (default 100, fewer than 256 writers)";
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
