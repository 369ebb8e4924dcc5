package io.neptune.benchmarks.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.nemesis.FaultSchedule.Kind;
import io.neptune.benchmarks.nemesis.Nemesis.Applied;
import io.neptune.benchmarks.nemesis.Nemesis.PlacementCall;
import io.neptune.benchmarks.nemesis.Nemesis.PlacementPlan;
import io.neptune.benchmarks.nemesis.Nemesis.PlacementTally;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Which admin calls a placement change makes, from the replicas the yellow page shows, and how they are counted. */
class NemesisPlacementTest {
    private static final List<String> FIVE = List.of("node-1", "node-2", "node-3", "node-4", "node-5");
    private static final Map<String, String> ON_123 = Map.of("node-1", "SECONDARY", "node-2", "PRIMARY", "node-3",
            "SECONDARY");

    @Test
    void aMoveAddsOnANodeWithoutTheReplicaAndRemovesASecondaryInEitherOrder() {
        boolean addFirst = false;
        boolean removeFirst = false;
        for (long seed = 0; seed < 50; seed++) {
            PlacementPlan plan = Nemesis.plan(Kind.MOVE_REPLICA, 4, ON_123, ON_123.keySet(), FIVE, 3, new Random(seed));
            assertThat(plan.calls()).as(plan.why()).hasSize(2);
            PlacementCall add = plan.calls().stream().filter(c -> c.command().equals(PlacementCall.ADD)).findFirst()
                    .orElseThrow();
            PlacementCall remove = plan.calls().stream().filter(c -> c.command().equals(PlacementCall.REMOVE))
                    .findFirst().orElseThrow();
            assertThat(add.node()).isIn("node-4", "node-5");
            assertThat(remove.node()).as("never the primary").isIn("node-1", "node-3");
            assertThat(plan.calls()).allMatch(c -> c.partition() == 4);
            addFirst |= plan.calls().get(0) == add;
            removeFirst |= plan.calls().get(0) == remove;
        }
        assertThat(addFirst).isTrue();
        assertThat(removeFirst).isTrue();
    }

    @Test
    void aCountOffTheDegreeIsMovedBackTowardsIt() {
        Map<String, String> two = Map.of("node-1", "PRIMARY", "node-2", "SECONDARY");
        PlacementPlan below = Nemesis.plan(Kind.MOVE_REPLICA, 0, two, two.keySet(), FIVE, 3, new Random(1));
        assertThat(below.calls()).singleElement().matches(c -> c.command().equals(PlacementCall.ADD)
                && !c.node().equals("node-1") && !c.node().equals("node-2"));
        Map<String, String> four = Map.of("node-1", "PRIMARY", "node-2", "SECONDARY", "node-3", "SECONDARY",
                "node-4", "SECONDARY");
        PlacementPlan above = Nemesis.plan(Kind.MOVE_REPLICA, 0, four, four.keySet(), FIVE, 3, new Random(1));
        assertThat(above.calls()).singleElement().matches(c -> c.command().equals(PlacementCall.REMOVE)
                && !c.node().equals("node-1"));
    }

    @Test
    void aHostTheYellowPageDoesNotShowIsNeitherAddedAgainNorCountedMissing() {
        // node-3 is paused: gone from the yellow page, still hosting partition 4 by its placement file
        Map<String, String> seen = Map.of("node-1", "SECONDARY", "node-2", "PRIMARY");
        for (long seed = 0; seed < 20; seed++) {
            PlacementPlan plan = Nemesis.plan(Kind.MOVE_REPLICA, 4, seen, List.of("node-1", "node-2", "node-3"), FIVE,
                    3, new Random(seed));
            assertThat(plan.calls()).as(plan.why()).hasSize(2)
                    .noneMatch(c -> c.command().equals(PlacementCall.ADD) && c.node().equals("node-3"))
                    .anyMatch(c -> c.command().equals(PlacementCall.REMOVE) && c.node().equals("node-1"));
            assertThat(plan.why()).contains("hosted on [node-1, node-2, node-3]");
        }
    }

    @Test
    void nothingIsCalledWithoutOnePrimaryOrWithoutANodeToMoveTo() {
        assertThat(Nemesis.plan(Kind.MOVE_REPLICA, 2, ON_123, ON_123.keySet(), FIVE.subList(0, 3), 3,
                new Random(1)).calls())
                .as("3 nodes, 3 replicas: every node hosts it").isEmpty();
        Map<String, String> split = Map.of("node-1", "PRIMARY", "node-2", "PRIMARY", "node-3", "SECONDARY");
        PlacementPlan twoPrimaries = Nemesis.plan(Kind.MOVE_PRIMARY, 2, split, split.keySet(), FIVE, 3, new Random(1));
        assertThat(twoPrimaries.calls()).isEmpty();
        assertThat(twoPrimaries.why()).startsWith("skipped").contains("not one primary");
        assertThat(Nemesis.plan(Kind.MOVE_REPLICA, 2, Map.of(), List.of(), FIVE, 3, new Random(1)).calls()).isEmpty();
    }

    @Test
    void aPrimaryMovesToAnotherReplica() {
        for (long seed = 0; seed < 20; seed++) {
            PlacementPlan plan = Nemesis.plan(Kind.MOVE_PRIMARY, 6, ON_123, ON_123.keySet(), FIVE, 3, new Random(seed));
            assertThat(plan.calls()).singleElement().matches(c -> c.command().equals(PlacementCall.MOVE_PRIMARY)
                    && c.partition() == 6 && (c.node().equals("node-1") || c.node().equals("node-3")));
        }
    }

    @Test
    void aRecoveringReplicaIsNoTargetForThePrimaryRole() {
        Map<String, String> recovering = Map.of("node-1", "RECOVERING", "node-2", "PRIMARY", "node-3", "SECONDARY");
        for (long seed = 0; seed < 20; seed++) {
            assertThat(Nemesis.plan(Kind.MOVE_PRIMARY, 1, recovering, recovering.keySet(), FIVE, 3, new Random(seed))
                    .calls()).singleElement().matches(c -> c.node().equals("node-3"));
        }
        Map<String, String> none = Map.of("node-1", "RECOVERING", "node-2", "PRIMARY");
        assertThat(Nemesis.plan(Kind.MOVE_PRIMARY, 1, none, none.keySet(), FIVE, 3, new Random(1)).why())
                .contains("no serving secondary");
    }

    @Test
    void theTallyCountsEachCallsOutcomeFromTheDetails() {
        List<Applied> applied = List.of(
                new Applied("kill", List.of("node-1"), 0, 1, "SIGKILL [node-1], down 2.0 s"),
                new Applied("move-replica", List.of("node-4", "node-2"), 1, 2, "move a replica of partition 3 on {}"
                        + "; add-replica 3 node-4" + Nemesis.OK + " (added node-4)"
                        + "; remove-replica 3 node-2" + Nemesis.FAILED + "NEP-PLACE-002 no primary"),
                new Applied("move-primary", List.of("node-3"), 2, 3, "move the primary of partition 1 on {}"
                        + "; move-primary 1 node-3" + Nemesis.TIMED_OUT + " after 20.0 s (still running)"),
                new Applied("move-replica", List.of(), 3, 3, "skipped: every node hosts it"));
        assertThat(PlacementTally.of(applied)).isEqualTo(new PlacementTally(3, 1, 1, 1));
    }
}
