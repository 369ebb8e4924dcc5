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
 * <p>Placement changes ({@link Kind#isPlacement}: {@code move-replica}, {@code move-primary}) are a
 * second track, {@link #placements}, drawn from a second random stream of the seed: they run one at a
 * time on their own thread, <em>while</em> the faults of the first track are in force, and allowing
 * them leaves the first track as it was. Majority mode at level 2 or 3 only ({@link #checkPlacement}).
 *
 * <p>A quick schedule starts with a pause, a partition and a kill in a seeded order, so even a
 * short run exercises the three; then kinds are drawn by weight.
 *
 * <p>Thread-safety: immutable.
 *
 * @param faults the planned faults, in time order; none overlaps another
 * @param placements the planned placement changes, in time order; they overlap the faults, not each other
 */
record FaultSchedule(List<Planned> faults, List<Planned> placements) {
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
        SLOW_NETWORK("slow-network", 1),
        /**
         * A replica of a random partition moves: add-replica on a node that does not host it and
         * remove-replica of a secondary (either order), so the count stays; the length is the time
         * the admin calls may take.
         */
        MOVE_REPLICA("move-replica", 1),
        /** The primary role of a random partition moves to another of its replicas (move-primary). */
        MOVE_PRIMARY("move-primary", 1);

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

        /** A placement change through {@code ClusterAdmin}, on the second track. */
        boolean isPlacement() {
            return this == MOVE_REPLICA || this == MOVE_PRIMARY;
        }

        /** The kinds a run has unless {@code --faults} says otherwise: every fault, no placement change. */
        static Set<Kind> defaults() {
            EnumSet<Kind> kinds = EnumSet.allOf(Kind.class);
            kinds.removeIf(Kind::isPlacement);
            return kinds;
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

    /** Quiet time between two placement changes, and how long one change's admin calls may take, in ms. */
    private record PlacementTiming(long quietMin, long quietMax, long length) {}

    private static final PlacementTiming QUICK_PLACEMENT = new PlacementTiming(1_000, 3_000, 15_000);
    private static final PlacementTiming FULL_PLACEMENT = new PlacementTiming(3_000, 10_000, 40_000);

    FaultSchedule {
        faults = List.copyOf(faults);
        placements = List.copyOf(placements);
    }

    /** Draws the schedule of a run of {@code duration} on {@code nodes} nodes from {@code seed}, default kinds. */
    static FaultSchedule generate(long seed, int nodes, boolean quick, Duration duration) {
        return generate(seed, nodes, quick, duration, Kind.defaults());
    }

    /**
     * Refuses placement kinds unless the service runs in majority mode at level 2 or 3, the only
     * services whose placement {@code ClusterAdmin} changes (NEP-PLACE-001 otherwise).
     */
    static void checkPlacement(Set<Kind> allowed, io.neptune.core.FailoverMode mode, int level) {
        List<String> placement = allowed.stream().filter(Kind::isPlacement).map(Kind::label).toList();
        if (!placement.isEmpty() && (mode != io.neptune.core.FailoverMode.MAJORITY || level < 2)) {
            throw new IllegalArgumentException("--faults " + String.join(",", placement) + ": placement changes need"
                    + " --mode majority and --level 2 or 3 (got --mode " + mode.configName() + " --level " + level
                    + "; add-replica, remove-replica and move-primary refuse other services with NEP-PLACE-001)");
        }
    }

    /**
     * Draws the schedule as {@link #generate(long, int, boolean, Duration)} does, with faults of the
     * {@code allowed} kinds only. The faults track depends only on the allowed fault kinds: allowing
     * placement kinds too adds the placement track and changes nothing else.
     */
    static FaultSchedule generate(long seed, int nodes, boolean quick, Duration duration, Set<Kind> allowed) {
        if (allowed.isEmpty()) {
            throw new IllegalArgumentException("faults: none allowed (expected: at least one kind)");
        }
        List<Planned> placements = placements(seed, quick, duration, allowed);
        Set<Kind> faultKinds = EnumSet.noneOf(Kind.class);
        allowed.stream().filter(k -> !k.isPlacement()).forEach(faultKinds::add);
        if (faultKinds.isEmpty()) {
            return new FaultSchedule(List.of(), placements);
        }
        return new FaultSchedule(faults(seed, nodes, quick, duration, faultKinds), placements);
    }

    private static List<Planned> faults(long seed, int nodes, boolean quick, Duration duration, Set<Kind> allowed) {
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
        return faults;
    }

    /**
     * The placement track: from the end of the warm-up, a change every quiet period until one would
     * not end within {@code duration}; each kind drawn by weight. Its own random stream (the seed's
     * second split), so the faults track is the same with it or without.
     */
    private static List<Planned> placements(long seed, boolean quick, Duration duration, Set<Kind> allowed) {
        List<Kind> kinds = new ArrayList<>();
        allowed.stream().filter(Kind::isPlacement).forEach(k -> {
            for (int w = 0; w < k.weight; w++) {
                kinds.add(k);
            }
        });
        List<Planned> placements = new ArrayList<>();
        if (kinds.isEmpty()) {
            return placements;
        }
        SplittableRandom split = new SplittableRandom(seed);
        split.nextLong();
        Random random = new Random(split.split().nextLong());
        PlacementTiming timing = quick ? QUICK_PLACEMENT : FULL_PLACEMENT;
        long cursor = (quick ? QUICK : FULL).warmUp();
        long end = duration.toMillis();
        while (true) {
            long at = cursor + between(random, timing.quietMin(), timing.quietMax());
            if (at + timing.length() > end) {
                break;
            }
            Kind kind = kinds.get(random.nextInt(kinds.size()));
            placements.add(new Planned(placements.size() + 1, kind, Duration.ofMillis(at),
                    Duration.ofMillis(timing.length()), random.nextLong()));
            // the next one is planned as if this one took a fifth of its budget; it waits if it takes longer
            cursor = at + timing.length() / 5;
        }
        return placements;
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
