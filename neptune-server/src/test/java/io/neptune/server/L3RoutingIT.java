package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.ClientConfig;
import io.neptune.client.NeptuneHandle;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.client.internal.EventLoops;
import io.neptune.client.internal.LoadTracker;
import io.neptune.core.AccessMode;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.membership.Announcement;
import io.neptune.core.internal.membership.YellowPage;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.VersionedTestService.Gate;
import io.neptune.server.VersionedTestService.Get;
import io.neptune.server.VersionedTestService.Hold;
import io.neptune.server.VersionedTestService.Value;
import io.neptune.server.VersionedTestService.Written;
import io.neptune.server.internal.replication.runtime.ReplicationEngine;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Level-3 reads at a replica that is behind the version the read asks for (DESIGN §6.4): the
 * replica waits a bounded time ({@value ReplicationEngine#VERSION_WAIT_MILLIS} ms) for catch-up and
 * then runs the read or answers STALE, and the client then goes to the primary. Secondaries are
 * made to lag by holding their writes at a gate in {@link VersionedTestService}.
 */
class L3RoutingIT {
    private static final String SERVICE = "versioned";
    private static final int PARTITION = 0;
    private static final List<String> NODES = List.of("node-0", "node-1", "node-2");

    private static MiniCluster cluster;
    private static NeptuneNode clientNode;
    private static final VersionedTestService[] services = {
        new VersionedTestService(), new VersionedTestService(), new VersionedTestService()
    };

    @BeforeAll
    static void startCluster() {
        cluster = MiniCluster.start(0, b -> b);
        for (int i = 0; i < NODES.size(); i++) {
            VersionedTestService service = services[i];
            HostingConfig hosting = HostingConfig.builder().replicas(3).priority(NODES.size() - i).build();
            cluster.add(NODES.get(i), ClientConfig.defaults(), b -> b.host(service, hosting));
        }
        clientNode = cluster.add("client", ClientConfig.defaults(), b -> b);
        ReplicatedProcesses.await(() -> {
            Map<NodeId, ReplicaRole> roles = clientNode.replicaRoles(SERVICE, PARTITION);
            return roles.get(NodeId.of("node-0")) == ReplicaRole.PRIMARY
                    && roles.values().stream().filter(r -> r == ReplicaRole.SECONDARY).count() == 2;
        }, Duration.ofSeconds(30), "node-0 primary of " + SERVICE + "#" + PARTITION + " with 2 secondaries");
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Every test leaves all replicas at the same version. */
    @AfterEach
    void awaitReplicasEqual() {
        long version = status("node-0").applied();
        ReplicatedProcesses.await(() -> NODES.stream().allMatch(n -> status(n).applied() >= version),
                Duration.ofSeconds(10), "every replica at version " + version);
    }

    @Test
    void aReadWaitsForTheVersionItAsksForAndThenRuns() throws Exception {
        long lsn;
        CompletableFuture<ResponseMessage> read;
        try (Hold hold = services[2].hold(Gate.BEFORE_APPLYING)) {
            lsn = write("wait");    // committed at the primary; node-2 logged it but cannot apply it yet
            hold.awaitHeld(Duration.ofSeconds(5));
            read = readAt("node-2", lsn);
            assertThatThrownBy(() -> read.get(50, TimeUnit.MILLISECONDS)).as("node-2 waits for version %d", lsn)
                    .isInstanceOf(TimeoutException.class);
        }
        ResponseMessage response = read.get(5, TimeUnit.SECONDS);
        assertThat(response.status()).as(response.errorMessage()).isEqualTo(Status.OK);
        Value value = decode(response);
        assertThat(value.node()).isEqualTo("node-2");
        assertThat(value.lsn()).isGreaterThanOrEqualTo(lsn);
        assertThat(response.version()).isGreaterThanOrEqualTo(lsn);
    }

    /**
     * The wait counts against the read's deadline: a read whose caller gave up while the replica
     * caught up is answered DEADLINE_EXCEEDED and never runs, as if it had waited in the queue.
     */
    @Test
    void aReadWhoseDeadlinePassedWhileItWaitedForItsVersionDoesNotRun() throws Exception {
        long readsBefore = services[2].reads();
        CompletableFuture<ResponseMessage> read;
        try (Hold hold = services[2].hold(Gate.BEFORE_APPLYING)) {
            long lsn = write("late");
            hold.awaitHeld(Duration.ofSeconds(5));
            read = readAt("node-2", lsn, 20);
            // past the read's 20 ms deadline node-2 still waits for the version; it gets it well within its 200 ms wait
            assertThatThrownBy(() -> read.get(60, TimeUnit.MILLISECONDS)).as("node-2 waits for version %d", lsn)
                    .isInstanceOf(TimeoutException.class);
        }
        ResponseMessage response = read.get(5, TimeUnit.SECONDS);
        assumeThat(response.status()).as("node-2 caught up after its %d ms wait: this run shows nothing",
                ReplicationEngine.VERSION_WAIT_MILLIS).isNotEqualTo(Status.STALE);
        assertThat(response.status()).as(response.errorMessage()).isEqualTo(Status.DEADLINE_EXCEEDED);
        assertThat(services[2].reads()).as("reads run on node-2").isEqualTo(readsBefore);
    }

    @Test
    void aReadAboveTheReplicasVersionAnswersStaleAfterTheBoundedWait() throws Exception {
        long unreachable = status("node-1").applied() + 1_000;
        assertStaleAfterTheWait("node-1", unreachable);

        // Also while the replica is busy applying (its replication executor is blocked in a write).
        try (Hold hold = services[2].hold(Gate.BEFORE_APPLYING)) {
            long lsn = write("stale");
            hold.awaitHeld(Duration.ofSeconds(5));
            assertStaleAfterTheWait("node-2", lsn);
        }
    }

    private static void assertStaleAfterTheWait(String node, long minVersion) throws Exception {
        long start = System.nanoTime();
        ResponseMessage response = readAt(node, minVersion).get(5, TimeUnit.SECONDS);
        long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.printf("L3RoutingIT: %s answered %s to a read at version %d after %d ms%n", node,
                response.status(), minVersion, elapsedMillis);
        assertThat(response.status()).as("%s reading at version %d: %s", node, minVersion, response.errorMessage())
                .isEqualTo(Status.STALE);
        assertThat(elapsedMillis).isBetween(ReplicationEngine.VERSION_WAIT_MILLIS - 10, 2_000L);
    }

    /**
     * A client whose yellow page says node-2 has reached the session's version (an announcement
     * racing a restart or a stale role look just like this) sends the read there first; node-2
     * answers STALE after its bounded wait and the client retries at the primary.
     */
    @Test
    void theClientGoesToThePrimaryWhenAReplicaAnswersStale() throws Exception {
        long epoch = status("node-0").epoch();
        try (Hold hold = services[2].hold(Gate.BEFORE_APPLYING)) {
            long lsn = write("fallback");
            hold.awaitHeld(Duration.ofSeconds(5));
            YellowPage page = new YellowPage(NodeId.of("routing-client"), Duration.ofMinutes(1), System::nanoTime);
            page.update(announcement(cluster.node(0), ReplicaRole.PRIMARY, epoch, lsn - 1)); // announced before it applied lsn
            page.update(announcement(cluster.node(2), ReplicaRole.SECONDARY, epoch, lsn));   // claims lsn, has not applied it
            EventLoopGroup group = EventLoops.create("routing-client", 1);
            try (DefaultNeptuneClient client = new DefaultNeptuneClient(NodeId.of("routing-client"),
                    ClientConfig.builder().policy(BalancingPolicy.RANDOM).build(), page, group, "127.0.0.1", null,
                    new LoadTracker(), List.of())) {
                NeptuneHandle session = NeptuneHandle.create();
                session.observe(SERVICE, PARTITION, lsn);
                long start = System.nanoTime();
                Value value = client.call(session, SERVICE, PARTITION, "get", AccessMode.READ, new Get(), Value.class);
                long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.printf("L3RoutingIT: read at version %d served by %s at %d after %d ms%n", lsn,
                        value.node(), value.lsn(), elapsedMillis);
                assertThat(value.node()).as("the replica that served the read").isEqualTo("node-0");
                assertThat(value.lsn()).isGreaterThanOrEqualTo(lsn);
                assertThat(elapsedMillis).as("node-2 was asked first and waited")
                        .isGreaterThanOrEqualTo(ReplicationEngine.VERSION_WAIT_MILLIS - 10);
            } finally {
                group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            }
        }
    }

    /**
     * A read's response carries at least the version whose effects it saw, also while the replica
     * is in the middle of applying a write: otherwise a session that continues from that version
     * can be served by a replica that has not applied the write it already saw (time goes back).
     */
    @Test
    void aReadReportsAtLeastTheVersionWhoseEffectsItSaw() throws Exception {
        try (Hold applying = services[2].hold(Gate.AFTER_APPLYING);
                Hold behind = services[1].hold(Gate.BEFORE_APPLYING)) {
            long lsn = write("seen");   // node-2 shows it to reads before its apply finishes; node-1 lags
            applying.awaitHeld(Duration.ofSeconds(5));
            behind.awaitHeld(Duration.ofSeconds(5));
            AtomicReference<ResponseMessage> first = new AtomicReference<>();
            ReplicatedProcesses.await(() -> {
                ResponseMessage response = readAt("node-2", 0).join();
                first.set(response);
                return response.status() == Status.OK && decode(response).lsn() >= lsn;
            }, Duration.ofSeconds(5), "node-2 showing write " + lsn + " to reads");
            assertThat(first.get().version()).as("version reported with a read that saw write %d", lsn)
                    .isGreaterThanOrEqualTo(lsn);

            NeptuneHandle session = NeptuneHandle.create();
            session.observe(SERVICE, PARTITION, first.get().version());
            ResponseMessage second = readAt("node-1", session.version(SERVICE, PARTITION)).get(5, TimeUnit.SECONDS);
            if (second.status() == Status.OK) {
                assertThat(decode(second).lsn()).as("the next read of the session").isGreaterThanOrEqualTo(lsn);
            } else {
                assertThat(second.status()).isEqualTo(Status.STALE);
            }
        }
    }

    private static long write(String value) {
        return clientNode.client().call(NeptuneHandle.create(), SERVICE, PARTITION, "set", AccessMode.WRITE,
                new VersionedTestService.Set(value), Written.class).lsn();
    }

    /** Reads the register at {@code node} itself, asking for at least {@code minVersion}. */
    private static CompletableFuture<ResponseMessage> readAt(String node, long minVersion) {
        return readAt(node, minVersion, 5000);
    }

    /** As {@link #readAt(String, long)}, with a deadline {@code timeoutMillis} after it is sent. */
    private static CompletableFuture<ResponseMessage> readAt(String node, long minVersion, int timeoutMillis) {
        try {
            RequestMessage request = new RequestMessage(0, SERVICE, PARTITION, "get", AccessMode.READ, timeoutMillis,
                    minVersion, RequestId.NONE, Json.mapper().writeValueAsBytes(new Get()));
            return ((DefaultNeptuneClient) clientNode.client()).sendTo(NodeId.of(node), request, PARTITION);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private static Value decode(ResponseMessage response) {
        try {
            return Json.mapper().readValue(response.payload(), Value.class);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    private record ReplicaStatus(String node, String role, long epoch, long applied) {}

    private static ReplicaStatus status(String node) {
        Map<String, Object> map = ReplicatedProcesses.status(clientNode, node, SERVICE, PARTITION);
        return new ReplicaStatus(node, (String) map.get("role"), ((Number) map.get("epoch")).longValue(),
                ((Number) map.get("applied")).longValue());
    }

    /** What {@code node} would announce if its replica of the partition had {@code role} at {@code version}. */
    private static Announcement announcement(NeptuneNode node, ReplicaRole role, long epoch, long version) {
        Announcement.ReplicaState replica = new Announcement.ReplicaState(PARTITION, 1, role, version, epoch, version,
                epoch, 0);
        Announcement.HostedService service = new Announcement.HostedService(SERVICE, 2, 0, List.of(replica),
                ConsistencyLevel.LEVEL_3, 1000);
        return new Announcement(node.node().value(), node.requestAddress().getAddress().getHostAddress(),
                node.requestAddress().getPort(), node.pollAddress().getPort(), ProcessHandle.current().pid(), 1, 1, 0,
                List.of(service));
    }
}
