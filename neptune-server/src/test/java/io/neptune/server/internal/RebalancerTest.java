package io.neptune.server.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.server.ClusterAdmin.RebalanceAction;
import io.neptune.server.ClusterAdmin.RebalancePlan;
import io.neptune.server.ClusterAdmin.RebalanceStep;
import io.neptune.server.internal.Rebalancer.Layout;
import io.neptune.server.internal.Rebalancer.Mode;
import io.neptune.server.internal.Rebalancer.Replica;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * {@link Rebalancer}: each plan is checked by carrying it out step by step on a model of the placement
 * (every step valid when it runs, no partition ever below its degree) and checking the end state.
 */
class RebalancerTest {
    @Test
    void aNewEmptyNodeGetsItsShareWithTheFewestMoves() {
        // 4 partitions x 3 replicas on node-0..2, primaries 0,1,2,0; node-3 joined empty: 12 / 4 = 3 each
        Layout layout = layout(Mode.MAJORITY, nodes(4), "0:n0*,n1,n2", "1:n0,n1*,n2", "2:n0,n1,n2*", "3:n0*,n1,n2");
        RebalancePlan plan = Rebalancer.plan(layout);

        Map<Integer, Map<String, Boolean>> end = run(layout, plan);
        assertThat(replicaCounts(end, layout)).containsEntry("n3", 3).allSatisfy((n, c) -> assertThat(c).isEqualTo(3));
        assertThat(plan.steps()).filteredOn(s -> s.action() == RebalanceAction.ADD_REPLICA).hasSize(3)
                .allSatisfy(s -> assertThat(s.node()).isEqualTo("n3"));
        assertThat(plan.steps()).filteredOn(s -> s.action() == RebalanceAction.REMOVE_REPLICA).hasSize(3);
        assertThat(primaryCounts(end, layout)).containsEntry("n3", 1).containsEntry("n0", 1);
        assertThat(plan.notes()).isEmpty();
        assertThat(Rebalancer.plan(layoutOf(layout, end)).steps()).as("a second rebalance").isEmpty();
    }

    /**
     * The primary's voters decide what counts: a learner left by an add-replica that stopped with NEP-PLACE-004
     * was counted as a replica, so the plan saw the partition as full, could move it (a fourth voter) or hand it
     * the primary role, which it refuses; a gone voter is a replica the plan must replace.
     */
    @Test
    void onlyVotersCountAndAGoneVoterIsReplaced() {
        List<String> notes = new ArrayList<>();
        List<Replica> listed = List.of(new Replica("n0", true), new Replica("n1", false), new Replica("n3", false));
        assertThat(Rebalancer.voting("s", 2, listed, List.of("n0", "n1", "n2"), notes))
                .containsExactly(new Replica("n0", true), new Replica("n1", false), new Replica("n2", false));
        assertThat(notes).singleElement().asString().startsWith("s#2: n3 hosts a replica that is no voter");

        // 4 partitions on n0..n2 and a learner of partition 0 on n3: n3 gets its share, with partition 0's add
        // on n3 (which finishes the add that stopped) counted as the add it is
        notes.clear();
        SortedMap<Integer, List<Replica>> partitions = new TreeMap<>();
        for (int p = 0; p < 4; p++) {
            List<Replica> replicas = new ArrayList<>(List.of(new Replica("n0", p == 0), new Replica("n1", p == 1),
                    new Replica("n2", p >= 2)));
            if (p == 0) {
                replicas.add(new Replica("n3", false));
            }
            partitions.put(p, Rebalancer.voting("s", p, replicas, List.of("n0", "n1", "n2"), notes));
        }
        Layout layout = new Layout("s", Mode.MAJORITY, partitions, new TreeSet<>(nodes(4)));
        RebalancePlan plan = Rebalancer.plan(layout);
        Map<Integer, Map<String, Boolean>> end = run(layout, plan);
        assertThat(replicaCounts(end, layout)).allSatisfy((n, c) -> assertThat(c).isEqualTo(3));
        assertThat(end.values()).allSatisfy(replicas -> assertThat(replicas).hasSize(3));
    }

    @Test
    void movesSecondariesRatherThanPrimariesAndKeepsTheRoleWithoutAnElection() {
        Layout layout = layout(Mode.MAJORITY, nodes(4), "0:n0*,n1,n2", "1:n0,n1*,n2", "2:n0,n1,n2*", "3:n0*,n1,n2");
        List<RebalanceStep> steps = Rebalancer.plan(layout).steps();
        // n0 (the first of the most loaded) gives up partition 1, where it is a secondary, not 0 or 3
        assertThat(steps.get(0)).hasToString("add-replica s 1 n3");
        assertThat(steps.get(1)).hasToString("remove-replica s 1 n0");
    }

    @Test
    void aPrimaryReplicaThatMustMoveHandsItsRoleOverBetweenAddAndRemove() {
        // n0 hosts only primaries; n2 empty: one of n0's must move. The role goes to the replica with the
        // fewest primaries (n1 and the new n2 have none: n1 by name, and it is caught up for longer)
        Layout layout = layout(Mode.MAJORITY, nodes(3), "0:n0*,n1", "1:n0*,n1");
        List<RebalanceStep> steps = Rebalancer.plan(layout).steps();
        assertThat(steps).extracting(RebalanceStep::toString).startsWith("add-replica s 0 n2", "move-primary s 0 n1",
                "remove-replica s 0 n0");
        Map<Integer, Map<String, Boolean>> end = run(layout, Rebalancer.plan(layout));
        assertThat(primaryCounts(end, layout).values()).allSatisfy(c -> assertThat(c).isLessThanOrEqualTo(1));
    }

    @Test
    void anAlreadyBalancedClusterGetsNoSteps() {
        Layout layout = layout(Mode.MAJORITY, nodes(3), "0:n0*,n1,n2", "1:n0,n1*,n2", "2:n0,n1,n2*", "3:n0*,n1,n2");
        assertThat(Rebalancer.plan(layout).steps()).isEmpty();
        Layout uneven = layout(Mode.MAJORITY, nodes(4), "0:n0*,n1,n2", "1:n1*,n2,n3", "2:n2*,n3,n0");
        assertThat(Rebalancer.plan(uneven).steps()).as("replicas 3,2,3,2 and primaries 1,1,1,0: within 1").isEmpty();
    }

    @Test
    void aNodeWithEverythingSharesItOut() {
        // 6 partitions x 2 replicas, all on n0 and n1, every primary on n0; n2 and n3 empty: 12 / 4 = 3 each
        String[] partitions = new String[6];
        for (int p = 0; p < 6; p++) {
            partitions[p] = p + ":n0*,n1";
        }
        Layout layout = layout(Mode.MAJORITY, nodes(4), partitions);
        RebalancePlan plan = Rebalancer.plan(layout);
        Map<Integer, Map<String, Boolean>> end = run(layout, plan);
        assertThat(replicaCounts(end, layout).values()).allSatisfy(c -> assertThat(c).isEqualTo(3));
        assertThat(primaryCounts(end, layout).values()).allSatisfy(c -> assertThat(c).isBetween(1, 2));
        assertThat(plan.steps()).filteredOn(s -> s.action() == RebalanceAction.ADD_REPLICA).hasSize(6);
        assertThat(Rebalancer.plan(layoutOf(layout, end)).steps()).isEmpty();
    }

    @Test
    void primariesPiledOnOneNodeMoveWithoutMovingReplicas() {
        Layout layout = layout(Mode.MAJORITY, nodes(3), "0:n0*,n1,n2", "1:n0*,n1,n2", "2:n0*,n1,n2", "3:n0*,n1,n2");
        RebalancePlan plan = Rebalancer.plan(layout);
        assertThat(plan.steps()).extracting(RebalanceStep::toString)
                .containsExactly("move-primary s 0 n1", "move-primary s 1 n2");
        assertThat(primaryCounts(run(layout, plan), layout)).containsEntry("n0", 2).containsEntry("n1", 1)
                .containsEntry("n2", 1);
    }

    @Test
    void aFailStopServiceOnlyGetsItsPrimariesMovedAndThePlanSaysSo() {
        Layout layout = layout(Mode.FAIL_STOP, nodes(4), "0:n0*,n1,n2", "1:n0*,n1,n2", "2:n0*,n1,n2");
        RebalancePlan plan = Rebalancer.plan(layout);
        assertThat(plan.steps()).extracting(RebalanceStep::action).containsOnly(RebalanceAction.MOVE_PRIMARY);
        assertThat(plan.steps()).hasSize(2);
        assertThat(plan.notes()).singleElement().asString().contains("fail-stop").contains("only its primaries");
    }

    @Test
    void replicasOnANodeThatMayTakeNoneMoveOffIt() {
        // n3 is draining (not among the live nodes that may take replicas) and hosts a primary
        Layout layout = layout(Mode.MAJORITY, nodes(3), "0:n0*,n1,n2", "1:n3*,n1,n2", "2:n0,n1,n2*");
        RebalancePlan plan = Rebalancer.plan(layout);
        Map<Integer, Map<String, Boolean>> end = run(layout, plan);
        assertThat(end.get(1)).doesNotContainKey("n3").containsKey("n0").hasSize(3);
        assertThat(plan.steps()).extracting(RebalanceStep::toString).startsWith("add-replica s 1 n0",
                "move-primary s 1 n1", "remove-replica s 1 n3");
    }

    @Test
    void aReplicaWithNowhereToGoStaysAndThePlanSaysSo() {
        Layout layout = layout(Mode.MAJORITY, nodes(2), "0:n0*,n1,n2");
        RebalancePlan plan = Rebalancer.plan(layout);
        assertThat(plan.steps()).isEmpty();
        assertThat(plan.notes()).singleElement().asString().contains("s#0").contains("cannot move");
    }

    @Test
    void thePlanDependsOnTheLayoutOnlyNotOnTheOrderItWasListedIn() {
        Layout layout = layout(Mode.MAJORITY, nodes(5), "0:n0*,n1,n2", "1:n0,n1*,n2", "2:n0,n1,n2*", "3:n0*,n1,n2",
                "4:n1*,n2,n0", "5:n0,n2*,n1");
        Layout shuffled = shuffled(layout, new Random(7));
        assertThat(Rebalancer.plan(shuffled)).isEqualTo(Rebalancer.plan(layout));
        assertThat(Rebalancer.plan(layout)).isEqualTo(Rebalancer.plan(layout));
    }

    /** Random layouts: every plan runs step by step validly, balances, and a second plan is empty. */
    @Test
    void randomLayoutsEndBalancedAndASecondPlanIsEmpty() {
        Random random = new Random(42);
        for (int round = 0; round < 500; round++) {
            int nodeCount = 2 + random.nextInt(6);
            int degree = 1 + random.nextInt(Math.min(nodeCount, 3));
            int partitionCount = 1 + random.nextInt(16);
            List<String> all = new ArrayList<>(nodes(nodeCount + 1)); // one more node that may take nothing
            SortedMap<Integer, List<Replica>> partitions = new TreeMap<>();
            for (int p = 0; p < partitionCount; p++) {
                Collections.shuffle(all, random);
                List<Replica> replicas = new ArrayList<>();
                for (int i = 0; i < degree; i++) {
                    replicas.add(new Replica(all.get(i), i == 0 && random.nextInt(10) > 0));
                }
                partitions.put(p, replicas);
            }
            TreeSet<String> live = new TreeSet<>(nodes(nodeCount));
            Layout layout = new Layout("s", Mode.MAJORITY, partitions, live);
            RebalancePlan plan = Rebalancer.plan(layout);
            Map<Integer, Map<String, Boolean>> end = run(layout, plan);
            String context = "round " + round + ": " + layout + " -> " + plan;
            Map<String, Integer> replicas = replicaCounts(end, layout);
            assertThat(spread(replicas)).as(context).isLessThanOrEqualTo(1);
            assertThat(end.values()).as(context).allSatisfy(nodes -> assertThat(live).containsAll(nodes.keySet()));
            if (plan.notes().isEmpty()) {
                assertThat(spread(primaryCounts(end, layout))).as(context).isLessThanOrEqualTo(1);
            }
            assertThat(Rebalancer.plan(layoutOf(layout, end)).steps()).as(context).isEmpty();
            assertThat(Rebalancer.plan(shuffled(layout, random))).as(context).isEqualTo(plan);
        }
    }

    // --- a model that carries out a plan and checks each step as it runs

    private static Map<Integer, Map<String, Boolean>> run(Layout layout, RebalancePlan plan) {
        Map<Integer, Map<String, Boolean>> state = new TreeMap<>();
        Map<Integer, Integer> degree = new HashMap<>();
        layout.partitions().forEach((p, replicas) -> {
            Map<String, Boolean> nodes = new TreeMap<>();
            replicas.forEach(r -> nodes.put(r.node(), r.primary()));
            state.put(p, nodes);
            degree.put(p, replicas.size());
        });
        for (RebalanceStep step : plan.steps()) {
            assertThat(step.service()).isEqualTo(layout.service());
            Map<String, Boolean> nodes = state.get(step.partition());
            switch (step.action()) {
                case ADD_REPLICA -> {
                    assertThat(nodes).as("%s: the node hosts it already", step).doesNotContainKey(step.node());
                    assertThat(layout.nodes()).as("%s: not a live node", step).contains(step.node());
                    assertThat(layout.mode()).isEqualTo(Mode.MAJORITY);
                    nodes.put(step.node(), false);
                }
                case REMOVE_REPLICA -> {
                    assertThat(nodes).as("%s", step).containsKey(step.node());
                    assertThat(nodes.size() - 1).as("%s: below the degree", step)
                            .isGreaterThanOrEqualTo(degree.get(step.partition()));
                    assertThat(nodes.get(step.node())).as("%s: removes the primary", step).isFalse();
                    nodes.remove(step.node());
                }
                case MOVE_PRIMARY -> {
                    assertThat(nodes).as("%s: not a replica", step).containsKey(step.node());
                    assertThat(nodes.get(step.node())).as("%s: already primary", step).isFalse();
                    nodes.replaceAll((n, primary) -> false);
                    nodes.put(step.node(), true);
                }
                default -> throw new AssertionError(step);
            }
        }
        state.forEach((p, nodes) -> assertThat(nodes).as("partition %s keeps its degree", p).hasSize(degree.get(p)));
        return state;
    }

    private static Map<String, Integer> replicaCounts(Map<Integer, Map<String, Boolean>> state, Layout layout) {
        Map<String, Integer> counts = new TreeMap<>();
        layout.nodes().forEach(n -> counts.put(n, 0));
        state.values().forEach(nodes -> nodes.keySet().forEach(n -> counts.merge(n, 1, Integer::sum)));
        return counts;
    }

    private static Map<String, Integer> primaryCounts(Map<Integer, Map<String, Boolean>> state, Layout layout) {
        Map<String, Integer> counts = new TreeMap<>();
        layout.nodes().forEach(n -> counts.put(n, 0));
        state.values().forEach(nodes -> nodes.forEach((n, primary) -> counts.merge(n, primary ? 1 : 0, Integer::sum)));
        return counts;
    }

    private static int spread(Map<String, Integer> counts) {
        return Collections.max(counts.values()) - Collections.min(counts.values());
    }

    private static Layout layoutOf(Layout before, Map<Integer, Map<String, Boolean>> state) {
        SortedMap<Integer, List<Replica>> partitions = new TreeMap<>();
        state.forEach((p, nodes) -> partitions.put(p, nodes.entrySet().stream()
                .map(e -> new Replica(e.getKey(), e.getValue())).toList()));
        return new Layout(before.service(), before.mode(), partitions, before.nodes());
    }

    private static Layout shuffled(Layout layout, Random random) {
        SortedMap<Integer, List<Replica>> partitions = new TreeMap<>();
        layout.partitions().forEach((p, replicas) -> {
            List<Replica> copy = new ArrayList<>(replicas);
            Collections.shuffle(copy, random);
            partitions.put(p, copy);
        });
        return new Layout(layout.service(), layout.mode(), partitions, layout.nodes());
    }

    private static List<String> nodes(int count) {
        List<String> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            nodes.add("n" + i);
        }
        return nodes;
    }

    /** A layout of service {@code s} from lines such as {@code "0:n0*,n1,n2"} ({@code *} marks the primary). */
    private static Layout layout(Mode mode, List<String> live, String... partitions) {
        SortedMap<Integer, List<Replica>> map = new TreeMap<>();
        for (String line : partitions) {
            String[] parts = line.split(":");
            List<Replica> replicas = new ArrayList<>();
            for (String node : parts[1].split(",")) {
                replicas.add(new Replica(node.replace("*", ""), node.endsWith("*")));
            }
            map.put(Integer.parseInt(parts[0]), replicas);
        }
        return new Layout("s", mode, map, new TreeSet<>(live));
    }
}
