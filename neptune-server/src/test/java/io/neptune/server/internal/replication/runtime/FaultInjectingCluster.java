package io.neptune.server.internal.replication.runtime;

import io.neptune.core.AccessMode;
import io.neptune.core.FailoverMode;
import io.neptune.core.NodeId;
import io.neptune.core.ReplicaRole;
import io.neptune.core.Snapshottable;
import io.neptune.core.internal.membership.Replica;
import io.neptune.core.internal.wire.RequestId;
import io.neptune.core.internal.wire.RequestMessage;
import io.neptune.core.internal.wire.ResponseMessage;
import io.neptune.server.LogRetentionConfig;
import io.neptune.server.internal.log.FsyncPolicy;
import io.neptune.server.internal.log.InMemoryLog;
import io.neptune.server.internal.log.Log;
import io.neptune.server.internal.log.LogException;
import io.neptune.server.internal.log.LogRecord;
import io.neptune.server.internal.log.RedoLog;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiPredicate;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * Replicas of one partition on a deterministic {@link Simulator}, on a network the test controls:
 * it splits the nodes into groups that cannot reach each other (each side's yellow page then lists
 * only its own side, as a JGroups view would), drops, holds, duplicates and reorders chosen
 * messages, kills and restarts nodes, pauses them, and makes a node's log refuse chosen records
 * ({@link Node#refuseAppend}).
 *
 * <p>Nothing runs on a thread of its own: each node is a {@link SimProcess} whose executor tasks,
 * timers, messages and log forces are the simulator's events, the replicas' clock is the
 * simulator's, and a world tick every {@value #TICK_MILLIS} ms ticks every running node. The test
 * moves the simulation on by hand: {@link #advance} by a stretch of simulated time,
 * {@link #runUntil} until a condition holds, {@link #await} until a future completes, {@link #sync}
 * until a node's executor ran what it had queued. Every scenario is one seed's run: the same test
 * takes the same steps every time, whatever the machine's load.
 *
 * <p>Logs are {@link InMemoryLog}s that outlive their process, as a disk does; deleting a node's
 * directory is replacing its disk (it restarts on an empty log). A kill keeps what the log was
 * given; {@link #withRedoLogs} puts each node on a real {@link RedoLog} instead, for tests that copy
 * or read log files (its appends are waited for at once, and made durable as an event).
 *
 * <p>Thread-safety: none; one test thread runs the cluster and the simulation from start to end.
 */
final class FaultInjectingCluster implements AutoCloseable {
    static final String SERVICE = "svc";
    /** How long, in simulated time, {@link #runUntil} and {@link #await} wait before they fail. */
    static final Duration WAIT = Duration.ofSeconds(60);
    static final long TICK_MILLIS = 100;
    /** A lost message fails after this long, as a call timing out would. */
    private static final long LOST_AFTER_NANOS = 50_000_000L;

    private final Path dir;
    private final Simulator sim;
    /** Whether new nodes' services are Snapshottable, with this retention; null: neither. */
    private @Nullable LogRetentionConfig snapshots;
    private final @Nullable FailoverMode mode;
    private final int configuredReplicas;
    private boolean redoLogs;
    private final Map<NodeId, Node> nodes = new LinkedHashMap<>();
    private final List<Node> everStarted = new ArrayList<>();
    /** Per node name, its process (one per name; each start is a new incarnation) and its disk. */
    private final Map<String, SimProcess> processes = new HashMap<>();
    private final Map<String, InMemoryLog> disks = new HashMap<>();
    private final List<Runnable> held = new ArrayList<>();
    private Map<NodeId, Integer> groups = Map.of();
    /** (from, "to:method"): the message never arrives. */
    private BiPredicate<NodeId, String> drop = (from, call) -> false;
    /** (from, "to:method"): the message waits until {@link #release}. */
    private BiPredicate<NodeId, String> hold = (from, call) -> false;
    /** (from, "to:method"): the message arrives twice. */
    private BiPredicate<NodeId, String> duplicate = (from, call) -> false;
    /** Per link ("from>to"), when its last message arrives: the next one comes no earlier (one connection). */
    private final Map<String, Long> linkTail = new HashMap<>();
    /** Every (epoch, primary) seen after an event: two primaries of one epoch would break everything. */
    private final Map<Long, Set<NodeId>> primariesByEpoch = new HashMap<>();
    private long nextId = 1;
    /** How many events of work (executor tasks, messages, answers, forces) are scheduled and have not run. */
    private int inFlight;

    /** Level-2/3 replicas in {@code mode}, or level-1 (write-anywhere) replicas if {@code mode} is null; seed 1. */
    FaultInjectingCluster(Path dir, @Nullable FailoverMode mode, int configuredReplicas) {
        this(dir, mode, configuredReplicas, 1);
    }

    /** As {@link #FaultInjectingCluster(Path, FailoverMode, int)}, on the simulation of {@code seed}. */
    FaultInjectingCluster(Path dir, @Nullable FailoverMode mode, int configuredReplicas, long seed) {
        this.dir = dir;
        this.mode = mode;
        this.configuredReplicas = configuredReplicas;
        this.sim = new Simulator(seed);
        sim.schedule(TICK_MILLIS * 1_000_000L, -1, "tick", this::tickAll);
    }

    /** Puts the nodes started from now on on real {@link RedoLog}s in their directories. */
    FaultInjectingCluster withRedoLogs() {
        redoLogs = true;
        return this;
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
     * Starts a, b and c with priorities 3, 2 and 1 and runs until a leads and b and c follow;
     * returns them in that order.
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
     * Stops {@code node} at once, as SIGKILL would: nothing it queued runs any more, its log keeps
     * what it was given (the OS still writes it out), and its connections die with it: a call it had
     * not answered fails, as a real one does when the socket closes.
     */
    void kill(Node node) {
        if (nodes.get(node.id) != node) {
            return;
        }
        nodes.remove(node.id);
        node.process.crash();
        if (node.core.log instanceof InMemoryLog log) {
            log.crash(false);   // after a kill, the log holds every record it took: the OS writes them out
        } else {
            node.core.log.close();
        }
        List<CompletableFuture<?>> unanswered = List.copyOf(node.connections);
        node.connections.clear();
        unanswered.forEach(f -> f.completeExceptionally(new TimeoutException(node + " was killed before it answered")));
    }

    /** Splits the live nodes into groups that reach only each other; nodes in no group are isolated. */
    @SafeVarargs
    final void partition(Collection<Node>... sides) {
        Map<NodeId, Integer> g = new HashMap<>();
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
        node.process.pause();
    }

    /** Thaws {@code node}: what came due on it runs, and the messages that waited are delivered. */
    void resume(Node node) {
        node.process.resume();
        List<Runnable> messages = new ArrayList<>(held);
        held.clear();
        messages.forEach(Runnable::run);
    }

    private boolean paused(NodeId id) {
        Node n = nodes.get(id);
        return n != null && n.process.paused();
    }

    /** The hash of every event run so far: two runs of one seed that took different steps differ here. */
    long traceHash() {
        return sim.traceHash();
    }

    /** The simulated clock, in nanoseconds. */
    long nanos() {
        return sim.nanos();
    }

    /** Runs the simulation until {@code by} of simulated time has passed (a world tick every 100 ms). */
    void advance(Duration by) {
        boolean[] reached = new boolean[1];
        sim.schedule(by.toNanos(), -1, "advance", () -> reached[0] = true);
        while (!reached[0]) {
            step();
        }
        settle();
    }

    /**
     * Schedules {@code action} on {@code process} as work in flight: the test's steps wait until no
     * work is in flight (timers and ticks are not work), as a real cluster's would until its queues
     * and network were idle. Dropped if the process crashed meanwhile, held while it is paused.
     */
    private void work(SimProcess process, long delayNanos, String what, Runnable action) {
        Runnable guarded = process.guarded(action);
        inFlight++;
        sim.schedule(delayNanos, process.index(), what, () -> {
            inFlight--;
            guarded.run();
        });
    }

    /** Runs events until no work is in flight (a paused node's held work does not count). */
    private void settle() {
        long deadline = sim.nanos() + WAIT.toNanos();
        while (inFlight > 0) {
            if (sim.nanos() > deadline) {
                throw new AssertionError("work still in flight after " + WAIT.toSeconds() + " s of simulated time; "
                        + describe() + System.lineSeparator() + sim.recentTrace());
            }
            step();
        }
    }

    /** Runs the next event, then checks that no two primaries lead one epoch. */
    private void step() {
        if (!sim.step()) {
            throw new AssertionError("the simulation ran out of events (the world tick stopped?)");
        }
        for (Node n : nodes.values()) {
            ReplicaState st = n.replica.state();
            if (st.role() == ReplicaRole.PRIMARY) {
                Set<NodeId> primaries = primariesByEpoch.computeIfAbsent(st.epoch(), e -> new HashSet<>());
                primaries.add(n.id);
                if (primaries.size() > 1) {
                    throw new AssertionError("two primaries at epoch " + st.epoch() + ": " + primaries + "; "
                            + describe());
                }
            }
        }
    }

    /** Ticks every live node that is not paused, and comes back in {@value #TICK_MILLIS} ms. */
    private void tickAll() {
        for (Node n : List.copyOf(nodes.values())) {
            if (n.process.running()) {
                n.replica.tick();
            }
        }
        sim.schedule(TICK_MILLIS * 1_000_000L, -1, "tick", this::tickAll);
    }

    /**
     * Runs the simulation until {@code done} holds, or fails after {@link #WAIT} of simulated time.
     * {@code done} is checked when no work is in flight, as a test thread polling a real cluster
     * would see it between bursts of messages.
     */
    void runUntil(BooleanSupplier done, String what) {
        long deadline = sim.nanos() + WAIT.toNanos();
        while (inFlight > 0 || !done.getAsBoolean()) {
            if (sim.nanos() > deadline) {
                throw new AssertionError("not reached within " + WAIT.toSeconds() + " s of simulated time: " + what
                        + "; " + describe() + System.lineSeparator() + sim.recentTrace());
            }
            step();
        }
    }

    /** Runs the simulation until {@code future} completes, and returns its value (or throws its failure). */
    <T> T await(CompletableFuture<T> future) {
        runUntil(future::isDone, "the future completed");
        return future.join();
    }

    String describe() {
        StringBuilder s = new StringBuilder("seed ").append(sim.seed()).append(", step ").append(sim.steps()).append(" at ")
                .append(String.format("%.3f", sim.elapsedMillis())).append(" ms: ");
        for (Node n : everStarted) {
            ReplicaState st = n.replica.state();
            s.append(n.id).append(nodes.get(n.id) == n ? n.process.paused() ? "(paused)" : "" : "(dead)").append('=')
                    .append(st.role()).append("@e").append(st.epoch()).append(" log ").append(n.core.log.startLsn())
                    .append("..").append(st.logEnd()).append(" committed ").append(n.core.log.committedLsn())
                    .append(" applied ").append(st.applied()).append("; ");
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
        CompletableFuture<ResponseMessage> answer = new Answer<>();
        node.replica.write(new RequestMessage(id.low(), SERVICE, 0, method, AccessMode.WRITE, 10_000, 0, id,
                new byte[0]), answer::complete);
        return answer;
    }

    /**
     * Asks {@code node} (meant to be the primary) for a placement change; the future completes with
     * its answer, once the change committed or was refused.
     */
    CompletableFuture<PeerMessages.ReconfigureReply> reconfigure(Node node, String add, String remove) {
        CompletableFuture<PeerMessages.ReconfigureReply> answer = new Answer<>();
        node.replica.onPeerMessage("reconfigure", new PeerMessages.Reconfigure(SERVICE, 0, add, remove, 30_000),
                reply -> answer.complete((PeerMessages.ReconfigureReply) reply));
        return answer;
    }

    /** Sends {@code node} a peer message as a peer would; the future completes with its answer. */
    CompletableFuture<Object> peer(Node node, String method, Object message) {
        CompletableFuture<Object> answer = new Answer<>();
        node.replica.onPeerMessage(method, message, answer::complete);
        return answer;
    }

    /** Runs until every live node serves (level 1: SECONDARY). */
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

    /** Runs the simulation until {@code node}'s executor ran every task queued on it before this call. */
    static void sync(Node node) {
        node.cluster().syncNode(node);
    }

    private void syncNode(Node node) {
        boolean[] ran = new boolean[1];
        node.core.exec.execute(() -> ran[0] = true);
        long deadline = sim.nanos() + WAIT.toNanos();
        while (!ran[0]) {
            if (sim.nanos() > deadline) {
                throw new AssertionError(node + "'s executor did not run what was queued on it; " + describe());
            }
            step();
        }
    }

    @Override
    public void close() {
        for (Node node : List.copyOf(nodes.values())) {
            kill(node);
        }
    }

    /**
     * A future that cannot be waited for: the simulation runs on the waiting thread, so a
     * {@code join} before it completed would wait for ever. Step the simulation instead ({@link #await}).
     */
    private static final class Answer<T> extends CompletableFuture<T> {
        @Override
        public T join() {
            if (!isDone()) {
                throw new IllegalStateException("not answered yet: run the simulation until it is (cluster.await)");
            }
            return super.join();
        }

        @Override
        public T get() throws java.util.concurrent.ExecutionException, InterruptedException {
            join();
            return super.get();
        }

        @Override
        public <U> CompletableFuture<U> newIncompleteFuture() {
            return new Answer<>();
        }
    }

    final class Node {
        final NodeId id;
        final int priority;
        final RecordingService app;
        final SimProcess process;
        final ReplicaCore core;
        final PartitionReplica replica;
        /** Calls this incarnation took and has not answered: they fail when it is killed, as a closed connection makes them. */
        private final Set<CompletableFuture<?>> connections = new java.util.LinkedHashSet<>();
        private final GroupCommit forces = new GroupCommit();
        /** The records this node's log refuses (without taking them; it stays usable), as a log can. */
        Predicate<LogRecord> refuseAppend = r -> false;
        /** How many records the log refused so far. */
        final AtomicInteger refused = new AtomicInteger();
        /**
         * Makes the log fail as one whose disk failed: the next append is taken and its write fails,
         * and the log refuses every later one ({@link RedoLog#append}'s contract after a write failure).
         */
        boolean failWrites;
        private boolean writeFailed;
        /** The records whose append throws {@code LogException} at once, as a log sync that throws would. */
        Predicate<LogRecord> throwOnAppend = r -> false;
        /** The records whose append completes only once {@link #releaseAppends} is called (a slow force). */
        Predicate<LogRecord> delayAppend = r -> false;
        final CompletableFuture<Void> appendsReleased = new CompletableFuture<>();
        /** While set, records appended become durable only once it completes too (a disk slower than the log). */
        @Nullable CompletableFuture<Void> durability;
        /** What this node's checkpoints keep, read at each: the cluster's snapshot retention unless a test sets it. */
        @Nullable LogRetentionConfig retention;
        /** How long each take-over of the primary role took, as the replica measured it (its metric). */
        final List<Long> failovers = new ArrayList<>();

        void releaseAppends() {
            appendsReleased.complete(null);
        }

        Node(String name, int priority, RecordingService app, boolean learner) {
            this.id = NodeId.of(name);
            this.priority = priority;
            this.app = app;
            this.process = processes.computeIfAbsent(name, k -> new SimProcess(sim, processes.size()));
            process.start();
            Path directory = dir.resolve(name);
            Log log = redoLogs ? RedoLog.open(directory, FsyncPolicy.GROUP) : disk(name, directory);
            this.retention = snapshots;
            core = new CoreSetup(SERVICE, 0, id).storage(log, directory).app(app).peers(new NetworkPeers(this))
                    .executors(new SerialExecutor(task -> work(process, sim.random().nextInt(20_000), "task", task), name,
                            sim::nanos), process.timer())
                    .clock(sim::nanos).random(new SplittableRandom(sim.random().nextLong()))
                    .background(task -> work(process, sim.millisBetween(1, 20), "background", task))
                    .retention(() -> retention != null ? retention : LogRetentionConfig.DEFAULT)
                    .logAppend(this::appendAll).tookOver(failovers::add).build();
            // a restarted node's service state is gone with its process: it replays its log (CHECK says nothing ran)
            if (mode == null) {
                replica = new WriteAnywhereReplica(core, new ReplicaSettings(priority, configuredReplicas,
                        Duration.ofSeconds(2), null, false));
            } else if (mode == FailoverMode.MAJORITY) {
                replica = new MajorityReplica(core, new ReplicaSettings(priority, configuredReplicas,
                        Duration.ofSeconds(2), Duration.ofSeconds(1), learner));
            } else {
                replica = new PrimaryBackupReplica(core, new ReplicaSettings(priority, configuredReplicas,
                        Duration.ofSeconds(2), null, false));
            }
        }

        FaultInjectingCluster cluster() {
            return FaultInjectingCluster.this;
        }

        /** The in-memory log on {@code name}'s disk: a new, empty one if its directory is gone (a new disk). */
        private InMemoryLog disk(String name, Path directory) {
            if (!Files.isDirectory(directory)) {
                disks.remove(name);
                try {
                    Files.createDirectories(directory);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot create " + directory, e);
                }
            }
            return disks.computeIfAbsent(name, InMemoryLog::new);
        }

        /** What the log in front of this node's log does with one record (see {@link ReplicaCore#logAppend}). */
        private List<CompletableFuture<Void>> appendAll(List<LogRecord> records) {
            CompletableFuture<Void> disk = durability;
            return records.stream().map(this::append).map(done -> disk == null ? done : done.thenCompose(v -> disk))
                    .toList();
        }

        private CompletableFuture<Void> append(LogRecord record) {
            Log log = core.log;
            if (throwOnAppend.test(record)) {
                throw new LogException(core.directory, "cannot force record " + record.lsn() + " ("
                        + record.method() + "): injected by the test");
            }
            if (failWrites) {
                if (!writeFailed) {
                    writeFailed = true;
                    log.append(record); // taken, and then its write fails
                }
                return CompletableFuture.failedFuture(new LogException(core.directory,
                        "cannot write record " + record.lsn() + ": injected by the test"));
            }
            if (refuseAppend.test(record)) {
                refused.incrementAndGet();
                return CompletableFuture.failedFuture(new LogException(core.directory,
                        "refused record " + record.lsn() + " (" + record.method() + "): injected by the test"));
            }
            CompletableFuture<Void> appended = log instanceof InMemoryLog memory ? appendInMemory(memory, record)
                    : appendToDisk(log, record);
            return delayAppend.test(record) ? appended.thenCompose(v -> appendsReleased) : appended;
        }

        /** Appends to the in-memory log; a force, an event soon after, covers every record appended before it (group commit). */
        private CompletableFuture<Void> appendInMemory(InMemoryLog log, LogRecord record) {
            CompletableFuture<Void> appended = log.append(record);
            forces.appended(force -> work(process, sim.millisBetween(0.05, 2), "fsync", force), log::force);
            return appended;
        }

        /**
         * Appends to the REDO log and waits for its writer to make the record durable, then answers
         * in an event soon after: the writer's thread never completes a future the simulation sees.
         */
        private CompletableFuture<Void> appendToDisk(Log log, LogRecord record) {
            return DiskWrites.settled(log.append(record), done -> work(process, sim.millisBetween(0.05, 2), "fsync",
                    done));
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
            InetSocketAddress unused = InetSocketAddress.createUnresolved("sim", 1);
            return new Replica(id, unused, unused, priority, s.role(), s.applied(), 0, s.epoch(), s.logEnd(),
                    s.lastEpoch(), 0);
        }

        @Override
        public String toString() {
            return id.value();
        }
    }

    /**
     * Delivers calls as events on the receiving process, subject to the partitions and fault rules:
     * each after a short random delay, in order per link (one connection), its answer as an event on
     * the caller's process. A lost message or answer fails the call after {@link #LOST_AFTER_NANOS}.
     */
    private final class NetworkPeers implements Peers {
        final Node self;

        NetworkPeers(Node self) {
            this.self = self;
        }

        @Override
        public NodeId self() {
            return self.id;
        }

        @Override
        public List<Replica> replicas(String service, int partition) {
            return nodes.values().stream().filter(n -> reachable(self.id, n.id))
                    .filter(n -> n == self || !n.process.paused()).map(Node::asReplica).toList();
        }

        @Override
        public <T> CompletableFuture<T> call(NodeId node, PeerRequest request, Class<T> replyType) {
            String method = request.method();
            Object message = request.message();
            CompletableFuture<T> result = new CompletableFuture<>();
            Node target = nodes.get(node);
            String call = node + ":" + method;
            if (target == null || !reachable(self.id, node) || drop.test(self.id, call)) {
                lost(result, call + " lost");
                return result;
            }
            target.connections.add(result);
            result.whenComplete((r, e) -> target.connections.remove(result));
            Runnable deliver = () -> work(target.process, delay(self, target), method, () -> {
                if (nodes.get(node) != target || !reachable(self.id, node)) {
                    lost(result, call + " lost");
                    return;
                }
                target.replica.onPeerMessage(method, message, reply -> {
                    if (reachable(self.id, node)) {
                        work(self.process, delay(target, self), "reply", () -> result.complete(replyType.cast(reply)));
                    } else {
                        lost(result, call + " reply lost");
                    }
                });
            });
            if (hold.test(self.id, call) || self.process.paused() || target.process.paused()) {
                held.add(deliver);
            } else {
                deliver.run();
                if (duplicate.test(self.id, call)) {
                    work(target.process, delay(self, target), method + " (again)",
                            () -> target.replica.onPeerMessage(method, message, reply -> { }));
                }
            }
            return result;
        }

        /** Fails {@code result} on the caller's process after {@link #LOST_AFTER_NANOS}, as its timeout would. */
        private void lost(CompletableFuture<?> result, String why) {
            self.process.schedule(LOST_AFTER_NANOS, "lost", () -> result.completeExceptionally(new TimeoutException(why)));
        }

        /** The delay of a message from {@code from} to {@code to} sent now: 0.05 to 1.5 ms, in order on its link. */
        private long delay(Node from, Node to) {
            String link = from.id + ">" + to.id;
            long arrives = Math.max(sim.nanos() + sim.millisBetween(0.05, 1.5), linkTail.getOrDefault(link, 0L) + 1);
            linkTail.put(link, arrives);
            return arrives - sim.nanos();
        }

        @Override
        public void announce() {
        }
    }
}
