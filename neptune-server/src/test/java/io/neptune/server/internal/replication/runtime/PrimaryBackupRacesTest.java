package io.neptune.server.internal.replication.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.core.AccessMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.internal.log.FsyncPolicy;
import io.neptune.server.internal.log.InMemoryLog;
import io.neptune.server.internal.log.Log;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RecordKind;
import io.neptune.server.internal.log.RedoLog;
import io.neptune.server.internal.replication.protocol.Ack;
import io.neptune.server.internal.replication.runtime.PeerMessages.Entry;
import io.neptune.server.internal.replication.runtime.PeerMessages.Promote;
import io.neptune.server.internal.replication.runtime.PeerMessages.Replicate;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiPredicate;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Races of level-2 replication that the process-level tests reach only by chance, driven here one
 * message at a time: real {@link PrimaryBackupReplica}s on in-memory logs, a network that can hold
 * replies or drop calls, and ticks given by hand. Everything runs on one {@link Simulator} (seed 1):
 * each node's executor tasks, timers, messages, answers and log forces are events, and the test
 * runs them until what it waits for holds ({@link #runUntil}); no thread, no real time.
 */
class PrimaryBackupRacesTest {
    private static final String SERVICE = "svc";
    /** How long, in simulated time, {@link #runUntil} waits before it fails. */
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path dir;

    private final Simulator sim = new Simulator(1);
    /** Events of work (tasks, messages, answers, forces) scheduled and not run yet: timers are not work. */
    private int inFlight;
    private final Map<NodeId, Node> nodes = new LinkedHashMap<>();
    private final List<Node> started = new ArrayList<>();
    /** Per node name, its log: it outlives a restart, as a disk does. */
    private final Map<String, Log> disks = new HashMap<>();
    private final List<Runnable> heldReplies = new ArrayList<>();
    /** (caller, "target:method"): hold the reply until {@link #releaseReplies}. */
    private BiPredicate<NodeId, String> holdReply = (from, call) -> false;
    /** (caller, "target:method"): the call never arrives. */
    private BiPredicate<NodeId, String> dropCall = (from, call) -> false;
    /** Roles the yellow page shows instead of the replica's own (an announcement that lags). */
    private final Map<NodeId, ReplicaRole> announcedAs = new HashMap<>();
    /** A node to which commit points (replicate messages without entries) never arrive, or null. */
    private NodeId commitPointsLostTo;

    @AfterEach
    void stop() {
        for (Node node : started) {
            node.replica.close();
        }
        for (Node node : started) {
            sync(node); // the tasks queued before the close run on an open log, as when a node shuts down
            node.core.log.close();
        }
    }

    @Test
    void writesAcknowledgedWhileAReplicaJoinsAreNotTruncatedByItsJoin() {
        Node p = start("p", 1);
        Node s = start("s", 2);
        promoteAndFollow(p, s);

        s.app.failStorage = true; // s logs w1 but cannot apply it: it leaves service
        List<ResponseMessage> answers = new ArrayList<>();
        write(p, "w1", answers);
        awaitRole(s, ReplicaRole.RECOVERING);

        s.app.failStorage = false;
        holdReply = (from, call) -> from.equals(s.id) && call.equals("p:join");
        s.replica.tick(); // applies w1 now and asks p to join; p's answer is held
        runUntil(() -> heldReplies.size() == 1, "p's answer to s's join held");
        commitPointsLostTo = s.id; // s cannot apply what it may log meanwhile
        write(p, "w2", answers);
        write(p, "w3", answers);
        runUntil(() -> answers.size() == 3, "w1, w2 and w3 answered");
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
        // q never answers at epoch 2, so r is never announced PRIMARY; a client that still knows it writes to it
        runUntil(() -> r.core.log.epoch() == 2, "r leads epoch 2");
        write(r, "rWrite1", new ArrayList<>()); // logged at r only, never acknowledged
        runUntil(() -> r.core.log.lastLsn() == 1, "r logged rWrite1");
        nodes.remove(r.id); // r dies before anyone learned its epoch

        q.replica.tick(); // q takes over, at epoch 2 as well
        awaitRole(q, ReplicaRole.PRIMARY);
        assertThat(q.core.log.epoch()).isEqualTo(r.core.log.epoch());
        List<ResponseMessage> answers = new ArrayList<>();
        write(q, "qWrite1", answers);
        runUntil(() -> answers.size() == 1, "qWrite1 answered");
        assertThat(answers.get(0).status()).isEqualTo(Status.OK);

        dropCall = (from, call) -> false;
        r.replica.close();
        r.core.log.close();
        Node restarted = start("r", 3);
        for (int i = 0; i < 200 && restarted.replica.state().role() != ReplicaRole.SECONDARY; i++) {
            restarted.replica.tick();
            advance(Duration.ofMillis(100));
        }
        assertThat(restarted.replica.state().role()).isEqualTo(ReplicaRole.SECONDARY);
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
        runUntil(() -> x.peers.statusAnswers >= 2, "x's status calls answered by p and h");
        sync(x); // the election's outcome is decided on x's executor

        releaseReplies();
        awaitRole(h, ReplicaRole.PRIMARY);
        assertThat(List.of(p, h, x)).filteredOn(n -> n.replica.state().role() == ReplicaRole.PRIMARY).containsExactly(h);
        List<ResponseMessage> answers = new ArrayList<>();
        write(h, "after", answers);
        runUntil(() -> p.core.log.lastLsn() == 1 && x.core.log.lastLsn() == 1, "p and x logged the write");
        // h answers once its own log and both acknowledgements are in, which may be after both logs have the record
        runUntil(() -> answers.size() == 1, "h answered the write");
        assertThat(answers).extracting(ResponseMessage::status).containsExactly(Status.OK);
    }

    @Test
    void aSecondaryAcknowledgesOnlyDurableRecords() {
        Node p = start("p", 1);
        Node s = start("s", 2);
        promoteAndFollow(p, s);

        long epoch = s.core.log.epoch();
        Entry record = Entry.of(new LogRecord(1, epoch, RecordKind.WRITE, new RequestId(9, 9), "p", 0, "m",
                new byte[4096]));
        List<String> violations = new ArrayList<>();
        int[] acks = new int[1];
        for (Replicate message : List.of(new Replicate(SERVICE, 0, "p", epoch, 0, List.of(record)),
                new Replicate(SERVICE, 0, "p", epoch, 0, List.of()))) { // the second, empty, answers at once
            s.replica.onPeerMessage("replicate", message, reply -> {
                Ack ack = (Ack) reply;
                if (ack.lastLsn() > s.core.durable) {
                    violations.add(ack + " with durable " + s.core.durable);
                }
                acks[0]++;
            });
        }
        runUntil(() -> acks[0] == 2, "s acknowledged both");
        assertThat(violations).isEmpty();
    }

    @Test
    void aSecondaryDropsItsOwnTailWhereTheNewPrimarysRecordDiffers() {
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
        runUntil(() -> s.app.methods.equals(List.of("first")), "s applied first");

        Entry other = Entry.of(new LogRecord(2, epoch + 1, RecordKind.WRITE, new RequestId(3, 3), "q", 0, "other",
                new byte[0]));
        Ack ack = deliver(s, new Replicate(SERVICE, 0, "q", epoch + 1, 2, List.of(other), 1, epoch, "p"));
        assertThat(ack.accepted()).isTrue();
        runUntil(() -> s.core.applied == 2, "s applied q's record 2");
        assertThat(s.app.methods).containsExactly("first", "other");
        assertThat(s.core.log.record(2).map(LogRecord::method)).hasValue("other");
    }

    @Test
    void aSecondaryRefusesEntriesWhoseRecordBeforeIsNotItsOwn() {
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
        runUntil(() -> j.app.methods.equals(List.of("p3", "p4")), "j applied p3 and p4");
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

    private Ack deliver(Node node, Replicate message) {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        node.replica.onPeerMessage("replicate", message, reply::complete);
        runUntil(reply::isDone, node.id + " answered the replicate");
        return (Ack) reply.join();
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
        runUntil(() -> heldReplies.size() == 1, "s1's status answer to s2 held");
        s1.replica.tick(); // s1 elects too; before the fix it asked nobody (s2 looked RECOVERING) and won alone
        runUntil(() -> s1.peers.statusAnswers >= 1 || s1.replica.state().role() == ReplicaRole.PRIMARY,
                "s1 heard s2's status or won");
        sync(s1);
        releaseReplies();
        sync(s2);
        runUntil(() -> List.of(s1, s2).stream().anyMatch(n -> n.replica.state().role() == ReplicaRole.PRIMARY),
                "s1 or s2 primary");
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
        List<ResponseMessage> before = new ArrayList<>();
        write(p, "w1", before);
        runUntil(() -> before.size() == 1, "w1 answered");
        assertThat(before.get(0).status()).isEqualTo(Status.OK);

        Node s = start("s", 2);
        CompletableFuture<Void> disk = new CompletableFuture<>();
        Log log = s.core.log;
        s.durability = disk; // logged, durable only once the disk says so
        s.replica.tick(); // joins p: the reply carries w1, which s logs
        runUntil(() -> log.lastLsn() == 1, "s logged w1");
        nodes.remove(p.id); // p dies
        CompletableFuture<Object> promoted = new CompletableFuture<>();
        s.replica.onPeerMessage("promote", new Promote(SERVICE, 0), promoted::complete);
        awaitRole(s, ReplicaRole.PRIMARY);

        disk.complete(null);
        runUntil(() -> s.core.applied == 1, "s applied w1");
        sync(s);
        sync(s);
        assertThat(s.replica.state().role()).as("s after its join's records became durable")
                .isEqualTo(ReplicaRole.PRIMARY);
        List<ResponseMessage> after = new ArrayList<>();
        write(s, "w2", after);
        runUntil(() -> after.size() == 1, "w2 answered");
        assertThat(after.get(0).status()).as(after.get(0).toString()).isEqualTo(Status.OK);
    }

    /**
     * After a total outage with a machine lost for good, an operator promotes the most complete
     * survivor (docs/OPERATIONS.md). When the survivors' logs are equally complete, the one promoted
     * may be one that never joined the last primary: promote takes its own epoch + 1, which that
     * primary already led and which the other survivors announce, so two primaries led one epoch
     * (elections take the epoch above every one their rivals report). Found by the simulation's
     * catastrophe (seed 21 of fail-stop-3: "two primaries in epoch 4: n0 and n2").
     */
    @Test
    void aReplicaPromotedAfterAnOutageLeadsAnEpochAboveEveryOneItSees() {
        Node a = start("a", 1);
        Node b = start("b", 2);
        promoteAndFollow(a, b); // a leads epoch 1, b follows it
        nodes.remove(a.id); // every replica dies; a's machine is lost for good
        b.replica.close();
        b.core.log.close();
        Node back = start("b", 2);
        Node c = start("c", 3); // c was away while a led: its log is as complete as b's (both empty), its epoch 0
        runUntil(() -> back.replica.state().epoch() == 1, "b back, announcing epoch 1");

        CompletableFuture<Object> promoted = new CompletableFuture<>();
        c.replica.onPeerMessage("promote", new Promote(SERVICE, 0), promoted::complete);
        runUntil(promoted::isDone, "c answered the promote");

        assertThat(c.replica.state().role()).isEqualTo(ReplicaRole.PRIMARY);
        assertThat(c.replica.state().epoch()).as("the epoch c leads; a led epoch 1, which b announces")
                .isGreaterThan(back.asReplica().epoch());
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
    private void promoteAndFollow(Node primary, Node... followers) {
        CompletableFuture<Object> reply = new CompletableFuture<>();
        primary.replica.onPeerMessage("promote", new Promote(SERVICE, 0), reply::complete);
        runUntil(reply::isDone, primary.id + " answered the promote");
        awaitRole(primary, ReplicaRole.PRIMARY);
        for (Node follower : followers) {
            follower.replica.tick(); // sees the primary and joins it
        }
        for (Node follower : followers) {
            awaitRole(follower, ReplicaRole.SECONDARY);
        }
    }

    /** Runs the simulation until {@code node}'s executor ran everything queued before this call. */
    private void sync(Node node) {
        boolean[] ran = new boolean[1];
        node.core.exec.execute(() -> ran[0] = true);
        long deadline = sim.nanos() + WAIT.toNanos();
        while (!ran[0]) {
            step(deadline, node.id + "'s executor ran its queue");
        }
    }

    private void awaitRole(Node node, ReplicaRole role) {
        runUntil(() -> node.replica.state().role() == role, node.id + " " + role);
    }

    /**
     * Runs the simulation until {@code done} holds, checked when no work is in flight; fails after
     * {@link #WAIT} of simulated time, or at once if no event is left (ticks are the test's).
     */
    private void runUntil(BooleanSupplier done, String what) {
        long deadline = sim.nanos() + WAIT.toNanos();
        while (inFlight > 0 || !done.getAsBoolean()) {
            step(deadline, what);
        }
    }

    /** Runs the simulation on by {@code by} of simulated time, and then until no work is in flight. */
    private void advance(Duration by) {
        boolean[] reached = new boolean[1];
        sim.schedule(by.toNanos(), -1, "advance", () -> reached[0] = true);
        runUntil(() -> reached[0], "time advanced by " + by);
    }

    private void step(long deadline, String what) {
        if (sim.nanos() > deadline || !sim.step()) {
            throw new AssertionError("not reached: " + what + " (" + (sim.nanos() > deadline ? "deadline passed"
                    : "no event left") + "); " + started.stream().map(n -> n.id + "=" + n.replica.state()).toList()
                    + System.lineSeparator() + sim.recentTrace());
        }
    }

    /** Schedules {@code action} on {@code process} as work in flight (see {@link #runUntil}). */
    private void work(SimProcess process, long delayNanos, String what, Runnable action) {
        Runnable guarded = process.guarded(action);
        inFlight++;
        sim.schedule(delayNanos, process.index(), what, () -> {
            inFlight--;
            guarded.run();
        });
    }

    private long nextId = 1;

    private void write(Node node, String method, List<ResponseMessage> answers) {
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
        final SimProcess process = new SimProcess(sim, started.size());
        final ReplicaCore core;
        final PrimaryBackupReplica replica;
        final NetworkPeers peers;
        private final GroupCommit forces = new GroupCommit();
        /** While set, records appended become durable only once it completes too (a disk slower than the log). */
        @Nullable CompletableFuture<Void> durability;

        Node(String name, int priority) {
            this.id = NodeId.of(name);
            this.priority = priority;
            this.peers = new NetworkPeers(this);
            process.start();
            core = new CoreSetup(SERVICE, 0, id).storage(disk(name), dir.resolve(name)).app(app).peers(peers)
                    .executors(new SerialExecutor(task -> work(process, sim.random().nextInt(20_000), "task", task), name,
                            sim::nanos), process.timer())
                    .clock(sim::nanos).random(new SplittableRandom(sim.random().nextLong()))
                    .background(task -> work(process, sim.millisBetween(1, 20), "background", task))
                    .logAppend(this::appendAll).build();
            replica = new PrimaryBackupReplica(core, new ReplicaSettings(priority, 3, Duration.ofSeconds(2), null, false));
        }

        /**
         * Node {@code name}'s log as its last process left it: a REDO log if the test wrote one
         * ({@link #writeLog}), else an in-memory one.
         */
        private Log disk(String name) {
            Log log = disks.get(name);
            if (log == null) {
                log = Files.exists(dir.resolve(name)) ? RedoLog.open(dir.resolve(name), FsyncPolicy.GROUP)
                        : new InMemoryLog(name);
                try {
                    Files.createDirectories(dir.resolve(name));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
                disks.put(name, log);
            } else if (log instanceof InMemoryLog memory) {
                memory.close();   // what the last process left open (idempotent), then a clean restart
                memory.reopen();
            } else {
                log = RedoLog.open(dir.resolve(name), FsyncPolicy.GROUP);
                disks.put(name, log);
            }
            return log;
        }

        /**
         * Appends one record: to an in-memory log with a force soon after as an event (one force for
         * what came before it), or to a REDO log whose writer is waited for at once, the record's
         * future completed as an event, so that no writer thread completes a future the replica sees.
         */
        private List<CompletableFuture<Void>> appendAll(List<LogRecord> records) {
            CompletableFuture<Void> disk = durability;
            return records.stream().map(this::append).map(done -> disk == null ? done : done.thenCompose(v -> disk))
                    .toList();
        }

        private CompletableFuture<Void> append(LogRecord record) {
            if (core.log instanceof InMemoryLog memory) {
                CompletableFuture<Void> appended = memory.append(record);
                forces.appended(force -> work(process, sim.millisBetween(0.05, 2), "fsync", force), memory::force);
                return appended;
            }
            return DiskWrites.settled(core.log.append(record), done -> work(process, sim.millisBetween(0.05, 2),
                    "fsync", done));
        }

        Replica asReplica() {
            ReplicaState s = replica.state();
            InetSocketAddress unused = InetSocketAddress.createUnresolved("sim", 1);
            return new Replica(id, unused, unused, priority, announcedAs.getOrDefault(id, s.role()), s.applied(), 0,
                    s.epoch(), s.logEnd(),
                    s.lastEpoch(), 0);
        }
    }

    /**
     * Delivers calls as events on the target's process, answers as events on the caller's, each
     * 0.05 to 1.5 ms after it was sent; holds replies or drops calls as the test says.
     */
    private final class NetworkPeers implements Peers {
        final Node owner;
        final NodeId self;
        int statusAnswers;

        NetworkPeers(Node owner) {
            this.owner = owner;
            this.self = owner.id;
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
        public <T> CompletableFuture<T> call(NodeId node, PeerRequest request, Class<T> replyType) {
            String method = request.method();
            Object message = request.message();
            CompletableFuture<T> result = new CompletableFuture<>();
            Node target = nodes.get(node);
            String call = node + ":" + method;
            boolean commitPoint = message instanceof Replicate m && m.entries().isEmpty();
            if (target == null || dropCall.test(self, call) || commitPoint && node.equals(commitPointsLostTo)) {
                return result; // lost: the caller's own timeouts deal with it
            }
            work(target.process, sim.millisBetween(0.05, 1.5), method, () -> target.replica.onPeerMessage(method,
                    message, reply -> {
                        Runnable deliver = () -> {
                            result.complete(replyType.cast(reply));
                            if (method.equals("status")) {
                                statusAnswers++; // after the completion, which queued whatever the caller does next
                            }
                        };
                        if (holdReply.test(self, call)) {
                            heldReplies.add(deliver);
                        } else {
                            work(owner.process, sim.millisBetween(0.05, 1.5), "reply", deliver);
                        }
                    }));
            return result;
        }

        @Override
        public void announce() {
        }
    }
}
