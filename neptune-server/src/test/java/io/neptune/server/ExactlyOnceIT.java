package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.client.ClientConfig;
import io.neptune.client.internal.DefaultNeptuneClient;
import io.neptune.core.AccessMode;
import io.neptune.core.FailoverMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.json.Json;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Exactly-once writes (DESIGN §6.5): a client that lost the response of a write retries it with
 * the same request id, one after another, concurrently, and after it committed; every retry gets
 * the original answer (same version and payload) and the write is applied once on every replica.
 * At level 1 a retry at another replica, which got the write by gossip, or at a restarted one, is
 * not applied again; a retry that reached a second replica before the gossip ran there, and each
 * replica then runs the write once.
 */
class ExactlyOnceIT {
    private static final String SERVICE = "kv";
    private static final int PARTITION = 3;
    private static final List<String> NODES = List.of("node-1", "node-2", "node-3");

    @Test
    void aRetriedWriteIsAppliedOnceAndAnsweredLikeTheFirstTime() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode observer = startThree(cluster, null, LogRetentionConfig.DEFAULT);
            DefaultNeptuneClient client = (DefaultNeptuneClient) observer.client();

            RequestMessage first = append(RequestId.random(), "|first");
            ResponseMessage original = send(client, "node-1", first);
            assertThat(original.status()).isEqualTo(Status.OK);
            assertThat(send(client, "node-1", first)).as("a sequential retry").satisfies(r -> assertSame(r, original));

            RequestMessage second = append(RequestId.random(), "|second");
            CountDownLatch go = new CountDownLatch(1);
            List<CompletableFuture<ResponseMessage>> concurrent = new ArrayList<>();
            List<Thread> senders = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                CompletableFuture<ResponseMessage> response = new CompletableFuture<>();
                concurrent.add(response);
                Thread sender = new Thread(() -> {
                    try {
                        go.await();
                        response.complete(send(client, "node-1", second));
                    } catch (Throwable e) {
                        response.completeExceptionally(e);
                    }
                }, "sender-" + i);
                senders.add(sender);
                sender.start();
            }
            go.countDown();
            ResponseMessage secondOriginal = concurrent.get(0).get(20, TimeUnit.SECONDS);
            assertThat(secondOriginal.status()).isEqualTo(Status.OK);
            assertThat(secondOriginal.version()).isEqualTo(original.version() + 1);
            for (CompletableFuture<ResponseMessage> response : concurrent) {
                assertSame(response.get(20, TimeUnit.SECONDS), secondOriginal);
            }
            for (Thread sender : senders) {
                sender.join(10_000);
            }

            await(() -> NODES.stream().allMatch(n -> applied(client, n) == secondOriginal.version()),
                    "every replica to apply both writes");
            assertSame(send(client, "node-1", first), original);
            assertSame(send(client, "node-1", second), secondOriginal);
            for (String node : NODES) {
                assertThat(read(client, node, "count", new KvTestService.Count(), Long.class)).as("writes on %s", node)
                        .isEqualTo(2L);
                assertThat(read(client, node, "get", new KvTestService.Get("k"), KvTestService.Value.class).v())
                        .as("value on %s", node).isEqualTo("|first|second");
            }

            // the primary fails; the new one answers a retry from the response it remembered when it applied the write
            cluster.node(0).close();
            await(() -> "node-2".equals(primary(observer)), "node-2 to take over");
            ResponseMessage afterFailOver = send(client, "node-2", first);
            assertThat(afterFailOver.status()).isEqualTo(Status.OK);
            assertThat(afterFailOver.version()).isEqualTo(original.version());
            assertThat(Json.mapper().readValue(afterFailOver.payload(), KvTestService.Written.class).lsn())
                    .isEqualTo(original.version());
            for (String node : List.of("node-2", "node-3")) {
                assertThat(read(client, node, "count", new KvTestService.Count(), Long.class)).isEqualTo(2L);
                assertThat(read(client, node, "get", new KvTestService.Get("k"), KvTestService.Value.class).v())
                        .isEqualTo("|first|second");
            }
        }
    }

    /**
     * A retry that comes after its write left every log: node-3 is down while the others write enough
     * to drop the write's record at a checkpoint, so node-3 rejoins by installing a snapshot. When it is
     * made the primary, it still knows that the write ran (the snapshot carried
     * the request ids of the writes in it) and does not run the retry again.
     */
    @ParameterizedTest
    @EnumSource(FailoverMode.class)
    void aRetryOfAWriteThatReachedAReplicaOnlyInASnapshotIsNotAppliedAgain(FailoverMode mode) throws Exception {
        LogRetentionConfig retention = new LogRetentionConfig(20, 10);
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            NeptuneNode observer = startThree(cluster, mode, retention);
            DefaultNeptuneClient client = (DefaultNeptuneClient) observer.client();
            RequestMessage first = append(RequestId.random(), "|first");
            ResponseMessage original = send(client, "node-1", first);
            assertThat(original.status()).isEqualTo(Status.OK);

            cluster.node(2).close();
            int fillers = 100;
            for (int i = 0; i < fillers; i++) {
                RequestMessage filler = new RequestMessage(0, SERVICE, PARTITION, "append", AccessMode.WRITE, 10_000, 0,
                        RequestId.random(), Json.mapper().writeValueAsBytes(new KvTestService.Append("f", ".")));
                assertThat(send(client, "node-1", filler).status()).as("filler write %s", i).isEqualTo(Status.OK);
            }
            long last = original.version() + fillers;
            startKv(cluster, "node-3", 1, mode, retention);
            await(() -> applied(client, "node-3") >= last && observer.replicaRoles(SERVICE, PARTITION)
                    .get(NodeId.of("node-3")) == ReplicaRole.SECONDARY, "node-3 to catch up and serve");
            assertThat(observer.admin().replicas(SERVICE, PARTITION).get(30, TimeUnit.SECONDS).stream()
                    .filter(r -> r.node().equals("node-3")).mapToLong(ClusterAdmin.ReplicaStatus::logStart).max()
                    .orElse(0)).as("where node-3's log starts: after a snapshot past the first write")
                    .isGreaterThan(original.version() + 1);

            observer.admin().movePrimary(SERVICE, PARTITION, "node-3").get(60, TimeUnit.SECONDS);
            await(() -> "node-3".equals(primary(observer)), "node-3 to take over");
            ResponseMessage retry = send(client, "node-3", first);
            assertThat(retry.status()).as("the retry's answer").isIn(Status.OK, Status.ALREADY_APPLIED);
            assertThat(read(client, "node-3", "get", new KvTestService.Get("k"), KvTestService.Value.class).v())
                    .as("the value the write appended to").isEqualTo("|first");
            assertThat(read(client, "node-3", "count", new KvTestService.Count(), Long.class)).as("writes on node-3")
                    .isEqualTo(1L + fillers);
        }
    }

    @Test
    void aLevelOneWriteRetriedAtAnotherReplicaIsNotAppliedTwice() throws Exception {
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            for (String node : List.of("node-1", "node-2")) {
                cluster.add(node, ClientConfig.defaults(), b -> b.host(new SetTestService(),
                        HostingConfig.builder().replicas(2).build()));
            }
            DefaultNeptuneClient client = (DefaultNeptuneClient) cluster.add("observer", ClientConfig.defaults(),
                    b -> b).client();
            cluster.awaitNodes(2); // the two replicas, in every yellow page
            // a level-1 replica takes writes once it has pulled from its peers (it may hold writes they lack)
            await(() -> setApplied(client, "node-1") == 0 && setApplied(client, "node-2") == 0, "both replicas serving");
            RequestMessage add = new RequestMessage(0, "set", PARTITION, "add", AccessMode.WRITE, 10_000, 0,
                    RequestId.random(), Json.mapper().writeValueAsBytes(new SetTestService.Add("x")));
            assertThat(send(client, "node-1", add).status()).isEqualTo(Status.OK);
            await(() -> setApplied(client, "node-2") == 1, "node-2 to get the write by gossip");

            // the client lost node-1's answer and retries at node-2, which answers from what it applied
            ResponseMessage retry = send(client, "node-2", add);
            assertThat(retry.status()).as("%s", retry.errorMessage()).isEqualTo(Status.OK);
            assertThat(Json.mapper().readValue(retry.payload(), SetTestService.Added.class).lsn()).isEqualTo(1);

            // after a restart: an in-memory service replays its log (and so remembers the answer); one that
            // kept its state (CHECK) replays nothing, and the log's request ids answer ALREADY_APPLIED
            cluster.nodes().get(1).close();
            cluster.add("node-2", ClientConfig.defaults(), b -> b.host(new SetTestService(),
                    HostingConfig.builder().replicas(2).build()));
            await(() -> setApplied(client, "node-2") == 1, "node-2 to serve again");
            ResponseMessage afterRestart = send(client, "node-2", add);
            assertThat(afterRestart.status()).as("%s", afterRestart.errorMessage()).isIn(Status.OK,
                    Status.ALREADY_APPLIED);
            assertThat(afterRestart.version()).isEqualTo(1);

            RequestMessage next = new RequestMessage(0, "set", PARTITION, "add", AccessMode.WRITE, 10_000, 0,
                    RequestId.random(), Json.mapper().writeValueAsBytes(new SetTestService.Add("y")));
            // node-2's restart changes the JGroups view; the observer can miss node-1 for an expiry meanwhile
            // (PatientFdSock holds the view's delivery while it looks for node-2's new address)
            await(() -> setApplied(client, "node-1") == 1, "node-1 in the observer's yellow page again");
            assertThat(send(client, "node-1", next).status()).isEqualTo(Status.OK);
            await(() -> setApplied(client, "node-1") == 2 && setApplied(client, "node-2") == 2,
                    "both replicas at two writes");
            assertThat(setApplied(client, "node-1")).as("the retry was never applied anywhere").isEqualTo(2);
        }
    }

    @Test
    void aLevelOneWriteRetriedBeforeTheGossipArrivedRunsOnceOnEveryReplica() throws Exception {
        SetTestService first = new SetTestService();
        try (MiniCluster cluster = MiniCluster.start(0, b -> b)) {
            cluster.add("node-1", ClientConfig.defaults(), b -> b.host(first, HostingConfig.builder().replicas(2).build()));
            cluster.add("node-2", ClientConfig.defaults(), b -> b.host(new SetTestService(),
                    HostingConfig.builder().replicas(2).build()));
            DefaultNeptuneClient client = (DefaultNeptuneClient) cluster.add("observer", ClientConfig.defaults(),
                    b -> b).client();
            cluster.awaitNodes(2);
            await(() -> setApplied(client, "node-1") == 0 && setApplied(client, "node-2") == 0, "both replicas serving");

            RequestMessage noId = new RequestMessage(0, "set", PARTITION, "add", AccessMode.WRITE, 10_000, 0,
                    RequestId.NONE, Json.mapper().writeValueAsBytes(new SetTestService.Add("no-id")));
            ResponseMessage refused = send(client, "node-1", noId);
            assertThat(refused.status()).isEqualTo(Status.INVALID_REQUEST);
            assertThat(refused.errorMessage()).contains("needs a request id");

            // node-1 logs the write and is slow to run it, so the client gives up on it and retries at node-2,
            // which has not had node-1's gossip yet: both run it
            RequestMessage add = new RequestMessage(0, "set", PARTITION, "add", AccessMode.WRITE, 10_000, 0,
                    RequestId.random(), Json.mapper().writeValueAsBytes(new SetTestService.Add("x")));
            CountDownLatch release = new CountDownLatch(1);
            first.holdNextAdd(release);
            CompletableFuture<ResponseMessage> atFirst = client.sendTo(NodeId.of("node-1"), add, PARTITION);
            first.awaitHolding();
            ResponseMessage atSecond = send(client, "node-2", add);
            assertThat(atSecond.status()).as("%s", atSecond.errorMessage()).isEqualTo(Status.OK);
            release.countDown();
            ResponseMessage firstAnswer = atFirst.get(15, TimeUnit.SECONDS);
            assertThat(firstAnswer.status()).as("%s", firstAnswer.errorMessage()).isEqualTo(Status.OK);

            // each logs the other's copy as a repeat (LSN 2) and does not run it
            await(() -> replicaApplied(client, "node-1", "set") == 2 && replicaApplied(client, "node-2", "set") == 2,
                    "both replicas to log the other's copy");
            for (String node : List.of("node-1", "node-2")) {
                SetTestService.Members members = members(client, node);
                assertThat(members.elements()).containsExactly("x");
                assertThat(members.adds()).as("adds run on %s", node).isEqualTo(1);
            }

            // node-2 keeps its set in memory: after a restart it replays its whole log, and skips the repeat again
            cluster.nodes().get(1).close();
            cluster.add("node-2", ClientConfig.defaults(), b -> b.host(new SetTestService(),
                    HostingConfig.builder().replicas(2).build()));
            await(() -> replicaApplied(client, "node-2", "set") == 2 && setApplied(client, "node-2") == 1,
                    "node-2 to replay its log");
            assertThat(members(client, "node-2").adds()).as("adds run on node-2 after its replay").isEqualTo(1);
        }
    }

    private static SetTestService.Members members(DefaultNeptuneClient client, String node) throws Exception {
        ResponseMessage response = send(client, node, new RequestMessage(0, "set", PARTITION, "members",
                AccessMode.READ, 10_000, 0, RequestId.NONE, Json.mapper().writeValueAsBytes(new SetTestService.ReadMembers())));
        assertThat(response.status()).as("members on %s: %s", node, response.errorMessage()).isEqualTo(Status.OK);
        return Json.mapper().readValue(response.payload(), SetTestService.Members.class);
    }

    /** How many writes {@code node}'s replica of set#PARTITION applied (its level-1 LSN); -1 while it cannot say. */
    private static long setApplied(DefaultNeptuneClient client, String node) {
        try {
            ResponseMessage response = send(client, node, new RequestMessage(0, "set", PARTITION, "members",
                    AccessMode.READ, 10_000, 0, RequestId.NONE,
                    Json.mapper().writeValueAsBytes(new SetTestService.ReadMembers())));
            return response.status() != Status.OK ? -1
                    : Json.mapper().readValue(response.payload(), SetTestService.Members.class).lsn();
        } catch (Exception e) {
            return -1; // not in the yellow page (yet), or not serving
        }
    }

    /**
     * Starts NODES hosting the kv service with 3 replicas in fail-over mode {@code mode} (null: the
     * service's), node-1 with the highest priority, and an observer; returns the observer once node-1
     * is the primary of PARTITION with two secondaries.
     */
    private static NeptuneNode startThree(MiniCluster cluster, @Nullable FailoverMode mode,
            LogRetentionConfig retention) {
        for (int i = 0; i < NODES.size(); i++) {
            startKv(cluster, NODES.get(i), NODES.size() - i, mode, retention);
        }
        NeptuneNode observer = cluster.add("observer", ClientConfig.defaults(), b -> b);
        await(() -> "node-1".equals(primary(observer)) && observer.replicaRoles(SERVICE, PARTITION).values()
                .stream().filter(r -> r == ReplicaRole.SECONDARY).count() == 2, "node-1 primary with two secondaries");
        return observer;
    }

    private static void startKv(MiniCluster cluster, String node, int priority, @Nullable FailoverMode mode,
            LogRetentionConfig retention) {
        HostingConfig.Builder hosting = HostingConfig.builder().replicas(3).priority(priority);
        if (mode != null) {
            hosting.failover(mode);
        }
        cluster.add(cluster.config(node, ClientConfig.defaults()).toBuilder().logRetention(retention).build(),
                b -> b.host(new KvTestService(), hosting.build()));
    }

    private static void assertSame(ResponseMessage response, ResponseMessage original) {
        assertThat(response.status()).isEqualTo(Status.OK);
        assertThat(response.version()).as("version").isEqualTo(original.version());
        assertThat(new String(response.payload(), StandardCharsets.UTF_8)).as("payload")
                .isEqualTo(new String(original.payload(), StandardCharsets.UTF_8));
    }

    private static RequestMessage append(RequestId id, String suffix) throws Exception {
        return new RequestMessage(0, SERVICE, PARTITION, "append", AccessMode.WRITE, 10_000, 0, id,
                Json.mapper().writeValueAsBytes(new KvTestService.Append("k", suffix)));
    }

    private static ResponseMessage send(DefaultNeptuneClient client, String node, RequestMessage request)
            throws Exception {
        return client.sendTo(NodeId.of(node), request, PARTITION).get(15, TimeUnit.SECONDS);
    }

    private static <T> T read(DefaultNeptuneClient client, String node, String method, Object request, Class<T> type)
            throws Exception {
        ResponseMessage response = send(client, node, new RequestMessage(0, SERVICE, PARTITION, method,
                AccessMode.READ, 10_000, 0, RequestId.NONE, Json.mapper().writeValueAsBytes(request)));
        assertThat(response.status()).as("%s on %s", method, node).isEqualTo(Status.OK);
        return Json.mapper().readValue(response.payload(), type);
    }

    private static long applied(DefaultNeptuneClient client, String node) {
        return replicaApplied(client, node, SERVICE);
    }

    /**
     * The LSN up to which {@code node}'s replica of {@code service}#PARTITION applied its log, repeats
     * included; -1 while it cannot say (a restarted node not in the yellow page yet).
     */
    private static long replicaApplied(DefaultNeptuneClient client, String node, String service) {
        try {
            ResponseMessage response = send(client, node, new RequestMessage(0, "$replication", PARTITION, "status",
                    AccessMode.WRITE, 5000, 0, RequestId.NONE, Json.mapper().writeValueAsBytes(Map.of("service",
                            service, "partition", PARTITION))));
            return response.status() != Status.OK ? -1 : Json.mapper().readTree(response.payload()).path("applied").asLong();
        } catch (Exception e) {
            return -1;
        }
    }

    private static String primary(NeptuneNode observer) {
        return observer.replicaRoles(SERVICE, PARTITION).entrySet().stream().filter(e -> e.getValue() == ReplicaRole.PRIMARY)
                .map(e -> e.getKey().value()).findFirst().orElse("");
    }

    private static void await(BooleanSupplier condition, String what) {
        ReplicatedProcesses.await(condition, Duration.ofSeconds(30), what);
    }
}
