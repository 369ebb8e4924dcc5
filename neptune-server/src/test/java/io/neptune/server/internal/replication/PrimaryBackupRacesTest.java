package io.neptune.server.internal.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.FsyncPolicy;
import io.neptune.server.internal.log.Log;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.log.RedoLog;
import io.neptune.server.internal.replication.RecordingService;
import io.neptune.server.internal.replication.PeerMessages.Ack;
import io.neptune.server.internal.replication.PeerMessages.Entry;
import io.neptune.server.internal.replication.PeerMessages.Promote;
import io.neptune.server.internal.replication.PeerMessages.Replicate;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Races of level-2 replication that the process-level tests reach only by chance, driven here one
 * message at a time: real {@link PrimaryBackupReplica}s and REDO logs, a network that can hold
 * replies or drop calls, and ticks given by hand.
 */
class PrimaryBackupRacesTest {
    private static final String SERVICE = "svc";
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private final ExecutorService pool = Executors.newFixedThreadPool(4);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final Map<NodeId, Node> nodes = new ConcurrentHashMap<>();
    private final List<Node> started = new CopyOnWriteArrayList<>();
    private final List<Runnable> heldReplies = new CopyOnWriteArrayList<>();
    /** (caller, "target:method"): hold the reply until {@link #releaseReplies}. */
    private volatile BiPredicate<NodeId, String> holdReply = (from, call) -> false;
    /** (caller, "target:method"): the call never arrives. */
    private volatile BiPredicate<NodeId, String> dropCall = (from, call) -> false;
    /** Roles the yellow page shows instead of the replica's own (an announcement that lags). */
    private final Map<NodeId, ReplicaRole> announcedAs = new ConcurrentHashMap<>();
    /** A node to which commit points (replicate messages without entries) never arrive, or null. */
    private volatile NodeId commitPointsLostTo;

    @AfterEach
    void stop() {
        for (Node node : started) {
            node.replica.close();
        }
        for (Node node : started) {
            sync(node); // the tasks queued before the close run on an open log, as when a node shuts down
            node.core.log.close();
        }
        pool.shutdownNow();
        timer.shutdownNow();
    }

    @Test
    void writesAcknowledgedWhileAReplicaJoinsAreNotTruncatedByItsJoin() {
        Node p = start("p", 1);
        Node s = start("s", 2);
        promoteAndFollow(p, s);

        s.app.failStorage = true; // s logs w1 but cannot apply it: it leaves service
        List<ResponseMessage> answers = new CopyOnWriteArrayList<>();
        write(p, "w1", answers);
        awaitRole(s, ReplicaRole.RECOVERING);

        s.app.failStorage = false;
        holdReply = (from, call) -> from.equals(s.id) && call.equals("p:join");
        s.replica.tick(); // applies w1 now and asks p to join; p's answer is held
        await().atMost(WAIT).until(() -> heldReplies.size() == 1);
        commitPointsLostTo = s.id; // s cannot apply what it may log meanwhile
        write(p, "w2", answers);
        write(p, "w3", answers);
        await().atMost(WAIT).until(() -> answers.size() == 3);
        assertThat(answers).extracting(ResponseMessage::status).containsOnly(Status.OK);

        releaseReplies(); // the answer p gave before w2 and w3
        sync(s);
        assertThat(s.replica.state().role() != ReplicaRole.SECONDARY || s.core.log.lastLsn() == 3)
                .as("s a secondary without w2 and w3 (log end %d)", s.core.log.lastLsn()).isTrue();
        commitPointsLostTo = null;
        s.replica.tick();
        awaitRole(s, ReplicaRole.SECONDARY);
        assertThat(s.core.log.lastLsn()).as("a secondary has every acknowledged write").isEqualTo(3);
        assertThat(s.core.log.record(3).map(LogRecord::method)).hasValue("w3");
    }

    @Test
    void aReplicaWithRecordsOfADeadPrimaryUnderAReusedEpochDropsThemWhenItJoins() {
        Node a = start("a", 1);
        Node r = start("r", 3);
        Node q = start("q", 2);
        promoteAndFollow(a, r, q);

        nodes.remove(a.id); // a dies; r takes over at epoch 2, but nothing it sends reaches q
        dropCall = (from, call) -> from.equals(r.id) && call.equals("q:replicate");
        r.replica.tick();
        awaitRole(r, ReplicaRole.PRIMARY);
        write(r, "rWrite1", new CopyOnWriteArrayList<>()); // logged at r only, never acknowledged
        await().atMost(WAIT).until(() -> r.core.log.lastLsn() == 1);
        nodes.remove(r.id); // r dies before anyone learned its epoch

        q.replica.tick(); // q takes over, at epoch 2 as well
        awaitRole(q, ReplicaRole.PRIMARY);
        assertThat(q.core.log.epoch()).isEqualTo(r.core.log.epoch());
        List<ResponseMessage> answers = new CopyOnWriteArrayList<>();
        write(q, "qWrite1", answers);
        await().atMost(WAIT).until(() -> answers.size() == 1);
        assertThat(answers.get(0).status()).isEqualTo(Status.OK);

        dropCall = (from, call) -> false;
        r.replica.close();
        r.core.log.close();
        Node restarted = start("r", 3);
        await().atMost(WAIT).untilAsserted(() -> {
            restarted.replica.tick();
            assertThat(restarted.replica.state().role()).isEqualTo(ReplicaRole.SECONDARY);
        });
        assertThat(restarted.core.log.record(1).map(LogRecord::method)).hasValue("qWrite1");
        assertThat(restarted.app.methods).containsExactly("qWrite1");
    }

    @Test
    void aRivalElectingDuringAHandoverDoesNotBecomeASecondPrimary() {
        Node p = start("p", 1);
        Node h = start("h", 2);
        Node x = start("x", 3);
        promoteAndFollow(p, h, x);

        holdReply = (from, call) -> from.equals(h.id) && call.equals("p:handover");
        h.replica.tick(); // h outranks p and asks for the role; p steps down, its yes is held
        awaitRole(p, ReplicaRole.SECONDARY);
        x.replica.tick(); // x sees no primary announced and holds an election meanwhile
        await().atMost(WAIT).until(() -> x.peers.statusAnswers >= 2); // p's and h's
        sync(x); // the election's outcome is decided on x's executor

        releaseReplies();
        awaitRole(h, ReplicaRole.PRIMARY);
        assertThat(List.of(p, h, x)).filteredOn(n -> n.replica.state().role() == ReplicaRole.PRIMARY).containsExactly(h);
        List<ResponseMessage> answers = new CopyOnWriteArrayList<>();
        write(h, "after", answers);
        await().atMost(WAIT).until(() -> p.core.log.lastLsn() == 1 && x.core.log.lastLsn() == 1);
        // h answers once its own log and both acknowledgements are in, which may be after both logs have the record
        await().atMost(WAIT).until(() -> answers.size() == 1);
        assertThat(answers).extracting(ResponseMessage::status).containsExactly(Status.OK);
    }

    @Test
    void aSecondaryAcknowledgesOnlyDurableRecords() throws Exception {
        Node p = start("p", 1);
        Node s = start("s", 2);
        promoteAndFollow(p, s);

        long epoch = s.core.log.epoch();
        Entry record = Entry.of(new LogRecord(1, epoch, RecordKind.WRITE, new RequestId(9, 9), "p", 0, "m",
                new byte[4096]));
        List<String> violations = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch acks = new CountDownLatch(2);
        for (Replicate message : List.of(new Replicate(SERVICE, 0, "p", epoch, 0, List.of(record)),
                new Replicate(SERVICE, 0, "p", epoch, 0, List.of()))) { // the second, empty, answers at once
            s.replica.onPeerMessage("replicate", message, reply -> {
                Ack ack = (Ack) reply;
                if (ack.lastLsn() > s.core.durable) {
                    violations.add(ack + " with durable " + s.core.durable);
                }
                acks.countDown();
            });
        }
        assertThat(acks.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(violations).isEmpty();
    }

    @Test
    void aSecondaryDropsItsOwnTailWhereTheNewPrimarysRecordDiffers() throws Exception {
        Node p = start("p", 1);
        Node s = start("s", 2);
        promoteAndFollow(p, s);

        // s holds records 1 (committed) and 2 (never committed) of p, epoch 1; the new primary q, at epoch 2,
        // has another record 2. Before log matching, s skipped q's record 2 (an LSN it had) and applied its own.
        long epoch = s.core.log.epoch();
        Entry first = Entry.of(new LogRecord(1, epoch, RecordKind.WRITE, new RequestId(1, 1), "p", 0, "first",
                new byte[0]));
        Entry stale = Entry.of(new LogRecord(2, epoch, RecordKind.WRITE, new RequestId(2, 2), "p", 0, "stale",
                new byte[0]));
        deliver(s, new Replicate(SERVICE, 0, "p", epoch, 1, List.of(first, stale), 0, 0, null));
        await().atMost(WAIT).until(() -> s.app.methods.equals(List.of("first")));

        Entry other = Entry.of(new LogRecord(2, epoch + 1, RecordKind.WRITE, new RequestId(3, 3), "q", 0, "other",
                new byte[0]));
        Ack ack = deliver(s, new Replicate(SERVICE, 0, "q", epoch + 1, 2, List.of(other), 1, epoch, "p"));
        assertThat(ack.accepted()).isTrue();
        await().atMost(WAIT).until(() -> s.core.applied == 2);
        assertThat(s.app.methods).containsExactly("first", "other");
        assertThat(s.core.log.record(2).map(LogRecord::method)).hasValue("other");
    }

    @Test
    void aSecondaryRefusesEntriesWhoseRecordBeforeIsNotItsOwn() throws Exception {
        Node p = start("p", 1);
        Node s = start("s", 2);
        promoteAndFollow(p, s);
        long epoch = s.core.log.epoch();
        Entry mine = Entry.of(new LogRecord(1, epoch, RecordKind.WRITE, new RequestId(1, 1), "p", 0, "mine",
                new byte[0]));
        deliver(s, new Replicate(SERVICE, 0, "p", epoch, 0, List.of(mine), 0, 0, null));

        Entry next = Entry.of(new LogRecord(2, epoch + 1, RecordKind.WRITE, new RequestId(2, 2), "q", 0, "next",
                new byte[0]));
        Ack ack = deliver(s, new Replicate(SERVICE, 0, "q", epoch + 1, 2, List.of(next), 1, epoch + 1, "q"));
        assertThat(ack.accepted()).as("q's record 1 is not s's").isFalse();
        assertThat(ack.lastLsn()).as("resend from what s surely shares: nothing it applied").isZero();
        sync(s);
        assertThat(s.app.methods).isEmpty();
        assertThat(s.core.log.lastLsn()).isEqualTo(1);
    }

    /**
     * A replica rebuilds its epoch starts from its log at start, a chunk of records at a time. A chunk that the
     * log's 16 MiB read limit cut short used to skip the rest of the chunk's LSNs, and an epoch starting there went
     * missing: the primary then told a joining replica to keep its own records of the older epoch at those LSNs;
     * the joiner found them unlike the primary's and, having applied the records before them, took itself for
     * diverged and never came back.
     */
    @Test
    void aPrimaryWhoseLogHoldsALargeRecordKnowsWhereEachEpochStarts() {
        LogRecord large = record(1, 1, "a", "large", new byte[17 * 1024 * 1024]); // alone past the read limit
        LogRecord small = record(2, 1, "a", "small", new byte[0]);
        // a wrote both at epoch 1, and j logged its uncommitted third; p took over at epoch 2 without j
        writeLog("p", 2, large, small, record(3, 2, "p", "p3", new byte[0]), record(4, 2, "p", "p4", new byte[0]));
        writeLog("j", 1, large, small, record(3, 1, "a", "stale", new byte[0]));
        Node p = start("p", 2, List.of());
        Node j = start("j", 1, List.of(1L, 2L)); // j applied what a committed

        promoteAndFollow(p, j);

        assertThat(j.core.log.record(3).map(LogRecord::method)).as("j's record 3").hasValue("p3");
        await().atMost(WAIT).until(() -> j.app.methods.equals(List.of("p3", "p4")));
    }

    private static LogRecord record(long lsn, long epoch, String origin, String method, byte[] payload) {
        return new LogRecord(lsn, epoch, RecordKind.WRITE, new RequestId(lsn, epoch), origin, 0, method, payload);
    }

    /** Writes node {@code name}'s log before it starts: {@code records} and the persisted {@code epoch}. */
    private void writeLog(String name, long epoch, LogRecord... records) {
        try (RedoLog log = RedoLog.open(dir.resolve(name), FsyncPolicy.GROUP)) {
            log.persistEpoch(epoch);
            for (LogRecord record : records) {
                log.append(record).join();
            }
        }
    }

    private static Ack deliver(Node node, Replicate message) throws Exception {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        node.replica.onPeerMessage("replicate", message, reply::complete);
        return (Ack) reply.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void aSecondaryThatStillLooksRecoveringIsAskedInAnElectionSoThereAreNotTwoPrimariesOfOneEpoch() {
        Node p = start("p", 3);
        Node s1 = start("s1", 1);
        Node s2 = start("s2", 2);
        promoteAndFollow(p, s1, s2);
        announcedAs.put(s2.id, ReplicaRole.RECOVERING); // it joined a moment ago; its announcement lags
        announcedAs.put(s1.id, ReplicaRole.SECONDARY); // and so will s1's, should it become primary

        nodes.remove(p.id); // the primary dies
        holdReply = (from, call) -> from.equals(s2.id) && call.equals("s1:status");
        s2.replica.tick(); // s2 asks s1, which answers as a secondary; the answer waits
        await().atMost(WAIT).until(() -> heldReplies.size() == 1);
        s1.replica.tick(); // s1 elects too; before the fix it asked nobody (s2 looked RECOVERING) and won alone
        await().atMost(WAIT).until(() -> s1.peers.statusAnswers >= 1 || s1.replica.state().role() == ReplicaRole.PRIMARY);
        sync(s1);
        releaseReplies();
        sync(s2);
        await().atMost(WAIT).until(() -> List.of(s1, s2).stream().anyMatch(n -> n.replica.state().role() == ReplicaRole.PRIMARY));
        sync(s1);
        sync(s2);
        List<Node> primaries = List.of(s1, s2).stream().filter(n -> n.replica.state().role() == ReplicaRole.PRIMARY).toList();
        assertThat(primaries).as("primaries at epochs %d and %d", s1.core.log.epoch(), s2.core.log.epoch())
                .hasSize(1);
    }

    /**
     * A recovering replica logs the records its join fetched; meanwhile its primary dies and an
     * operator promotes it. When the join's records became durable, the join's last step turned the
     * new primary into a secondary behind its own back: it announced SECONDARY, kept its pipeline, and
     * sent writes away with NOT_PRIMARY naming itself until the next election.
     */
    @Test
    void aReplicaPromotedWhileItsJoinIsLoggedStaysPrimary() {
        Node p = start("p", 1);
        promoteAndFollow(p);
        List<ResponseMessage> before = new CopyOnWriteArrayList<>();
        write(p, "w1", before);
        await().atMost(WAIT).until(() -> before.size() == 1);
        assertThat(before.get(0).status()).isEqualTo(Status.OK);

        Node s = start("s", 2);
        CompletableFuture<Void> disk = new CompletableFuture<>();
        Log log = s.core.log;
        s.core.logAppend = records -> log.appendAll(records).stream() // logged, durable only once the disk says so
                .map(done -> done.thenCompose(v -> disk)).toList();
        s.replica.tick(); // joins p: the reply carries w1, which s logs
        await().atMost(WAIT).until(() -> log.lastLsn() == 1);
        nodes.remove(p.id); // p dies
        CompletableFuture<Object> promoted = new CompletableFuture<>();
        s.replica.onPeerMessage("promote", new Promote(SERVICE, 0), promoted::complete);
        awaitRole(s, ReplicaRole.PRIMARY);

        disk.complete(null);
        await().atMost(WAIT).until(() -> s.core.applied == 1);
        sync(s);
        sync(s);
        assertThat(s.replica.state().role()).as("s after its join's records became durable")
                .isEqualTo(ReplicaRole.PRIMARY);
        List<ResponseMessage> after = new CopyOnWriteArrayList<>();
        write(s, "w2", after);
        await().atMost(WAIT).until(() -> after.size() == 1);
        assertThat(after.get(0).status()).as(after.get(0).toString()).isEqualTo(Status.OK);
    }

    // ---------------------------------------------------------------- harness

    private Node start(String name, int priority) {
        return start(name, priority, List.of());
    }

    /** Starts node {@code name} whose service has applied the writes at {@code applied} (its CHECK says so). */
    private Node start(String name, int priority, List<Long> applied) {
        Node node = new Node(name, priority);
        node.app.executed.addAll(applied);
        nodes.put(node.id, node);
        started.add(node);
        node.replica.start();
        return node;
    }

    /** Makes {@code primary} the primary (as an operator would) and {@code followers} its secondaries. */
    private static void promoteAndFollow(Node primary, Node... followers) {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        primary.replica.onPeerMessage("promote", new Promote(SERVICE, 0), reply::complete);
        reply.join();
        awaitRole(primary, ReplicaRole.PRIMARY);
        for (Node follower : followers) {
            follower.replica.tick(); // sees the primary and joins it
        }
        for (Node follower : followers) {
            awaitRole(follower, ReplicaRole.SECONDARY);
        }
    }

    /** Waits until {@code node}'s executor ran everything queued before this call. */
    private static void sync(Node node) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        node.core.exec.execute(() -> done.complete(null));
        done.join();
    }

    private static void awaitRole(Node node, ReplicaRole role) {
        await().atMost(WAIT).until(() -> node.replica.state().role() == role);
    }

    private static long nextId = 1;

    private static void write(Node node, String method, List<ResponseMessage> answers) {
        long id = nextId++;
        node.replica.write(new RequestMessage(id, SERVICE, 0, method, AccessMode.WRITE, 10_000, 0, new RequestId(id, id),
                new byte[0]), answers::add);
    }

    private void releaseReplies() {
        holdReply = (from, call) -> false;
        List<Runnable> held = List.copyOf(heldReplies);
        heldReplies.clear();
        held.forEach(Runnable::run);
    }

    private final class Node {
        final NodeId id;
        final int priority;
        final RecordingService app = new RecordingService();
        final ReplicaCore core;
        final PrimaryBackupReplica replica;
        final NetworkPeers peers;

        Node(String name, int priority) {
            this.id = NodeId.of(name);
            this.priority = priority;
            this.peers = new NetworkPeers(id);
            core = new ReplicaCore(SERVICE, 0, id, RedoLog.open(dir.resolve(name), FsyncPolicy.GROUP),
                    dir.resolve(name), app, peers, new SerialExecutor(pool, name), timer);
            replica = new PrimaryBackupReplica(core, priority, 3, Duration.ofSeconds(2), null);
        }

        Replica asReplica() {
            ReplicaState s = replica.state();
            InetSocketAddress unused = new InetSocketAddress("127.0.0.1", 1);
            return new Replica(id, unused, unused, priority, announcedAs.getOrDefault(id, s.role()), s.applied(), 0,
                    s.epoch(), s.logEnd(),
                    s.lastEpoch(), 0);
        }
    }

    /** Delivers calls on the pool to the target replica; holds replies or drops calls as the test says. */
    private final class NetworkPeers implements Peers {
        final NodeId self;
        volatile int statusAnswers;

        NetworkPeers(NodeId self) {
            this.self = self;
        }

        @Override
        public NodeId self() {
            return self;
        }

        @Override
        public List<Replica> replicas(String service, int partition) {
            return nodes.values().stream().map(Node::asReplica).toList();
        }

        @Override
        public <T> CompletableFuture<T> call(NodeId node, String service, int partition, String method, Object message,
                Class<T> replyType) {
            CompletableFuture<T> result = new CompletableFuture<>();
            Node target = nodes.get(node);
            String call = node + ":" + method;
            boolean commitPoint = message instanceof Replicate m && m.entries().isEmpty();
            if (target == null || dropCall.test(self, call) || commitPoint && node.equals(commitPointsLostTo)) {
                return result; // lost: the caller's own timeouts deal with it
            }
            pool.execute(() -> target.replica.onPeerMessage(method, message, reply -> {
                Runnable deliver = () -> {
                    result.complete(replyType.cast(reply));
                    if (method.equals("status")) {
                        statusAnswers++; // after the completion, which queued whatever the caller does next
                    }
                };
                if (holdReply.test(self, call)) {
                    heldReplies.add(deliver);
                } else {
                    deliver.run();
                }
            }));
            return result;
        }

        @Override
        public void announce() {
        }
    }
}
