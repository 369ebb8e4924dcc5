package io.neptune.server.internal.replication.runtime;

import io.neptune.core.ReplicaRole;
import io.neptune.core.internal.wire.ResponseMessage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * One seed of the deterministic simulation: a cluster of real replicas of one mode on a
 * {@link SimNetwork}, written to by {@link SimClient}s while {@link SimNemesis} crashes, kills,
 * pauses and cuts off nodes; then the faults stop, everything heals, and the replicas must converge.
 *
 * <p>Checked after every event: at most one primary per epoch; at every apply (in {@link SimService}):
 * no write applied twice by one replica, and at levels 2 and 3 one write per LSN across replicas; at
 * every acknowledgement: the write is the one applied at its version. At the end: every replica holds
 * every acknowledged write, and all hold the same writes (in the same order at levels 2 and 3).
 *
 * <p>Thread-safety: none; one thread runs a seed from start to end.
 */
final class SimCluster {
    static final long TICK_MILLIS = 100;
    static final int CLIENTS = 3;
    /** How long, in simulated time, the replicas get to converge once the faults stop. */
    private static final long CONVERGE_NANOS = 120_000_000_000L;

    private final SimOptions options;
    private final Simulator sim;
    private final SimHistory history;
    private final List<SimNode> nodes = new ArrayList<>();
    private final SimNetwork network;
    private final List<SimClient> clients = new ArrayList<>();
    private final SimNemesis nemesis;
    private final Path directory;

    SimCluster(SimOptions options, long seed, Path directory) {
        this.options = options;
        this.sim = new Simulator(seed);
        this.history = new SimHistory(options.mode().partitionLsns());
        this.directory = directory;
        this.network = new SimNetwork(sim, nodes, options.replicas());
        for (int i = 0; i < options.replicas(); i++) {
            nodes.add(new SimNode(this, i, options.replicas() - i, directory.resolve("n" + i)));
        }
        for (int i = 0; i < CLIENTS; i++) {
            clients.add(new SimClient(this, i));
        }
        this.nemesis = new SimNemesis(this);
    }

    /** The outcome of one seed. */
    record Result(SimOptions options, long seed, long steps, double simulatedMillis, long traceHash, int acknowledged,
            int faults, @Nullable String violation, String report) {
        boolean passed() {
            return violation == null;
        }
    }

    /** Runs the seed: {@link SimOptions#steps()} events under faults, then the convergence check. */
    Result run() {
        Thread thread = Thread.currentThread();
        Thread.UncaughtExceptionHandler handler = thread.getUncaughtExceptionHandler();
        // a replica's task that throws is reported here by its SerialExecutor: a bug, like any broken rule
        thread.setUncaughtExceptionHandler((t, e) -> history.violation("a task threw: " + e));
        try {
            nodes.forEach(n -> sim.schedule(sim.millisBetween(0, 50), n.index(), "start", n::start));
            clients.forEach(SimClient::begin);
            if (options.faults()) {
                nemesis.begin();
            }
            while (sim.steps() < options.steps() && history.violation() == null && sim.step()) {
                checkPrimaries();
            }
            if (history.violation() == null) {
                converge();
            }
            String violation = history.violation();
            return new Result(options, sim.seed(), sim.steps(), sim.elapsedMillis(), sim.traceHash(),
                    history.acknowledged().size(), nemesis.faults(), violation, violation == null ? "" : report());
        } catch (RuntimeException | AssertionError e) {
            history.violation("an event threw: " + e);
            return new Result(options, sim.seed(), sim.steps(), sim.elapsedMillis(), sim.traceHash(),
                    history.acknowledged().size(), nemesis.faults(), history.violation(), report() + stackTrace(e));
        } finally {
            thread.setUncaughtExceptionHandler(handler);
            deleteDirectory();
        }
    }

    /** Stops the faults, heals everything, and runs until the replicas agree; records a violation if they do not. */
    private void converge() {
        nemesis.stop();
        clients.forEach(SimClient::stop);
        long deadline = sim.nanos() + CONVERGE_NANOS;
        while (history.violation() == null && sim.nanos() < deadline && sim.step()) {
            checkPrimaries();
            if (sim.steps() % 500 == 0 && converged()) {
                finalChecks();
                return;
            }
        }
        if (history.violation() == null) {
            history.violation("the replicas did not converge within " + CONVERGE_NANOS / 1_000_000_000
                    + " s of simulated time after the faults stopped");
        }
    }

    private boolean converged() {
        if (clients.stream().anyMatch(SimClient::busy)) {
            return false;
        }
        if (nodes.stream().anyMatch(n -> !n.process().running())) {
            return false; // a node moved away may be down, and wiped (no service), until the nemesis adds it back
        }
        List<String> first = nodes.get(0).service().applied();
        java.util.@Nullable Set<String> firstSet = null; // level 1: the same writes in any order; built once per check
        for (SimNode n : nodes) {
            List<String> applied = n.service().applied();
            if (options.mode().partitionLsns()) {
                if (!applied.equals(first)) {
                    return false;
                }
                continue;
            }
            if (applied.size() != first.size()) {
                return false;
            }
            if (firstSet == null) {
                firstSet = new java.util.HashSet<>(first);
            }
            if (!firstSet.containsAll(applied)) {
                return false;
            }
        }
        return options.mode() == SimOptions.Mode.WRITE_ANYWHERE_LEVEL_1
                || nodes.stream().filter(n -> n.replica().state().role() == ReplicaRole.PRIMARY).count() == 1;
    }

    private void finalChecks() {
        for (String id : history.acknowledged()) {
            for (SimNode n : nodes) {
                if (!n.service().holds(id)) {
                    history.violation("acknowledged write " + id + " is lost: " + n.id() + " does not hold it");
                    return;
                }
            }
        }
    }

    private void checkPrimaries() {
        for (SimNode n : nodes) {
            if (n.process().alive()) {
                ReplicaState s = n.replica().state();
                if (s.role() == ReplicaRole.PRIMARY) {
                    history.primary(s.epoch(), n.id().value());
                    nemesis.checkPrimary(n);
                }
            }
        }
    }

    /** A client's write was answered. */
    void answered(String id, ResponseMessage response) {
        history.acknowledged(id, response.version());
    }

    private String report() {
        StringBuilder s = new StringBuilder();
        s.append("  nodes: ");
        nodes.forEach(n -> s.append(n).append("; "));
        s.append(System.lineSeparator()).append("  services: ");
        nodes.forEach(n -> {
            if (n.service() == null) { // wiped: it moves back as a learner and holds nothing until it restarts
                s.append(n.id()).append(" holds nothing (wiped); ");
            } else {
                s.append(n.id()).append(" holds ").append(n.service().applied().size()).append(" writes (")
                        .append(Integer.toHexString(n.service().applied().hashCode())).append("); ");
            }
        });
        s.append(System.lineSeparator()).append("  clients: ").append(clients);
        s.append(System.lineSeparator()).append("  network: ").append(network.whole() ? "whole" : "split")
                .append(System.lineSeparator()).append("  faults: ").append(nemesis.describe())
                .append(System.lineSeparator()).append(sim.recentTrace());
        return s.toString();
    }

    private static String stackTrace(Throwable e) {
        java.io.StringWriter s = new java.io.StringWriter();
        e.printStackTrace(new java.io.PrintWriter(s));
        return s.toString();
    }

    private void deleteDirectory() {
        if (!Files.exists(directory)) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + directory, e);
        }
    }

    /** Prints every event of the run to {@code out}. */
    SimCluster traceTo(java.io.PrintStream out) {
        sim.traceTo(out);
        return this;
    }

    Simulator sim() {
        return sim;
    }

    SimHistory history() {
        return history;
    }

    SimNetwork network() {
        return network;
    }

    SimOptions options() {
        return options;
    }

    List<SimNode> nodes() {
        return nodes;
    }
}
