package io.neptune.server.internal.replication.runtime;

import io.neptune.core.NodeId;
import io.neptune.core.internal.membership.Replica;
import io.neptune.server.internal.log.InMemoryLog;
import io.neptune.server.internal.log.LogRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;

/**
 * One node of a simulated cluster: the real replica of the chosen mode over an {@link InMemoryLog}
 * whose forces are the simulation's events, a {@link SimService}, the {@link SimNetwork}'s peers and
 * a {@link SimProcess}. The log outlives crashes (it is the disk), and so does a durable service's state.
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class SimNode {
    static final String SERVICE = "svc";
    private static final InetSocketAddress NOWHERE = InetSocketAddress.createUnresolved("sim", 1);

    private final SimCluster cluster;
    private final int index;
    private final NodeId id;
    private final int priority;
    private final Path directory;
    private final SimProcess process;
    /** The disk: it outlives crashes, and is replaced by an empty one when the replica moves away. */
    private InMemoryLog log;
    /** Whether the replica restarts as a learner: it was added back and no configuration names it yet. */
    private boolean learner;
    private final GroupCommit forces = new GroupCommit();
    /** Whether the node drains (an operator's drain or a rolling restart): its replica stands for no election. */
    private boolean draining;
    /** Until when (simulated nanoseconds) this node's disk is slow: each force takes 50 to 500 ms. */
    private long slowDiskUntil;
    /** Calls this incarnation took and has not answered: they fail when it crashes, as a closed connection makes them. */
    private final List<CompletableFuture<?>> connections = new ArrayList<>();
    private SimService service;
    private ReplicaCore core;
    private PartitionReplica replica;

    SimNode(SimCluster cluster, int index, int priority, Path directory) {
        this.cluster = cluster;
        this.index = index;
        this.id = nodeId(index);
        this.priority = priority;
        this.directory = directory;
        this.process = new SimProcess(cluster.sim(), index);
        this.log = new InMemoryLog(id.value());
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + directory, e);
        }
    }

    static NodeId nodeId(int index) {
        return NodeId.of("n" + index);
    }

    static int indexOf(NodeId node) {
        return Integer.parseInt(node.value().substring(1));
    }

    /** Starts a new incarnation on the log as the last one left it. */
    void start() {
        process.start();
        draining = false;
        cluster.network().changed();
        connections.clear();
        Simulator sim = cluster.sim();
        if (service == null || !service.durable()) {
            service = new SimService(cluster.history(), id.value(), cluster.options().snapshots());
        }
        log.writeEpochsThrough(write -> process.schedule(forceDelay(), "epoch fsync", write));
        CoreSetup setup = new CoreSetup(SERVICE, 0, id).storage(log, directory).app(service)
                .peers(cluster.network().peersOf(this))
                .executors(new SerialExecutor(process.pool(), id.value(), sim::nanos), process.timer())
                .clock(sim::nanos).random(new SplittableRandom(sim.random().nextLong()))
                .background(task -> process.schedule(sim.millisBetween(1, 20), "background", task))
                .logAppend(this::append).draining(() -> draining);
        if (service.durable()) {
            setup.retention(SimOptions.RETENTION);
        }
        core = setup.build();
        replica = cluster.options().newReplica(core, priority, learner);
        replica.start();
        process.schedule(sim.millisBetween(0, SimCluster.TICK_MILLIS), "tick", this::tick);
    }

    private void tick() {
        replica.tick();
        process.schedule(SimCluster.TICK_MILLIS * 1_000_000L, "tick", this::tick);
    }

    /** Appends to the log; a force covers every record appended before it runs (group commit). */
    private List<CompletableFuture<Void>> append(List<LogRecord> records) {
        List<CompletableFuture<Void>> appended = log.appendAll(records);
        InMemoryLog disk = log;
        forces.appended(force -> process.schedule(forceDelay(), "fsync", force), disk::force);
        return appended;
    }

    /** How long a force takes: mostly under 2 ms, one in twenty up to 300 ms, and 50 to 500 ms on a slow disk. */
    private long forceDelay() {
        Simulator sim = cluster.sim();
        if (sim.nanos() < slowDiskUntil) {
            return sim.millisBetween(50, 500);
        }
        return sim.chance(0.05) ? sim.millisBetween(5, 300) : sim.millisBetween(0.05, 2);
    }

    /**
     * The replica moved away (its node unhosted it, deleting its data), to come back as a learner: an
     * empty log, no service state, no files. The process must be down.
     */
    void wipe() {
        if (process.alive()) {
            throw new IllegalStateException(id + " is running");
        }
        log = new InMemoryLog(id.value());
        service = null;
        learner = true;
        try (java.util.stream.Stream<Path> files = Files.walk(directory)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!p.equals(directory)) {
                    Files.delete(p);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot empty " + directory, e);
        }
    }

    /** Whether the replica moved away and was not added back yet. */
    boolean wiped() {
        return learner;
    }

    /** A configuration names this replica now: it restarts as a voter. */
    void admitted() {
        learner = false;
    }

    /** Freezes the process (SIGSTOP). */
    void pause() {
        process.pause();
        cluster.network().changed();
    }

    /** Thaws it. */
    void resume() {
        process.resume();
        cluster.network().changed();
    }

    /** Starts or ends a drain: the node announces it, and its replica stands for no election. */
    void drain(boolean on) {
        draining = on;
    }

    boolean draining() {
        return draining;
    }

    /** Makes this node's disk slow for {@code nanos}. */
    void slowDisk(long nanos) {
        slowDiskUntil = cluster.sim().nanos() + nanos;
    }

    /**
     * Ends the process: a machine crash loses what the log had not forced (with a torn last record if
     * {@code tornTail}); a kill (SIGKILL) keeps what was written, which the OS still writes out.
     */
    void crash(boolean machine, boolean tornTail) {
        if (!machine) {
            log.force();
        }
        process.crash();
        cluster.network().changed();
        forces.crashed();
        log.crash(machine && tornTail);
        if (machine) {
            service.powerLoss();
        }
        List<CompletableFuture<?>> open = List.copyOf(connections);
        connections.clear();
        open.forEach(f -> f.completeExceptionally(new java.net.SocketException(id + " crashed: connection closed")));
    }

    /** {@code call} to this node fails if this incarnation crashes before it completes. */
    void connectionFailsOnCrash(CompletableFuture<?> call) {
        connections.add(call);
        call.whenComplete((v, e) -> connections.remove(call));
    }

    Replica asReplica() {
        ReplicaState s = replica.state();
        return new Replica(id, NOWHERE, NOWHERE, priority, s.role(), s.applied(), 0, s.epoch(), s.logEnd(),
                s.lastEpoch(), 0, draining);
    }

    int index() {
        return index;
    }

    NodeId id() {
        return id;
    }

    SimProcess process() {
        return process;
    }

    PartitionReplica replica() {
        return replica;
    }

    SimService service() {
        return service;
    }

    InMemoryLog log() {
        return log;
    }

    @Override
    public String toString() {
        ReplicaState s = replica == null ? ReplicaState.INITIAL : replica.state();
        return id + (process.alive() ? process.paused() ? "(paused)" : "" : "(down)") + "=" + s.role() + "@e"
                + s.epoch() + " log " + log.startLsn() + ".." + log.lastLsn() + " durable " + log.durableLsn()
                + " applied " + s.applied();
    }
}
