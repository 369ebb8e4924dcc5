package io.neptune.server.internal.replication.runtime;

import io.neptune.core.ReplicaRole;
import java.util.ArrayList;
import io.neptune.core.internal.membership.Replica;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The faults of a simulation, drawn from its PRNG: machine crashes (unforced records lost, sometimes
 * a torn last record), kills (SIGKILL: what was written survives), pauses of 0.3 to 15 s (SIGSTOP),
 * spells of a slow disk (forces of 50 to 500 ms), drains of the primary (a hand-over, then a restart
 * half of the time: a rolling restart), an operator's move-primary to a chosen secondary (a pinned
 * take-over), catastrophes ({@link SimCatastrophe}: every replica killed, restarted one by one, some
 * lost for a while, in fail-stop mode then an operator's promote), in majority mode an operator's
 * promote of any replica and moves of a replica away and back (removed from the configuration, data
 * deleted, added back as a learner), and, in modes that promise to survive them, a minority cut off
 * from the rest and spells of lossy links (drops, duplicates, reordering). Half of the faults aim at
 * the primary. In majority mode a replica may also be set to crash right after its next grant of a
 * vote (the machine's, so an epoch write not yet forced is lost) and to restart within 20 ms, as a
 * supervisor restarts a crashing process: a grant that left before its epoch was forced lets the
 * restarted replica grant that epoch again, to another candidate.
 *
 * <p>A fault starts 0.1 to 1 s after the last one ended or, three times in ten, while it lasts, so
 * that two faults overlap (never more): then neither is a placement change or a catastrophe, and no
 * two are machine crashes or splits. Each answer of an operator's request is checked
 * ({@link SimOperator}).
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class SimNemesis {
    private enum Fault {
        MACHINE_CRASH, KILL, PAUSE, SLOW_DISK, DRAIN, MOVE, CUT_OFF, LOSSY, PROMOTE, MOVE_PRIMARY, CATASTROPHE,
        CRASH_AFTER_VOTE
    }

    /** A fault that lasts until {@code until} (simulated nanoseconds). */
    private record Running(Fault fault, long until) {}

    /** How long an operator waits for a reconfiguration's answer before asking again. */
    private static final long RECONFIGURE_PATIENCE_NANOS = 35_000_000_000L;
    /** At most this many faults last at once. */
    private static final int AT_ONCE = 2;
    /** The chance that the next fault starts while the last one lasts, if fewer than {@link #AT_ONCE} do. */
    private static final double OVERLAP = 0.3;

    private final SimCluster cluster;
    private final Simulator sim;
    private final SimOperator operator;
    private final SimCatastrophe catastrophe;
    private final List<String> done = new ArrayList<>();
    /** The faults that may still last. */
    private final List<Running> running = new ArrayList<>();
    private boolean stopped;
    /** The replica set to crash right after its next grant of a vote, and until when (simulated nanoseconds). */
    private @Nullable VoteTrap voteTrap;
    /** A replica moved away and not yet added back: the next faults wait for it. */
    private @Nullable SimNode moving;
    private int faults;

    SimNemesis(SimCluster cluster) {
        this.cluster = cluster;
        this.sim = cluster.sim();
        this.operator = new SimOperator(cluster);
        this.catastrophe = new SimCatastrophe(cluster, operator, this::note);
        cluster.network().onAnswer(this::answered);
    }

    void begin() {
        later(sim.millisBetween(200, 800), this::next);
    }

    /**
     * Ends every fault now: the network heals, paused nodes resume, crashed ones restart, and a
     * replica moved away is added back.
     */
    void stop() {
        stopped = true;
        voteTrap = null;
        catastrophe.stop();
        if (moving != null && !moving.process().alive() && moving.wiped()) {
            SimNode node = moving;
            later(0, () -> addBack(node));
        }
        cluster.network().heal();
        cluster.network().lossy(0, 0, 0);
        for (SimNode n : cluster.nodes()) {
            n.drain(false);
            if (n == moving && n.wiped()) {
                continue; // addBack starts it, as a learner
            }
            if (!n.process().alive()) {
                n.start();
            } else if (n.process().paused()) {
                n.resume();
            }
        }
    }

    int faults() {
        return faults;
    }

    /** The faults injected, as a line. */
    String describe() {
        return faults + " (last ones: " + String.join("; ", done.subList(Math.max(0, done.size() - 8), done.size()))
                + ")";
    }

    private void next() {
        if (stopped) {
            return;
        }
        if (moving != null || catastrophe.underWay()) {
            // one placement change at a time, as an operator makes; a catastrophe is all there is until it ends
            later(sim.millisBetween(500, 1500), this::next);
            return;
        }
        faults++;
        List<Fault> kinds = kinds();
        Fault fault = kinds.get(sim.random().nextInt(kinds.size()));
        SimNode target = target();
        long duration = switch (fault) {
            case MACHINE_CRASH, KILL -> crash(target, fault == Fault.MACHINE_CRASH);
            case PAUSE -> pause(target);
            case SLOW_DISK -> slowDisk(target);
            case DRAIN -> drain();
            case MOVE -> move();
            case CUT_OFF -> cutOff(target);
            case LOSSY -> lossy();
            case PROMOTE -> promote();
            case MOVE_PRIMARY -> movePrimary();
            case CATASTROPHE -> catastrophe();
            case CRASH_AFTER_VOTE -> crashAfterVote(target);
        };
        running.add(new Running(fault, sim.nanos() + duration));
        boolean overlap = duration > 0 && running().size() < AT_ONCE && sim.chance(OVERLAP);
        later(overlap ? sim.millisBetween(0, duration / 1e6) : duration + sim.millisBetween(100, 1000), this::next);
    }

    /**
     * The faults the mode promises to survive, of those that may start now: with another fault
     * lasting, no placement change or catastrophe (each needs the cluster to itself), a second
     * machine crash (each mode promises to survive one, docs/RELIABILITY.md) or a second split (the
     * network has one).
     */
    private List<Fault> kinds() {
        List<Fault> kinds = new ArrayList<>(switch (cluster.options().mode()) {
            // all: the only mode whose placement changes through configurations in the log (MOVE)
            case MAJORITY_LEVEL_2, MAJORITY_LEVEL_3 -> List.of(Fault.values());
            // fail-stop does not survive splits; an operator promotes there only after a catastrophe
            case FAIL_STOP_LEVEL_2, FAIL_STOP_LEVEL_3 -> List.of(Fault.MACHINE_CRASH, Fault.KILL, Fault.PAUSE,
                    Fault.SLOW_DISK, Fault.DRAIN, Fault.MOVE_PRIMARY, Fault.CATASTROPHE);
            // level 1 has no primary to hand over, promote or move
            case WRITE_ANYWHERE_LEVEL_1 -> List.of(Fault.MACHINE_CRASH, Fault.KILL, Fault.PAUSE, Fault.SLOW_DISK,
                    Fault.CUT_OFF, Fault.LOSSY, Fault.CATASTROPHE);
        });
        List<Running> lasting = running();
        if (!lasting.isEmpty()) {
            kinds.removeAll(List.of(Fault.MOVE, Fault.CATASTROPHE));
            lasting.forEach(r -> {
                if (r.fault() == Fault.MACHINE_CRASH || r.fault() == Fault.CRASH_AFTER_VOTE) {
                    kinds.removeAll(List.of(Fault.MACHINE_CRASH, Fault.CRASH_AFTER_VOTE));
                } else if (r.fault() == Fault.CUT_OFF) {
                    kinds.remove(r.fault());
                }
            });
        }
        return kinds;
    }

    /** The faults that last now. */
    private List<Running> running() {
        running.removeIf(r -> r.until() <= sim.nanos());
        return running;
    }

    /** Runs as primary: checks what the catastrophe under way, if any, allows. */
    void checkPrimary(SimNode node) {
        catastrophe.checkPrimary(node);
    }

    /** The primary half of the time (if one runs), else any node. */
    private SimNode target() {
        List<SimNode> nodes = cluster.nodes();
        SimNode primary = sim.chance(0.5) ? runningPrimary() : null;
        return primary != null ? primary : nodes.get(sim.random().nextInt(nodes.size()));
    }

    private long crash(SimNode node, boolean machine) {
        boolean torn = machine && sim.chance(0.5);
        long down = sim.millisBetween(200, 5000);
        note((machine ? "machine crash of " : "kill of ") + node.id() + (torn ? " (torn tail)" : "") + ", down "
                + down / 1_000_000 + " ms");
        if (node.process().alive()) {
            node.crash(machine, torn);
        }
        later(down, () -> {
            if (!stopped && !node.process().alive() && !catastrophe.underWay()) {
                node.start();
            }
        });
        return down;
    }

    /** Sets {@code node} to crash right after it next grants a vote, within the next 1 to 5 s. */
    private long crashAfterVote(SimNode node) {
        long window = sim.millisBetween(1000, 5000);
        note("machine crash of " + node.id() + " right after its next grant of a vote, within " + window / 1_000_000
                + " ms");
        voteTrap = new VoteTrap(node, sim.nanos() + window);
        return window;
    }

    /** A replica answered a peer's call: a trapped one that granted a vote crashes before anything else runs. */
    private void answered(SimNode node, String method, Object message, Object reply) {
        VoteTrap trap = voteTrap;
        if (trap == null || trap.node() != node || sim.nanos() > trap.until() || !(message instanceof PeerMessages.Vote vote)
                || vote.preVote() || !(reply instanceof PeerMessages.VoteReply granted) || !granted.granted()) {
            return;
        }
        voteTrap = null;
        note(node.id() + " granted " + vote.node() + " epoch " + vote.epoch() + ", crashes and restarts");
        later(0, () -> { // once the replica's task ends: it crashes, not its code half-way
            if (stopped || !node.process().alive()) {
                return;
            }
            node.crash(true, false);
            later(sim.millisBetween(0.1, 20), () -> {
                if (!stopped && !node.process().alive() && !catastrophe.underWay()) {
                    node.start();
                }
            });
        });
    }

    /** {@code node} crashes right after its next grant of a vote, if it grants one by {@code until}. */
    private record VoteTrap(SimNode node, long until) {}

    private long pause(SimNode node) {
        long frozen = sim.chance(0.5) ? sim.millisBetween(3000, 15000) : sim.millisBetween(300, 3000);
        note("pause of " + node.id() + " for " + frozen / 1_000_000 + " ms");
        if (!node.process().running()) {
            return 0;
        }
        node.pause();
        later(frozen, () -> {
            if (!stopped && node.process().paused()) {
                node.resume();
            }
        });
        return frozen;
    }

    /**
     * Drains the primary as an operator's drain or a rolling restart does: the node stops standing for
     * election and the best other replica (serving, not draining, the longest log, then the highest
     * priority: {@code ReplicationEngine.handOver}'s choice) is asked to take the role over; 1 to 4 s
     * later the node either restarts (a rolling restart) or stops draining.
     */
    private long drain() {
        SimNode primary = runningPrimary();
        if (primary == null) {
            note("no primary to drain");
            return 0;
        }
        boolean restart = sim.chance(0.5);
        long spell = sim.millisBetween(1000, 4000);
        note("drain of " + primary.id() + " for " + spell / 1_000_000 + " ms" + (restart ? ", then a restart" : ""));
        primary.drain(true);
        SimNode heir = null;
        for (SimNode n : cluster.nodes()) {
            Replica r = n.asReplica();
            if (n != primary && n.process().running() && !n.draining() && r.role() == ReplicaRole.SECONDARY
                    && (heir == null || r.logEnd() > heir.asReplica().logEnd()
                    || r.logEnd() == heir.asReplica().logEnd() && r.priority() > heir.asReplica().priority())) {
                heir = n;
            }
        }
        if (heir != null) {
            operator.takeOver(heir, false, reply -> { });
        }
        later(spell, () -> {
            if (stopped || !primary.process().alive()) {
                return;
            }
            if (restart) {
                primary.crash(false, false);
                later(sim.millisBetween(200, 1000), () -> {
                    if (!stopped && !primary.process().alive() && !catastrophe.underWay()) {
                        primary.start();
                    }
                });
            } else {
                primary.drain(false);
            }
        });
        return spell;
    }

    /**
     * Moves a secondary away and back, as an operator's move-replica does in majority mode: the primary
     * removes it from the configuration, its node unhosts it (down, data deleted), and 1 to 3 s later it
     * starts as a learner with nothing and the primary adds it back (which waits until it caught up).
     */
    private long move() {
        SimNode primary = runningPrimary();
        List<SimNode> others = cluster.nodes().stream().filter(n -> n != primary && n.process().running()).toList();
        if (primary == null || others.isEmpty()) {
            note("no primary, or no other replica running, to move");
            return 0;
        }
        SimNode leaving = others.get(sim.random().nextInt(others.size()));
        note("move of " + leaving.id() + " away and back");
        moving = leaving;
        remove(leaving, 1);
        return sim.millisBetween(2000, 4000);
    }

    /**
     * Asks the primary to remove {@code leaving}; once it did, unhosts it and adds it back later. A
     * refusal or a lost answer is asked again (removing a removed replica is accepted), and after ten
     * tries the move ends by adding it (still hosted, its data intact) back, in case a try did remove it.
     */
    private void remove(SimNode leaving, int attempt) {
        SimNode primary = runningPrimary();
        if (primary == null) {
            later(sim.millisBetween(300, 1000), () -> remove(leaving, attempt));
            return;
        }
        reconfigure(primary, "", leaving, removed -> {
            if (removed != null && removed.accepted()) {
                if (leaving.process().alive()) {
                    leaving.crash(false, false);
                }
                leaving.wipe();
                later(sim.millisBetween(1000, 3000), () -> addBack(leaving));
            } else if (attempt < 10) {
                later(sim.millisBetween(300, 1000), () -> remove(leaving, attempt + 1));
            } else {
                note("removing " + leaving.id() + " failed: " + (removed == null ? "no answer" : removed.reason()));
                addBack(leaving);
            }
        });
    }

    /** Starts {@code node} as a learner if it is down, and asks the primary to add it; again until one does. */
    private void addBack(SimNode node) {
        if (!node.process().alive()) {
            node.start();
        }
        SimNode primary = runningPrimary();
        if (primary == null) {
            later(sim.millisBetween(300, 1000), () -> addBack(node));
            return;
        }
        reconfigure(primary, node.id().value(), null, added -> {
            if (added != null && added.accepted()) {
                node.admitted();
                note(node.id() + " added back");
                if (moving == node) {
                    moving = null;
                }
            } else {
                later(sim.millisBetween(300, 1000), () -> addBack(node));
            }
        });
    }

    /**
     * An operator's {@code reconfigure} to {@code primary} adding {@code add} (a node name, or "") and
     * removing {@code remove} (or null); {@code answered} gets the reply, or null if none came in time.
     */
    private void reconfigure(SimNode primary, String add, @Nullable SimNode remove,
            java.util.function.Consumer<PeerMessages.@Nullable ReconfigureReply> answered) {
        boolean[] done = new boolean[1];
        java.util.function.Consumer<PeerMessages.@Nullable ReconfigureReply> once = reply -> {
            if (!done[0]) {
                done[0] = true;
                answered.accept(reply);
            }
        };
        PeerMessages.Reconfigure request = new PeerMessages.Reconfigure(SimNode.SERVICE, 0, add,
                remove == null ? "" : remove.id().value(), 30_000);
        primary.process().schedule(sim.millisBetween(0.05, 1.5), "reconfigure", () -> primary.replica().onPeerMessage(
                "reconfigure", request, reply -> later(sim.millisBetween(0.05, 1.5),
                        () -> once.accept((PeerMessages.ReconfigureReply) reply))));
        later(RECONFIGURE_PATIENCE_NANOS, () -> once.accept(null));
    }

    /**
     * An operator's promote of a running replica (majority mode: it stands for election at once, and
     * still needs a majority's votes); {@link SimOperator} checks the answer.
     */
    private long promote() {
        List<SimNode> up = cluster.nodes().stream().filter(n -> n.process().running()).toList();
        if (up.isEmpty()) {
            note("no replica running to promote");
            return 0;
        }
        SimNode node = up.get(sim.random().nextInt(up.size()));
        note("promote of " + node.id());
        operator.promote(node, reply -> note("promote of " + node.id() + " answered: " + outcome(reply)));
        return 0;
    }

    /**
     * An operator's move-primary to a secondary: it takes the role over by a handover, pinned (no
     * handover by priority takes it away while it leads); {@link SimOperator} checks the answer.
     */
    private long movePrimary() {
        SimNode primary = runningPrimary();
        List<SimNode> secondaries = cluster.nodes().stream().filter(n -> n != primary && n.process().running()
                && n.replica().state().role() == ReplicaRole.SECONDARY).toList();
        if (primary == null || secondaries.isEmpty()) {
            note("no primary, or no secondary, to move the primary role to");
            return 0;
        }
        SimNode to = secondaries.get(sim.random().nextInt(secondaries.size()));
        note("move-primary from " + primary.id() + " to " + to.id());
        operator.takeOver(to, true, reply -> note("move-primary to " + to.id() + " answered: " + outcome(reply)));
        return 0;
    }

    private static String outcome(PeerMessages.PromoteReply reply) {
        return reply.accepted() ? "primary at epoch " + reply.epoch() : "refused: " + reply.reason();
    }

    /** Kills every replica and brings them back ({@link SimCatastrophe}). */
    private long catastrophe() {
        catastrophe.begin();
        return 0;
    }

    private @Nullable SimNode runningPrimary() {
        for (SimNode n : cluster.nodes()) {
            if (n.process().running() && n.replica().state().role() == ReplicaRole.PRIMARY) {
                return n;
            }
        }
        return null;
    }

    private long slowDisk(SimNode node) {
        long spell = sim.millisBetween(1000, 5000);
        note("slow disk at " + node.id() + " for " + spell / 1_000_000 + " ms");
        node.slowDisk(spell);
        return spell;
    }

    /** Cuts off a minority that includes {@code node}. */
    private long cutOff(SimNode node) {
        List<Integer> cut = new ArrayList<>(List.of(node.index()));
        int minority = (cluster.nodes().size() - 1) / 2;
        while (cut.size() < minority && sim.chance(0.5)) {
            int other = sim.random().nextInt(cluster.nodes().size());
            if (!cut.contains(other)) {
                cut.add(other);
            }
        }
        long split = sim.millisBetween(1000, 10000);
        note("cut off " + cut + " for " + split / 1_000_000 + " ms");
        cluster.network().partition(cut);
        later(split, () -> {
            if (!stopped) {
                cluster.network().heal();
            }
        });
        return split;
    }

    private long lossy() {
        double drop = 0.05 + sim.random().nextDouble() * 0.25;
        long spell = sim.millisBetween(1000, 5000);
        note(String.format("lossy links (drop %.2f) for %d ms", drop, spell / 1_000_000));
        cluster.network().lossy(drop, 0.05, 0.05);
        later(spell, () -> {
            if (!stopped) {
                cluster.network().lossy(0, 0, 0);
            }
        });
        return spell;
    }

    private void note(String fault) {
        done.add(String.format("%.0f ms: %s", sim.elapsedMillis(), fault));
    }

    private void later(long delayNanos, Runnable action) {
        sim.schedule(delayNanos, -1, "nemesis", action);
    }
}
