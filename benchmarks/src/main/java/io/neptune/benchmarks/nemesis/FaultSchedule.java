package io.neptune.benchmarks.nemesis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Arrays;
import java.util.Set;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * The faults of one run, drawn from its seed (mixed by {@link SplittableRandom}, then {@link Random}): the same seed, node count and
 * mode ({@code --quick} or not) give the same kinds, times, lengths and target choices. Faults do
 * not overlap; a quiet period separates them. Which node a target choice names can still depend
 * on the cluster (the current primary of a partition), so the applied faults are logged too.
 *
 * <p>A quick schedule starts with a pause, a partition and a kill in a seeded order, so even a
 * short run exercises the three; then kinds are drawn by weight.
 *
 * <p>Thread-safety: immutable.
 *
 * @param faults the planned faults, in time order
 */
record FaultSchedule(List<Planned> faults) {
    /** The kinds of fault the nemesis applies. */
    enum Kind {
        /** The nodes split into a minority and a majority that cannot reach each other. */
        PARTITION_HALVES("partition-halves", 2),
        /** The current primary of a partition is cut from every other node. */
        ISOLATE_PRIMARY("isolate-primary", 2),
        /** Two halves that cannot reach each other, and one node that reaches both. */
        PARTITION_BRIDGE("partition-bridge", 1),
        /** A random ring: each node reaches only its two neighbours (5 nodes or more). */
        PARTITION_RING("partition-ring", 1),
        /** Each pair of nodes cut with probability one half. */
        PARTITION_RANDOM("partition-random", 1),
        /** SIGSTOP a random node, SIGCONT after the fault's length. */
        PAUSE("pause", 2),
        /** SIGSTOP the current primary of a partition. */
        PAUSE_PRIMARY("pause-primary", 2),
        /** SIGKILL one node, restart it after the fault's length. */
        KILL("kill", 2),
        /** SIGKILL several nodes at once, restart them together. */
        KILL_SEVERAL("kill-several", 1),
        /** SIGKILL a node, restart it, SIGKILL it again while it recovers, restart it. */
        KILL_RECOVERING("kill-recovering", 1),
        /** A machine crash: SIGKILL, the crash hook on its files, restart. */
        CRASH("crash", 1),
        /** A slow network on one node (netem delay and loss, or a tbf rate limit). */
        SLOW_NETWORK("slow-network", 1);

        private final String label;
        private final int weight;

        Kind(String label, int weight) {
            this.label = label;
            this.weight = weight;
        }

        /** The name in the fault log and the report. */
        String label() {
            return label;
        }

        /** The kind labelled {@code label}; an {@link IllegalArgumentException} listing the labels otherwise. */
        static Kind ofLabel(String label) {
            for (Kind kind : values()) {
                if (kind.label.equals(label)) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("fault kind: '" + label + "' (expected: one of "
                    + Arrays.stream(values()).map(Kind::label).toList() + ")");
        }

        boolean isPartition() {
            return name().startsWith("PARTITION") || this == ISOLATE_PRIMARY;
        }
    }

    /**
     * One planned fault.
     *
     * @param number its position in the schedule, from 1
     * @param kind what it does
     * @param at when it starts, from the run's origin
     * @param length how long it lasts (a kill: how long the node stays down)
     * @param choice the seed of its target choices
     */
    record Planned(int number, Kind kind, Duration at, Duration length, long choice) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT, "#%d %s at %.1f s for %.1f s", number, kind.label(),
                    at.toMillis() / 1e3, length.toMillis() / 1e3);
        }
    }

    /** Lengths and gaps of a schedule, in milliseconds. */
    private record Timing(long warmUp, long quietMin, long quietMax, long pauseMin, long pauseMax, long partitionMin,
            long partitionMax, long downMin, long downMax) {}

    private static final Timing QUICK = new Timing(3_000, 3_000, 5_000, 2_000, 8_000, 4_000, 8_000, 2_000, 5_000);
    private static final Timing FULL = new Timing(10_000, 5_000, 15_000, 1_000, 30_000, 5_000, 30_000, 2_000, 20_000);

    FaultSchedule {
        faults = List.copyOf(faults);
    }

    /** Draws the schedule of a run of {@code duration} on {@code nodes} nodes from {@code seed}. */
    static FaultSchedule generate(long seed, int nodes, boolean quick, Duration duration) {
        return generate(seed, nodes, quick, duration, EnumSet.allOf(Kind.class));
    }

    /**
     * Draws the schedule as {@link #generate(long, int, boolean, Duration)} does, with faults of the
     * {@code allowed} kinds only (with every kind allowed, the same schedule).
     */
    static FaultSchedule generate(long seed, int nodes, boolean quick, Duration duration, Set<Kind> allowed) {
        if (allowed.isEmpty()) {
            throw new IllegalArgumentException("faults: none allowed (expected: at least one kind)");
        }
        // Random's first outputs for nearby seeds are alike (seed 1, 2, 3 would all start with the same
        // kind); SplittableRandom mixes the seed first.
        Random random = new Random(new SplittableRandom(seed).nextLong());
        Timing timing = quick ? QUICK : FULL;
        List<Kind> first = new ArrayList<>();
        if (quick) {
            first.addAll(List.of(random.nextBoolean() ? Kind.PAUSE : Kind.PAUSE_PRIMARY,
                    random.nextBoolean() ? Kind.PARTITION_HALVES : Kind.ISOLATE_PRIMARY, Kind.KILL));
            Collections.shuffle(first, random);
            first.retainAll(allowed);
        }
        List<Planned> faults = new ArrayList<>();
        long cursor = timing.warmUp();
        long end = duration.toMillis();
        while (true) {
            long quiet = faults.isEmpty() ? 0 : between(random, timing.quietMin(), timing.quietMax());
            Kind kind = faults.size() < first.size() ? first.get(faults.size()) : draw(random, nodes, allowed);
            long length = switch (kind) {
                case PAUSE, PAUSE_PRIMARY -> between(random, timing.pauseMin(), timing.pauseMax());
                case KILL, KILL_SEVERAL, KILL_RECOVERING, CRASH -> between(random, timing.downMin(), timing.downMax());
                default -> between(random, timing.partitionMin(), timing.partitionMax());
            };
            long at = cursor + quiet;
            if (at + length > end) {
                break;
            }
            faults.add(new Planned(faults.size() + 1, kind, Duration.ofMillis(at), Duration.ofMillis(length),
                    random.nextLong()));
            cursor = at + length;
        }
        return new FaultSchedule(faults);
    }

    private static Kind draw(Random random, int nodes, Set<Kind> allowed) {
        List<Kind> kinds = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            if (kind == Kind.PARTITION_RING && nodes < 5 || !allowed.contains(kind)) {
                continue;   // with 3 or 4 nodes a ring cuts nothing or is a random cut
            }
            for (int w = 0; w < kind.weight; w++) {
                kinds.add(kind);
            }
        }
        if (kinds.isEmpty()) {
            throw new IllegalArgumentException("faults: " + allowed + " (expected: a kind that " + nodes
                    + " nodes can have; partition-ring needs 5)");
        }
        return kinds.get(random.nextInt(kinds.size()));
    }

    private static long between(Random random, long min, long max) {
        return min + (long) (random.nextDouble() * (max - min));
    }
}
