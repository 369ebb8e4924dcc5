package io.neptune.server.internal.replication;

import static org.awaitility.Awaitility.await;

import io.neptune.core.AccessMode;
import io.neptune.core.FailoverMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.Snapshottable;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.core.internal.wire.Status;
import io.neptune.server.LogRetentionConfig;
import io.neptune.server.internal.log.FsyncPolicy;
import io.neptune.server.internal.log.LogException;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RedoLog;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiPredicate;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Replicas of one partition with real REDO logs on a network the test controls: it splits the
 * nodes into groups that cannot reach each other (each side's yellow page then lists only its own
 * side, as a JGroups view would), drops, holds, duplicates and reorders chosen messages, kills and
 * restarts nodes, makes a node's REDO log refuse chosen records ({@link Node#refuseAppend}), and
 * drives time by hand ({@link #advance}). Ticks are given by the test, so every
 * scenario is a short deterministic sequence of steps.
 *
 * <p>Thread-safety: the fault settings are thread-safe; steps are taken by one test thread.
 */
final class FaultInjectingCluster implements AutoCloseable {
    static final String SERVICE = "svc";
    static final Duration WAIT = Duration.ofSeconds(20);
    /** A lost message fails after this long, as a call timing out would. */
    private static final long LOST_AFTER_MILLIS = 50;

    private final Path dir;
    /** Whether new nodes' services are Snapshottable, with this retention; null: neither. */
    private volatile @Nullable LogRetentionConfig snapshots;
    private final @Nullable FailoverMode mode;
    private final int configuredReplicas;
    private final ExecutorService pool = Executors.newFixedThreadPool(4);
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicLong clock = new AtomicLong(System.nanoTime());
    private final Map<NodeId, Node> nodes = new ConcurrentHashMap<>();
    private final List<Node> everStarted = new CopyOnWriteArrayList<>();
    private final List<Runnable> held = new CopyOnWriteArrayList<>();
    private volatile Map<NodeId, Integer> groups = Map.of();
    /** (from, "to:method"): the message never arrives. */
    private volatile BiPredicate<NodeId, String> drop = (from, call) -> false;
    /** (from, "to:method"): the message waits until {@link #release}. */
    private volatile BiPredicate<NodeId, String> hold = (from, call) -> false;
    /** (from, "to:method"): the message arrives twice. */
    private volatile BiPredicate<NodeId, String> duplicate = (from, call) -> false;
    private final Map<String, SerialExecutor> links = new ConcurrentHashMap<>();
    /** Per node, the calls delivered to it and not answered yet: a kill fails them. */
    private final Map<NodeId, Set<CompletableFuture<?>>> pending = new ConcurrentHashMap<>();
    private final Set<NodeId> paused = ConcurrentHashMap.newKeySet();
    /** Every (epoch, primary) seen at a step: two primaries of one epoch would break everything. */
    private final Map<Long, Set<NodeId>> primariesByEpoch = new ConcurrentHashMap<>();
    private long nextId = 1;

    /** Level-2/3 replicas in {@code mode}, or level-1 (write-anywhere) replicas if {@code mode} is null. */
    FaultInjectingCluster(Path dir, @Nullable FailoverMode mode, int configuredReplicas) {
        this.dir = dir;
        this.mode = mode;
        this.configuredReplicas = configuredReplicas;
    }

    /**
     * Makes the services of nodes started from now on {@link Snapshottable}, and their logs keep
     * what {@code retention} says (checkpoints, snapshot installs).
     */
    void snapshots(LogRetentionConfig retention) {
        snapshots = retention;
    }

    /** Starts (or restarts, on its old log) node {@code name} with {@code priority}. */
    Node start(String name, int priority) {
        return start(name, priority, new RecordingService(snapshots != null));
    }

    /**
     * Starts (or restarts, on its old log) node {@code name} whose service is {@code app}: pass the
     * killed node's {@link Node#app} for a service whose store survived the crash (its CHECK then
     * still reports the writes it applied).
     */
    Node start(String name, int priority, RecordingService app) {
        return start(name, priority, app, false);
    }

    /** Starts node {@code name} as an operator's add-replica does: a learner until a configuration names it. */
    Node startLearner(String name, int priority) {
        return start(name, priority, new RecordingService(), true);
    }

    private Node start(String name, int priority, RecordingService app, boolean learner) {
        Node node = new Node(name, priority, app, learner);
        nodes.put(node.id, node);
        everStarted.add(node);
        node.replica.start();
        sync(node);
        return node;
    }

    /**
     * Starts a, b and c with priorities 3, 2 and 1 and advances time until a leads and b and c
     * follow; returns them in that order.
     */
    List<Node> startThree() {
        Node a = start("a", 3);
        Node b = start("b", 2);
        Node c = start("c", 1);
        runUntil(() -> a.role() == ReplicaRole.PRIMARY && b.role() == ReplicaRole.SECONDARY
                && c.role() == ReplicaRole.SECONDARY, "a primary with b and c following");
        return List.of(a, b, c);
    }

    /**
     * Stops {@code node} at once, as SIGKILL would (its log keeps what was durable or written): once
     * its replica closed, nothing more runs on its executor, so a completion that arrives later (an
     * append made durable, a peer's answer) cannot find its log closed.
     */
    void kill(Node node) {
        nodes.remove(node.id);
        node.replica.close();
        sync(node);
        node.gate.close();
        node.core.log.close();
        // Its connections die with it: a call it had not answered fails, as a real one does when the socket
        // closes. A leader otherwise waited for ever for an answer to a message the dead node had taken, and
        // never sent to the node's next incarnation (MajorityNemesisTest in CI: n1 stuck at applied 1).
        Set<CompletableFuture<?>> unanswered = pending.remove(node.id);
        if (unanswered != null) {
            unanswered.forEach(f -> f.completeExceptionally(new TimeoutException(node + " was killed before it answered")));
        }
    }

    /** Splits the live nodes into groups that reach only each other; nodes in no group are isolated. */
    @SafeVarargs
    final void partition(Collection<Node>... sides) {
        Map<NodeId, Integer> g = new ConcurrentHashMap<>();
        for (int i = 0; i < sides.length; i++) {
            for (Node n : sides[i]) {
                g.put(n.id, i);
            }
        }
        groups = g;
    }

    /** Ends every partition. */
    void heal() {
        groups = Map.of();
    }

    void drop(BiPredicate<NodeId, String> rule) {
        drop = rule;
    }

    void hold(BiPredicate<NodeId, String> rule) {
        hold = rule;
    }

    void duplicate(BiPredicate<NodeId, String> rule) {
        duplicate = rule;
    }

    /** Delivers the held messages, in reverse order if {@code reordered}, and stops holding. */
    void release(boolean reordered) {
        hold = (from, call) -> false;
        List<Runnable> messages = new ArrayList<>(held);
        held.clear();
        if (reordered) {
            java.util.Collections.reverse(messages);
        }
        messages.forEach(Runnable::run);
    }

    int heldCount() {
        return held.size();
    }

    private boolean reachable(NodeId a, NodeId b) {
        Map<NodeId, Integer> g = groups;
        return g.isEmpty() || (g.containsKey(a) && g.get(a).equals(g.get(b)));
    }

    /**
     * Freezes {@code node} as SIGSTOP would: nothing runs on its executor, it gets no ticks, every
     * message to or from it waits, and the others' views drop it (as their failure detectors would);
     * its clock runs on, as a monotonic clock does, and its timers come due meanwhile.
     */
    void pause(Node node) {
        paused.add(node.id);
        node.gate.close();
    }

    /** Thaws {@code node}: what queued on its executor runs, and the messages that waited are delivered. */
    void resume(Node node) {
        paused.remove(node.id);
        node.gate.open();
        List<Runnable> messages = new ArrayList<>(held);
        held.clear();
        messages.forEach(Runnable::run);
    }

    /** An executor that queues its tasks while closed: a frozen process runs nothing. */
    private final class Gate implements java.util.concurrent.Executor {
        private final List<Runnable> queued = new ArrayList<>();
        private boolean closed;

        @Override
        public synchronized void execute(Runnable task) {
            if (closed) {
                queued.add(task);
            } else {
                pool.execute(task);
            }
        }

        synchronized void close() {
            closed = true;
        }

        synchronized void open() {
            closed = false;
            queued.forEach(pool::execute);
            queued.clear();
        }
    }

    /** The cluster's simulated clock, in nanoseconds. */
    long nanos() {
        return clock.get();
    }

    /**
     * Moves time on by {@code by} and ticks every live node, waiting for each, and then for the
     * messages in flight to be delivered (up to 2 s of real time): simulated time must not run ahead
     * of a network that a loaded machine delivers late, or a leader would see its followers as silent
     * (MajorityPlacementTest failed so at load 20: "no majority answered within 1000 ms").
     */
    void advance(Duration by) {
        clock.addAndGet(by.toNanos());
        tickAll();
        awaitDelivered();
    }

    private void awaitDelivered() {
        ThreadPoolExecutor executor = (ThreadPoolExecutor) pool;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(2);
        int idle = 0;
        while (idle < 2 && System.nanoTime() < deadline) {
            boolean quiet = executor.getActiveCount() == 0 && executor.getQueue().isEmpty();
            idle = quiet ? idle + 1 : 0;
            for (Node n : nodes.values()) {
                if (!paused.contains(n.id)) {
                    sync(n);
                }
            }
        }
    }

    /** Ticks every live, unpaused node and waits until each executor ran what the tick queued. */
    void tickAll() {
        List<Node> running = nodes.values().stream().filter(n -> !paused.contains(n.id)).toList();
        for (Node n : running) {
            n.replica.tick();
        }
        for (Node n : running) {
            sync(n);
            ReplicaState st = n.replica.state();
            if (st.role() == ReplicaRole.PRIMARY) {
                Set<NodeId> primaries = primariesByEpoch.computeIfAbsent(st.epoch(), e -> ConcurrentHashMap.newKeySet());
                primaries.add(n.id);
                if (primaries.size() > 1) {
                    throw new AssertionError("two primaries at epoch " + st.epoch() + ": " + primaries);
                }
            }
        }
    }

    /** Advances time in 100 ms steps until {@code done} holds, or fails after 60 simulated seconds. */
    void runUntil(java.util.function.BooleanSupplier done, String what) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        for (int i = 0; i < 600 && !done.getAsBoolean(); i++) {
            advance(Duration.ofMillis(100));
            if (System.nanoTime() > deadline) {
                break;
            }
            // a short real pause between steps; atMost is generous because a loaded machine can be slow to poll
            await().pollDelay(Duration.ofMillis(5)).atMost(Duration.ofSeconds(5)).until(() -> true);
        }
        if (!done.getAsBoolean()) {
            throw new AssertionError("not reached: " + what + "; " + describe());
        }
    }

    String describe() {
        StringBuilder s = new StringBuilder();
        for (Node n : everStarted) {
            ReplicaState st = n.replica.state();
            s.append(n.id).append(nodes.get(n.id) == n ? "" : "(dead)").append('=').append(st.role()).append("@e")
                    .append(st.epoch()).append(" log ").append(n.core.log.startLsn()).append("..").append(st.logEnd())
                    .append(" committed ").append(n.core.log.committedLsn()).append(" applied ").append(st.applied())
                    .append("; ");
        }
        return s.toString();
    }

    /** Sends a client write of {@code method} to {@code node}'s replica. */
    CompletableFuture<ResponseMessage> write(Node node, String method) {
        long id = nextId++;
        return write(node, method, new RequestId(id, id));
    }

    /** Sends a client write with request id {@code id} (a retry reuses it). */
    CompletableFuture<ResponseMessage> write(Node node, String method, RequestId id) {
        CompletableFuture<ResponseMessage> answer = new CompletableFuture<>();
        node.replica.write(new RequestMessage(id.low(), SERVICE, 0, method, AccessMode.WRITE, 10_000, 0, id,
                new byte[0]), answer::complete);
        return answer;
    }

    /**
     * Asks {@code node} (meant to be the primary) for a placement change; the future completes with
     * its answer, once the change committed or was refused.
     */
    CompletableFuture<PeerMessages.ReconfigureReply> reconfigure(Node node, String add, String remove) {
        CompletableFuture<PeerMessages.ReconfigureReply> answer = new CompletableFuture<>();
        node.replica.onPeerMessage("reconfigure", new PeerMessages.Reconfigure(SERVICE, 0, add, remove, 30_000),
                reply -> answer.complete((PeerMessages.ReconfigureReply) reply));
        return answer;
    }

    /** Advances time until every live node serves (level 1: SECONDARY). */
    void awaitServing() {
        runUntil(() -> nodes.values().stream().allMatch(n -> n.role() == ReplicaRole.SECONDARY),
                "every live node serving");
    }

    /** The node that is primary, if exactly one live node is. */
    Optional<Node> primary() {
        List<Node> primaries = nodes.values().stream().filter(n -> n.role() == ReplicaRole.PRIMARY).toList();
        return primaries.size() == 1 ? Optional.of(primaries.get(0)) : Optional.empty();
    }

    Collection<Node> live() {
        return List.copyOf(nodes.values());
    }

    static void sync(Node node) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        node.core.exec.execute(() -> done.complete(null));
        done.join();
    }

    @Override
    public void close() {
        for (Node node : List.copyOf(nodes.values())) {
            kill(node);
        }
        pool.shutdownNow();
        timer.shutdownNow();
    }

    /**
     * A service that records what it ran; its CHECK answers from that record. While
     * {@link #failStorage} is set, every write fails in storage. If made with snapshots, it is
     * {@link Snapshottable}: a snapshot is the list of methods it ran.
     */
    static final class RecordingService implements PartitionService, Snapshottable {
        final Set<Long> executed = ConcurrentHashMap.newKeySet();
        final List<String> methods = new CopyOnWriteArrayList<>();
        volatile boolean failStorage;
        private final boolean snapshots;
        /** Every LSN up to this one counts as applied: the snapshot restored last held them. */
        private volatile long restoredUpTo;
        /** The state as of the last {@link #force}: what a power loss leaves of this store (null: nothing). */
        private volatile @Nullable Durable forced;

        private record Durable(List<String> methods, Set<Long> executed, long restoredUpTo) {}

        RecordingService() {
            this(false);
        }

        RecordingService(boolean snapshots) {
            this.snapshots = snapshots;
        }

        @Override
        public synchronized ResponseMessage execute(LogRecord record) {
            if (failStorage) {
                return ResponseMessage.error(0, Status.METHOD_FAILED, "io.neptune.server.storage.StorageException: disk");
            }
            executed.add(record.lsn());
            methods.add(record.method());
            return ResponseMessage.ok(0, record.lsn(), new byte[0]);
        }

        @Override
        public boolean isApplied(long lsn) {
            return lsn <= restoredUpTo || executed.contains(lsn);
        }

        @Override
        public Optional<Snapshottable> snapshottable() {
            return snapshots ? Optional.of(this) : Optional.empty();
        }

        @Override
        public synchronized long writeSnapshot(int partition, java.io.OutputStream out) throws java.io.IOException {
            long lsn = Math.max(restoredUpTo, executed.stream().mapToLong(Long::longValue).max().orElse(0));
            out.write((lsn + "\n" + String.join("\n", methods)).getBytes(java.nio.charset.StandardCharsets.UTF_8));
            return lsn;
        }

        @Override
        public synchronized void restoreSnapshot(int partition, java.io.InputStream in, long lsn)
                throws java.io.IOException {
            String[] lines = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).split("\n", -1);
            if (Long.parseLong(lines[0]) > lsn) {
                throw new IllegalArgumentException("snapshot lsn: " + lines[0] + " (expected: <= " + lsn + ")");
            }
            methods.clear();
            for (int i = 1; i < lines.length; i++) {
                if (!lines[i].isEmpty()) {
                    methods.add(lines[i]);
                }
            }
            executed.clear();
            restoredUpTo = lsn;
        }

        @Override
        public synchronized void force(int partition) {
            forced = new Durable(List.copyOf(methods), Set.copyOf(executed), restoredUpTo);
        }

        /** This store as a power loss leaves it: what it held at its last {@link #force}, the rest lost. */
        synchronized RecordingService afterPowerLoss() {
            RecordingService after = new RecordingService(snapshots);
            Durable durable = forced;
            if (durable != null) {
                after.methods.addAll(durable.methods());
                after.executed.addAll(durable.executed());
                after.restoredUpTo = durable.restoredUpTo();
                after.forced = durable;
            }
            return after;
        }

        @Override
        public boolean hasCheck() {
            return true;
        }

        @Override
        public Optional<String> digest() {
            return Optional.of(String.join(",", methods));
        }
    }

    final class Node {
        final NodeId id;
        final int priority;
        final RecordingService app;
        final Gate gate = new Gate();
        final ReplicaCore core;
        final PartitionReplica replica;
        /** The records this node's log refuses (without taking them; it stays usable), as a log can. */
        volatile Predicate<LogRecord> refuseAppend = r -> false;
        /** How many records the log refused so far. */
        final AtomicInteger refused = new AtomicInteger();
        /**
         * Makes the log fail as one whose disk failed: the next append is taken and its write fails,
         * and the log refuses every later one ({@link RedoLog#append}'s contract after a write failure).
         */
        volatile boolean failWrites;
        private volatile boolean writeFailed;
        /** The records whose append throws {@code LogException} at once, as a log sync that throws would. */
        volatile Predicate<LogRecord> throwOnAppend = r -> false;
        /** The records whose append completes only once {@link #releaseAppends} is called (a slow force). */
        volatile Predicate<LogRecord> delayAppend = r -> false;
        final CompletableFuture<Void> appendsReleased = new CompletableFuture<>();

        void releaseAppends() {
            appendsReleased.complete(null);
        }

        Node(String name, int priority, RecordingService app, boolean learner) {
            this.id = NodeId.of(name);
            this.priority = priority;
            this.app = app;
            RedoLog log = RedoLog.open(dir.resolve(name), FsyncPolicy.GROUP);
            core = new ReplicaCore(SERVICE, 0, id, log, dir.resolve(name), app, new NetworkPeers(id),
                    new SerialExecutor(gate, name), timer);
            core.clock = clock::get;
            LogRetentionConfig retention = snapshots;
            if (retention != null) {
                core.retention = retention;
            }
            core.logAppend = records -> records.stream().map(record -> append(log, record)).toList();
            // a restarted node's service state is gone with its process: it replays its log (CHECK says nothing ran)
            replica = mode == null ? new WriteAnywhereReplica(core, priority, configuredReplicas)
                    : mode == FailoverMode.MAJORITY
                    ? new MajorityReplica(core, priority, configuredReplicas, Duration.ofSeconds(2), Duration.ofSeconds(1), learner)
                    : new PrimaryBackupReplica(core, priority, configuredReplicas, Duration.ofSeconds(2), null);
        }

        /** What the log in front of this node's REDO log does with one record (see {@link ReplicaCore#logAppend}). */
        private CompletableFuture<Void> append(RedoLog log, LogRecord record) {
            if (throwOnAppend.test(record)) {
                throw new LogException(log.directory(), "cannot force record " + record.lsn() + " ("
                        + record.method() + "): injected by the test");
            }
            if (failWrites) {
                if (!writeFailed) {
                    writeFailed = true;
                    log.append(record); // taken, and then its write fails
                }
                return CompletableFuture.failedFuture(new LogException(log.directory(),
                        "cannot write record " + record.lsn() + ": injected by the test"));
            }
            if (refuseAppend.test(record)) {
                refused.incrementAndGet();
                return CompletableFuture.failedFuture(new LogException(log.directory(),
                        "refused record " + record.lsn() + " (" + record.method() + "): injected by the test"));
            }
            CompletableFuture<Void> appended = log.append(record);
            return delayAppend.test(record) ? appended.thenCompose(v -> appendsReleased) : appended;
        }

        ReplicaRole role() {
            return replica.state().role();
        }

        long epoch() {
            return core.log.epoch();
        }

        /** The methods this replica applied, in order. */
        List<String> applied() {
            return List.copyOf(app.methods);
        }

        Replica asReplica() {
            ReplicaState s = replica.state();
            InetSocketAddress unused = new InetSocketAddress("127.0.0.1", 1);
            return new Replica(id, unused, unused, priority, s.role(), s.applied(), 0, s.epoch(), s.logEnd(),
                    s.lastEpoch(), 0);
        }

        @Override
        public String toString() {
            return id.value();
        }
    }

    /** Delivers calls on the pool, subject to the partitions and fault rules. */
    private final class NetworkPeers implements Peers {
        final NodeId self;

        NetworkPeers(NodeId self) {
            this.self = self;
        }

        @Override
        public NodeId self() {
            return self;
        }

        @Override
        public List<Replica> replicas(String service, int partition) {
            return nodes.values().stream().filter(n -> reachable(self, n.id))
                    .filter(n -> n.id.equals(self) || !paused.contains(n.id)).map(Node::asReplica).toList();
        }

        @Override
        public <T> CompletableFuture<T> call(NodeId node, String service, int partition, String method, Object message,
                Class<T> replyType) {
            CompletableFuture<T> result = new CompletableFuture<>();
            Node target = nodes.get(node);
            String call = node + ":" + method;
            if (target == null || !reachable(self, node) || drop.test(self, call)) {
                timer.schedule(() -> result.completeExceptionally(new TimeoutException(call + " lost")),
                        LOST_AFTER_MILLIS, TimeUnit.MILLISECONDS);
                return result;
            }
            Set<CompletableFuture<?>> unanswered = pending.computeIfAbsent(node, k -> ConcurrentHashMap.newKeySet());
            unanswered.add(result);
            result.whenComplete((r, e) -> unanswered.remove(result));
            SerialExecutor link = links.computeIfAbsent(self + ">" + node, k -> new SerialExecutor(pool, k));
            Runnable deliver = () -> link.execute(() -> {
                if (nodes.get(node) != target || !reachable(self, node)) {
                    result.completeExceptionally(new TimeoutException(call + " lost"));
                    return;
                }
                target.replica.onPeerMessage(method, message, reply -> {
                    if (reachable(self, node)) {
                        result.complete(replyType.cast(reply));
                    } else {
                        result.completeExceptionally(new TimeoutException(call + " reply lost"));
                    }
                });
            });
            if (hold.test(self, call) || paused.contains(self) || paused.contains(node)) {
                held.add(deliver);
            } else {
                deliver.run();
                if (duplicate.test(self, call)) {
                    pool.execute(() -> target.replica.onPeerMessage(method, message, reply -> { }));
                }
            }
            return result;
        }

        @Override
        public void announce() {
        }
    }
}
