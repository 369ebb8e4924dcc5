package io.neptune.benchmarks.nemesis;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * The shapes of the nemesis's network partitions, as the node pairs to cut. Pure functions of a
 * node order (a seeded shuffle) so each is unit-tested; {@link Nemesis} installs the cuts.
 *
 * <p>Thread-safety: stateless.
 */
final class Partitions {
    private Partitions() {}

    /** Two nodes that cannot reach each other while the partition lasts. */
    record Pair(int a, int b) {
        @Override
        public String toString() {
            return NemesisCluster.nodeName(a) + "/" + NemesisCluster.nodeName(b);
        }
    }

    /**
     * A partition to install.
     *
     * @param target the nodes named in the fault log (the minority, the isolated node, the bridge)
     * @param pairs the pairs to cut
     * @param detail what the shape is, for the fault log
     */
    record Shape(List<String> target, List<Pair> pairs, String detail) {
        Shape {
            target = List.copyOf(target);
            pairs = List.copyOf(pairs);
        }
    }

    /** The first {@code (n-1)/2} nodes of {@code order} against the rest. */
    static Shape halves(List<Integer> order) {
        List<Integer> minority = order.subList(0, (order.size() - 1) / 2);
        List<Integer> majority = order.subList(minority.size(), order.size());
        return new Shape(names(minority), between(minority, majority), "minority " + names(minority) + " | majority "
                + names(majority));
    }

    /** {@code victim} against every other node; {@code why} says how it was chosen. */
    static Shape isolate(int victim, List<Integer> order, String why) {
        List<Integer> others = new ArrayList<>(order);
        others.remove(Integer.valueOf(victim));
        return new Shape(names(List.of(victim)), between(List.of(victim), others),
                "isolated " + NemesisCluster.nodeName(victim) + " (" + why + ")");
    }

    /** The rest of {@code order} split in two halves, and its first node reaching both. */
    static Shape bridge(List<Integer> order) {
        int bridge = order.get(0);
        List<Integer> rest = order.subList(1, order.size());
        List<Integer> left = rest.subList(0, rest.size() / 2);
        List<Integer> right = rest.subList(rest.size() / 2, rest.size());
        return new Shape(names(List.of(bridge)), between(left, right), names(left) + " | " + names(right)
                + ", bridged by " + NemesisCluster.nodeName(bridge));
    }

    /** A ring in {@code order}: each node reaches its two neighbours only. */
    static Shape ring(List<Integer> order) {
        int n = order.size();
        List<Pair> pairs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                int distance = j - i;
                if (distance != 1 && distance != n - 1) {
                    pairs.add(pair(order.get(i), order.get(j)));
                }
            }
        }
        return new Shape(names(order), pairs, "ring " + names(order) + ": each node reaches its neighbours");
    }

    /** Each pair cut with probability one half (at least one pair: the first two of {@code order}). */
    static Shape random(List<Integer> order, Random random) {
        List<Pair> pairs = new ArrayList<>();
        for (int a = 0; a < order.size(); a++) {
            for (int b = a + 1; b < order.size(); b++) {
                if (random.nextBoolean()) {
                    pairs.add(new Pair(a, b));
                }
            }
        }
        if (pairs.isEmpty()) {
            pairs.add(pair(order.get(0), order.get(1)));
        }
        return new Shape(List.of(), pairs, "cut pairs " + pairs.stream().map(Pair::toString)
                .collect(Collectors.joining(", ")));
    }

    private static List<Pair> between(List<Integer> side, List<Integer> other) {
        List<Pair> pairs = new ArrayList<>();
        for (int a : side) {
            for (int b : other) {
                pairs.add(pair(a, b));
            }
        }
        return pairs;
    }

    private static Pair pair(int a, int b) {
        return new Pair(Math.min(a, b), Math.max(a, b));
    }

    static List<String> names(List<Integer> nodes) {
        return nodes.stream().map(NemesisCluster::nodeName).toList();
    }
}
