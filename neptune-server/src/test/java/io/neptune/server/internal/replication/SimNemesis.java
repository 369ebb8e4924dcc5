package io.neptune.server.internal.replication;

import io.neptune.core.ReplicaRole;
import java.util.ArrayList;
import io.neptune.core.internal.membership.Replica;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The faults of a simulation, one at a time with short gaps: machine crashes (unforced records lost,
 * sometimes a torn last record), kills (SIGKILL: what was written survives), pauses of 0.3 to 15 s
 * (SIGSTOP, of the primary half of the time), spells of a slow disk (forces of 50 to 500 ms), drains of
 * the primary (a hand-over, then a restart half of the time: a rolling restart), in majority mode moves
 * of a replica away and back (removed from the configuration, data deleted, added back as a learner), and, in modes that promise to survive them, a minority
 * cut off from the rest and spells of lossy links (drops, duplicates, reordering). Half of the faults
 * aim at the primary.
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class SimNemesis {
    private enum Fault { MACHINE_CRASH, KILL, PAUSE, SLOW_DISK, DRAIN, MOVE, CUT_OFF, LOSSY }

    /** How long an operator waits for a reconfiguration's answer before asking again. */
    private static final long RECONFIGURE_PATIENCE_NANOS = 35_000_000_000L;

    private final SimCluster cluster;
    private final Simulator sim;
    private final List<String> done = new ArrayList<>();
    private boolean stopped;
    /** A replica moved away and not yet added back: the next faults wait for it. */
    private @Nullable SimNode moving;
    private int faults;

    SimNemesis(SimCluster cluster) {
        this.cluster = cluster;
        this.sim = cluster.sim();
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
        if (moving != null) {
            later(sim.millisBetween(500, 1500), this::next); // one placement change at a time, as an operator makes
            return;
        }
        faults++;
        Fault[] kinds = switch (cluster.options().mode()) {
            case MAJORITY_LEVEL_2, MAJORITY_LEVEL_3 -> Fault.values();
            case FAIL_STOP_LEVEL_2, FAIL_STOP_LEVEL_3 ->
                    new Fault[] {Fault.MACHINE_CRASH, Fault.KILL, Fault.PAUSE, Fault.SLOW_DISK, Fault.DRAIN};
            // the only mode whose placement changes through configurations in the log
            // level 1 has no primary to hand over
            case WRITE_ANYWHERE_LEVEL_1 ->
                    new Fault[] {Fault.MACHINE_CRASH, Fault.KILL, Fault.PAUSE, Fault.SLOW_DISK, Fault.CUT_OFF, Fault.LOSSY};
        };
        Fault fault = kinds[sim.random().nextInt(kinds.length)];
        SimNode target = target();
        long duration = switch (fault) {
            case MACHINE_CRASH, KILL -> crash(target, fault == Fault.MACHINE_CRASH);
            case PAUSE -> pause(target);
            case SLOW_DISK -> slowDisk(target);
            case DRAIN -> drain();
            case MOVE -> move();
            case CUT_OFF -> cutOff(target);
            case LOSSY -> lossy();
        };
        later(duration + sim.millisBetween(100, 1000), this::next);
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
            if (!stopped && !node.process().alive()) {
                node.start();
            }
        });
        return down;
    }

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
            SimNode target = heir;
            target.process().schedule(sim.millisBetween(0.05, 1.5), "takeOver", () -> target.replica().onPeerMessage(
                    "takeOver", new PeerMessages.TakeOver(SimNode.SERVICE, 0, false), reply -> { }));
        }
        later(spell, () -> {
            if (stopped || !primary.process().alive()) {
                return;
            }
            if (restart) {
                primary.crash(false, false);
                later(sim.millisBetween(200, 1000), () -> {
                    if (!stopped && !primary.process().alive()) {
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
