package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.server.ClusterAdmin.RebalanceAction;
import io.neptune.server.ClusterAdmin.RebalancePlan;
import io.neptune.server.ClusterAdmin.RebalanceStep;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * Plans a rebalance of one service ({@code docs/protocols/placement.md}, "Rebalance"): from where its
 * replicas and primaries are, the ordered placement changes that spread them evenly over the nodes
 * that may take them. A pure function of its input: the same layout always gives the same plan.
 *
 * <p>The rules:
 * <ul>
 *   <li>every partition keeps its replica count (its replication degree as it is now, counting the
 *       replicas the caller lists on nodes that are gone: a majority-mode partition's voters whose
 *       nodes left the yellow page) and never has two replicas on one node;
 *   <li>a replica moves by {@code add-replica} on the new node first and {@code remove-replica} on the
 *       old one after, so a partition never drops below its degree; a primary replica hands its role
 *       to another replica of the partition between the two, so no election is needed;
 *   <li>the steps of a partition follow one another (the plan runs one step at a time);
 *   <li>replicas first: a replica on a node that may not take any (draining, or not running the
 *       service) moves off it; then, while the most loaded node holds at least 2 replicas more than
 *       the least loaded one, one replica moves from the first to the second (a secondary rather than
 *       a primary, the lowest partition first). Each move lowers the spread, and none moves a replica
 *       off a node that is not above the others, so the count is the fewest that balances;
 *   <li>then primaries: while some partition's primary sits on a node with at least 2 primaries more
 *       than another node hosting a replica of it, the role moves there (largest gap first). The sum of
 *       squared counts falls with every move, so this ends; it reaches "within 1" unless the placement
 *       forbids it (then the plan says so);
 *   <li>a fail-stop service gets no replica moves (its placement changes only through the node
 *       configs), only primary moves, and the plan says so.
 * </ul>
 *
 * <p>Thread-safety: stateless, thread-safe.
 */
final class Rebalancer {
    /** How a service replicates, as far as moving its replicas goes. */
    enum Mode {
        /** Majority mode: replicas and primaries move. */
        MAJORITY,
        /** Fail-stop mode: only primaries move. */
        FAIL_STOP
    }

    /**
     * One replica of a partition.
     *
     * @param node the hosting node
     * @param primary whether it holds the primary role
     */
    record Replica(String node, boolean primary) {
        Replica {
            requireNonNull(node, "node");
        }
    }

    /**
     * Where a service's replicas are now.
     *
     * @param service the service
     * @param mode its replication mode
     * @param partitions per partition id, its replicas
     * @param nodes the live nodes that run the service and may take replicas and primaries (not draining)
     */
    record Layout(String service, Mode mode, SortedMap<Integer, List<Replica>> partitions, SortedSet<String> nodes) {
        Layout {
            requireNonNull(service, "service");
            requireNonNull(mode, "mode");
            partitions = new TreeMap<>(partitions);
            partitions.replaceAll((p, replicas) -> List.copyOf(replicas));
            nodes = new TreeSet<>(nodes);
        }
    }

    private Rebalancer() {}

    /**
     * The replicas of {@code service#partition} that count in a majority-mode plan: those the yellow page
     * lists ({@code listed}) that are among the primary's {@code voters}, and the voters it does not list
     * (their nodes are gone: the plan replaces them). A listed replica that is no voter (a learner left by an
     * add-replica that did not finish, or a replica just removed that the yellow page still shows) does not
     * count, and gets a note: counted, it made the plan see a partition as full that has a voter too few,
     * move a learner (adding a fourth voter) or hand it the primary role, which it refuses.
     */
    static List<Replica> voting(String service, int partition, List<Replica> listed, List<String> voters,
            List<String> notes) {
        List<Replica> counted = new ArrayList<>();
        for (Replica replica : listed) {
            if (replica.primary() || voters.contains(replica.node())) {
                counted.add(replica);
            } else {
                notes.add(service + "#" + partition + ": " + replica.node() + " hosts a replica that is no voter (an"
                        + " add-replica that did not finish, or a removal the yellow page still shows); the plan does"
                        + " not count it: run add-replica on it again to finish it, or remove-replica to drop it");
            }
        }
        for (String voter : voters) {
            if (counted.stream().noneMatch(r -> r.node().equals(voter))) {
                counted.add(new Replica(voter, false));
            }
        }
        return counted;
    }

    /** The plan for {@code layout}. */
    static RebalancePlan plan(Layout layout) {
        return new Planning(layout).run();
    }

    /** The mutable state of one planning run. */
    private static final class Planning {
        private final Layout layout;
        /** Per partition, node → primary?, in node order. */
        private final TreeMap<Integer, TreeMap<String, Boolean>> placement = new TreeMap<>();
        private final List<RebalanceStep> steps = new ArrayList<>();
        private final List<String> notes = new ArrayList<>();

        Planning(Layout layout) {
            this.layout = layout;
            layout.partitions().forEach((p, replicas) -> {
                TreeMap<String, Boolean> nodes = new TreeMap<>();
                for (Replica r : replicas) {
                    if (nodes.put(r.node(), r.primary()) != null) {
                        throw new IllegalArgumentException(layout.service() + "#" + p + ": node " + r.node()
                                + " listed twice");
                    }
                }
                placement.put(p, nodes);
            });
        }

        RebalancePlan run() {
            if (layout.nodes().isEmpty()) {
                notes.add(layout.service() + ": no live node may take replicas; nothing to do");
                return new RebalancePlan(steps, notes);
            }
            if (layout.mode() == Mode.MAJORITY) {
                evacuate();
                balanceReplicas();
            } else {
                notes.add(layout.service() + " is fail-stop: its replicas stay where the node configs put them (only"
                        + " majority-mode partitions can add or remove replicas); only its primaries are balanced");
            }
            balancePrimaries();
            return new RebalancePlan(steps, notes);
        }

        /** Moves every replica off the nodes that may not take any. */
        private void evacuate() {
            for (Map.Entry<Integer, TreeMap<String, Boolean>> e : placement.entrySet()) {
                for (String from : new ArrayList<>(e.getValue().keySet())) {
                    if (layout.nodes().contains(from)) {
                        continue;
                    }
                    String to = leastLoaded(e.getKey());
                    if (to == null) {
                        notes.add(layout.service() + "#" + e.getKey() + ": its replica on " + from + " cannot move:"
                                + " every live node hosts the partition already");
                    } else {
                        move(e.getKey(), from, to);
                    }
                }
            }
        }

        /** The live node with the fewest replicas that does not host {@code partition}, or null. */
        private @Nullable String leastLoaded(int partition) {
            Map<String, Integer> loads = replicaLoads();
            return layout.nodes().stream().filter(n -> !nodesOf(partition).containsKey(n))
                    .min(Comparator.comparingInt((String n) -> loads.getOrDefault(n, 0)).thenComparing(n -> n)).orElse(null);
        }

        private void balanceReplicas() {
            while (true) {
                Map<String, Integer> loads = replicaLoads();
                Comparator<String> byLoad = Comparator.comparingInt((String n) -> loads.getOrDefault(n, 0)).thenComparing(n -> n);
                String most = layout.nodes().stream().max(Comparator.comparingInt((String n) -> loads.getOrDefault(n, 0))
                        .thenComparing(Comparator.<String>reverseOrder())).orElseThrow();
                String least = layout.nodes().stream().min(byLoad).orElseThrow();
                if (loads.getOrDefault(most, 0) - loads.getOrDefault(least, 0) <= 1) {
                    return;
                }
                // `most` holds more replicas than `least`, so at least one partition it hosts is not on `least`
                int partition = placement.entrySet().stream()
                        .filter(e -> e.getValue().containsKey(most) && !e.getValue().containsKey(least))
                        .min(Comparator.comparing((Map.Entry<Integer, TreeMap<String, Boolean>> e) ->
                                e.getValue().get(most)).thenComparing(Map.Entry::getKey))
                        .orElseThrow().getKey();
                move(partition, most, least);
            }
        }

        /** Replicas per live node (0 for one that hosts none). */
        private Map<String, Integer> replicaLoads() {
            Map<String, Integer> loads = new TreeMap<>();
            layout.nodes().forEach(n -> loads.put(n, 0));
            placement.values().forEach(nodes -> nodes.keySet().forEach(n -> loads.computeIfPresent(n, (k, c) -> c + 1)));
            return loads;
        }

        /** Adds {@code partition} on {@code to}, hands it the primary role if {@code from} has it, removes it from {@code from}. */
        private void move(int partition, String from, String to) {
            TreeMap<String, Boolean> nodes = nodesOf(partition);
            steps.add(new RebalanceStep(RebalanceAction.ADD_REPLICA, layout.service(), partition, to));
            nodes.put(to, false);
            if (Boolean.TRUE.equals(nodes.get(from))) {
                // to the replica with the fewest primaries; `to` is one of them and a voter by now
                Map<String, Integer> primaries = primaryLoads();
                String heir = nodes.keySet().stream().filter(n -> !n.equals(from) && layout.nodes().contains(n))
                        .min(Comparator.comparingInt((String n) -> primaries.getOrDefault(n, 0)).thenComparing(n -> n))
                        .orElse(to);
                steps.add(new RebalanceStep(RebalanceAction.MOVE_PRIMARY, layout.service(), partition, heir));
                nodes.put(heir, true);
            }
            nodes.remove(from);
            steps.add(new RebalanceStep(RebalanceAction.REMOVE_REPLICA, layout.service(), partition, from));
        }

        /** Primaries per live node. */
        private Map<String, Integer> primaryLoads() {
            Map<String, Integer> loads = new TreeMap<>();
            layout.nodes().forEach(n -> loads.put(n, 0));
            placement.values().forEach(nodes -> nodes.forEach((n, primary) -> {
                if (primary) {
                    loads.merge(n, 1, Integer::sum);
                }
            }));
            return loads;
        }

        private void balancePrimaries() {
            for (Map.Entry<Integer, TreeMap<String, Boolean>> e : placement.entrySet()) {
                if (!e.getValue().containsValue(true)) {
                    notes.add(layout.service() + "#" + e.getKey() + " has no primary announced: its role is not moved");
                }
            }
            while (true) {
                Map<String, Integer> loads = primaryLoads();
                int bestGap = 1;
                int bestPartition = -1;
                String bestNode = "";
                for (Map.Entry<Integer, TreeMap<String, Boolean>> e : placement.entrySet()) {
                    String primary = primaryOf(e.getValue());
                    if (primary == null) {
                        continue;
                    }
                    // a primary on a node that may take none counts as above every live node
                    int from = layout.nodes().contains(primary) ? loads.getOrDefault(primary, 0) : Integer.MAX_VALUE / 2;
                    for (String candidate : e.getValue().keySet()) {
                        if (!layout.nodes().contains(candidate)) {
                            continue;
                        }
                        int gap = from - loads.getOrDefault(candidate, 0);
                        if (gap > bestGap) {
                            bestGap = gap;
                            bestPartition = e.getKey();
                            bestNode = candidate;
                        }
                    }
                }
                if (bestPartition < 0) {
                    break;
                }
                TreeMap<String, Boolean> nodes = nodesOf(bestPartition);
                nodes.replaceAll((n, primary) -> false);
                nodes.put(bestNode, true);
                steps.add(new RebalanceStep(RebalanceAction.MOVE_PRIMARY, layout.service(), bestPartition, bestNode));
            }
            Map<String, Integer> loads = primaryLoads();
            int max = loads.values().stream().mapToInt(Integer::intValue).max().orElse(0);
            int min = loads.values().stream().mapToInt(Integer::intValue).min().orElse(0);
            if (max - min > 1) {
                notes.add(layout.service() + ": primaries per node stay " + min + ".." + max + ": no node with fewer"
                        + " hosts a partition whose primary is on a node with more " + loads);
            }
        }

        private TreeMap<String, Boolean> nodesOf(int partition) {
            return requireNonNull(placement.get(partition), "partition");
        }

        private static @Nullable String primaryOf(TreeMap<String, Boolean> nodes) {
            return nodes.entrySet().stream().filter(Map.Entry::getValue).map(Map.Entry::getKey).findFirst().orElse(null);
        }
    }
}
