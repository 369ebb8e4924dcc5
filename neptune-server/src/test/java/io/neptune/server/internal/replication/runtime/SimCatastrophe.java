package io.neptune.server.internal.replication.runtime;

import io.neptune.core.ReplicaRole;
import io.neptune.server.internal.replication.runtime.SimOptions.Mode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * A catastrophe of a simulation (CatastrophicIT's, on one thread): every replica is killed at once,
 * then they restart one by one in an order the PRNG picks, and half the time some stay away for a
 * while, as machines lost for good stay away:
 * <ul>
 *   <li>fail-stop: one replica whose log is no more complete than another's stays down; the others
 *       wait for it, so once they are all back an operator promotes the most complete of them
 *       ({@code admin promote}, what docs/OPERATIONS.md tells an operator to do), and the lost one
 *       comes back later and joins;
 *   <li>majority: a minority stays down for 3 to 10 s; the majority back elects by itself;
 *   <li>level 1: every replica comes back.
 * </ul>
 * Checked until every replica is back: while fewer than all configured replicas are back and no
 * operator promoted (fail-stop), or fewer than a majority (majority), no replica leads.
 *
 * <p>Thread-safety: none; confined to the simulation's thread.
 */
final class SimCatastrophe {
    /** How often the operator asks again when a promote was refused or not answered. */
    private static final int PROMOTE_ATTEMPTS = 10;

    private final SimCluster cluster;
    private final Simulator sim;
    private final SimOperator operator;
    private final Consumer<String> note;
    /** Replicas started since every replica was killed; null when no catastrophe is under way. */
    private @Nullable Set<Integer> back;
    private boolean promoted;

    SimCatastrophe(SimCluster cluster, SimOperator operator, Consumer<String> note) {
        this.cluster = cluster;
        this.sim = cluster.sim();
        this.operator = operator;
        this.note = note;
    }

    /** Whether a catastrophe is under way: not every replica is back yet. */
    boolean underWay() {
        return back != null;
    }

    /** The faults stopped: whatever is still down restarts now, and nothing more is checked. */
    void stop() {
        back = null;
    }

    /** Kills every replica and schedules their restarts. */
    void begin() {
        List<SimNode> nodes = cluster.nodes();
        nodes.stream().filter(n -> n.process().alive()).forEach(n -> n.crash(false, false));
        back = new HashSet<>();
        promoted = false;
        List<SimNode> order = new ArrayList<>(nodes);
        for (int i = order.size() - 1; i > 0; i--) {
            java.util.Collections.swap(order, i, sim.random().nextInt(i + 1));
        }
        List<SimNode> lost = lost(order);
        order.removeAll(lost);
        note.accept("catastrophe: kill of every replica; restarts in the order "
                + order.stream().map(SimNode::id).toList() + (lost.isEmpty() ? "" : ", " + lost.stream()
                .map(SimNode::id).toList() + " lost for a while"));
        restart(order, 0, () -> {
            if (lost.isEmpty()) {
                back = null;
            } else if (failStop()) {
                later(sim.millisBetween(1000, 3000), () -> promoteMostComplete(order, lost, 1));
            } else {
                later(sim.millisBetween(3000, 10000), () -> restart(lost, 0, () -> back = null));
            }
        });
    }

    /** Who stays away: in fail-stop one replica whose log another's covers, in majority a minority, else none. */
    private List<SimNode> lost(List<SimNode> order) {
        if (!cluster.options().mode().partitionLsns() || sim.chance(0.5)) {
            return List.of();
        }
        if (majority()) {
            int minority = 1 + sim.random().nextInt((order.size() - 1) / 2);
            return new ArrayList<>(order.subList(order.size() - minority, order.size()));
        }
        List<SimNode> covered = order.stream()
                .filter(n -> order.stream().anyMatch(o -> o != n && compare(o, n) >= 0)).toList();
        return covered.isEmpty() ? List.of() : List.of(covered.get(sim.random().nextInt(covered.size())));
    }

    private boolean majority() {
        Mode mode = cluster.options().mode();
        return mode == Mode.MAJORITY_LEVEL_2 || mode == Mode.MAJORITY_LEVEL_3;
    }

    private boolean failStop() {
        Mode mode = cluster.options().mode();
        return mode == Mode.FAIL_STOP_LEVEL_2 || mode == Mode.FAIL_STOP_LEVEL_3;
    }

    /** Orders logs by completeness: the epoch of their last record, then their last LSN. */
    private static int compare(SimNode a, SimNode b) {
        int c = Long.compare(a.log().lastEpoch(), b.log().lastEpoch());
        return c != 0 ? c : Long.compare(a.log().lastLsn(), b.log().lastLsn());
    }

    /** Starts {@code nodes} from the {@code i}th on, 0.2 to 2 s apart, then runs {@code then}. */
    private void restart(List<SimNode> nodes, int i, Runnable then) {
        if (back == null) {
            return; // the faults stopped
        }
        if (i == nodes.size()) {
            then.run();
            return;
        }
        later(sim.millisBetween(i == 0 ? 500 : 200, i == 0 ? 3000 : 2000), () -> {
            if (back == null) {
                return;
            }
            SimNode node = nodes.get(i);
            back.add(node.index());
            if (!node.process().alive()) {
                node.start();
            }
            restart(nodes, i + 1, then);
        });
    }

    /**
     * Fail-stop, a replica lost: the operator promotes the most complete replica of those back (again
     * if refused), then the lost one comes back.
     */
    private void promoteMostComplete(List<SimNode> survivors, List<SimNode> lost, int attempt) {
        if (back == null) {
            return;
        }
        SimNode best = survivors.get(0);
        for (SimNode n : survivors) {
            if (compare(n, best) > 0) {
                best = n;
            }
        }
        SimNode chosen = best;
        promoted = true;
        operator.promote(chosen, reply -> {
            if (back == null) {
                return;
            }
            if (reply.accepted() || attempt >= PROMOTE_ATTEMPTS) {
                note.accept("promote of " + chosen.id() + (reply.accepted() ? ": primary at epoch " + reply.epoch()
                        : ": refused " + attempt + " times, last: " + reply.reason()));
                later(sim.millisBetween(2000, 8000), () -> restart(lost, 0, () -> back = null));
            } else {
                later(sim.millisBetween(500, 1500), () -> promoteMostComplete(survivors, lost, attempt + 1));
            }
        });
    }

    /** {@code node} runs as primary: checks that enough replicas are back, or that an operator promoted. */
    void checkPrimary(SimNode node) {
        Set<Integer> started = back;
        if (started == null || node.replica().state().role() != ReplicaRole.PRIMARY) {
            return;
        }
        String tooSoon = tooSoon(majority(), cluster.nodes().size(), started.size(), promoted);
        if (tooSoon != null) {
            cluster.history().violation(node.id() + " leads epoch " + node.replica().state().epoch()
                    + " after every replica was killed, with " + tooSoon);
        }
    }

    /**
     * Why no replica may lead yet when {@code back} of {@code replicas} are back after every one was
     * killed, or null if one may: in majority mode once a majority is back, in fail-stop once all are
     * or an operator promoted one.
     */
    static @Nullable String tooSoon(boolean majority, int replicas, int back, boolean promoted) {
        if (majority ? back > replicas / 2 : promoted || back == replicas) {
            return null;
        }
        return "only " + back + " of " + replicas + " back" + (majority ? "" : " and no operator's promote");
    }

    private void later(long delayNanos, Runnable action) {
        sim.schedule(delayNanos, -1, "catastrophe", action);
    }
}
