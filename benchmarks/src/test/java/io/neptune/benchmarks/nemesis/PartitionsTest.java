package io.neptune.benchmarks.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import io.neptune.benchmarks.nemesis.Partitions.Pair;
import io.neptune.benchmarks.nemesis.Partitions.Shape;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Each partition shape cuts exactly the pairs its name promises. */
class PartitionsTest {
    private static final List<Integer> FIVE = List.of(3, 0, 4, 1, 2);

    @Test
    void halvesCutEveryMinorityNodeFromEveryMajorityNodeAndNothingElse() {
        Shape shape = Partitions.halves(FIVE);
        assertThat(shape.target()).containsExactly("node-4", "node-1");
        assertThat(shape.pairs()).hasSize(2 * 3);
        Set<Integer> minority = Set.of(3, 0);
        assertThat(shape.pairs()).allMatch(p -> minority.contains(p.a()) != minority.contains(p.b()));
        assertThat(Partitions.halves(List.of(2, 0, 1)).pairs()).containsExactlyInAnyOrder(new Pair(0, 2),
                new Pair(1, 2));
    }

    @Test
    void isolateCutsTheVictimFromEveryoneElse() {
        Shape shape = Partitions.isolate(4, FIVE, "primary of partition 0");
        assertThat(shape.target()).containsExactly("node-5");
        assertThat(shape.pairs()).hasSize(4).allMatch(p -> p.a() == 4 || p.b() == 4);
        assertThat(shape.detail()).contains("node-5", "primary of partition 0");
    }

    @Test
    void theBridgeReachesBothHalvesWhichCannotReachEachOther() {
        Shape shape = Partitions.bridge(FIVE);
        assertThat(shape.target()).containsExactly("node-4");
        assertThat(shape.pairs()).noneMatch(p -> p.a() == 3 || p.b() == 3);
        assertThat(shape.pairs()).containsExactlyInAnyOrder(new Pair(0, 1), new Pair(0, 2), new Pair(1, 4),
                new Pair(2, 4));
    }

    @Test
    void inARingEachNodeKeepsExactlyItsTwoNeighbours() {
        Shape shape = Partitions.ring(FIVE);
        for (int node = 0; node < 5; node++) {
            int n = node;
            Set<Integer> reachable = new HashSet<>(Set.of(0, 1, 2, 3, 4));
            reachable.remove(n);
            shape.pairs().stream().filter(p -> p.a() == n || p.b() == n)
                    .forEach(p -> reachable.remove(p.a() == n ? p.b() : p.a()));
            int at = FIVE.indexOf(n);
            assertThat(reachable).as("node %d reaches", n)
                    .containsExactlyInAnyOrder(FIVE.get((at + 1) % 5), FIVE.get((at + 4) % 5));
        }
    }

    @Test
    void randomCutsAtLeastOnePairAndIsReproducible() {
        for (long seed = 0; seed < 50; seed++) {
            Shape shape = Partitions.random(List.of(1, 0, 2), new Random(seed));
            assertThat(shape.pairs()).isNotEmpty().doesNotHaveDuplicates().allMatch(p -> p.a() < p.b());
            assertThat(Partitions.random(List.of(1, 0, 2), new Random(seed))).isEqualTo(shape);
        }
    }
}
