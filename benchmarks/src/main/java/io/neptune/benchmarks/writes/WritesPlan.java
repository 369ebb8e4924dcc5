package io.neptune.benchmarks.writes;

import io.neptune.benchmarks.writes.WritesExperiment.WriteSystem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * What one run of the experiment measures: every combination of partitions, payload and writers,
 * on each system, each run a warm-up and then a measured period.
 *
 * @param quick whether this is the quick mode
 * @param partitions partition counts (Raft groups for Ratis)
 * @param payloads bytes of each written value
 * @param writers concurrent writers (writes outstanding)
 * @param firstWarmUp the unmeasured run at the start of each cluster (JIT, connections)
 * @param warmUp the unmeasured start of every measured run
 * @param measure the measured period of every run
 * @param systems the systems to measure, in declaration order; a run of fewer than all writes no report
 * @param reversed whether the systems run in the reverse of that order (to see whether the order biases a comparison)
 */
record WritesPlan(boolean quick, List<Integer> partitions, List<Integer> payloads, List<Integer> writers,
        Duration firstWarmUp, Duration warmUp, Duration measure, List<WriteSystem> systems, boolean reversed) {
    /** The usage line that {@code --help} prints. */
    static final String USAGE = """
            usage: ./neptune bench writes [--quick] [--systems neptune,unreplicated,ratis,tls-openssl,tls-jdk] [--tls] [--reverse]
                                   [--help]
              Level-2 writes with 3 replicas against the same service unreplicated and Apache Ratis (3 peers),
              all in one JVM on 127.0.0.1: 100 B and 4 KB values, 1 and 64 partitions (Raft groups), closed loops of
              1, 4, 16, 64 and 256 writers; committed writes/s and p50/p99 commit latency.
              Writes docs/benchmarks/replicated-writes.{md,csv,png} (run from the repository root).
              --quick    1 and 64 writers, runs of 2 + 1.5 s instead of 2 + 8 s (the same warm-ups)
              --systems  only these systems (then no report is written)
              --reverse  run the systems in the reverse order (e.g. TLS before plaintext)
              --tls      Neptune 3 replicas plaintext against the same with security.tls: required on every node and
                         the client, on OpenSSL and on the JDK's TLS (tls-openssl, tls-jdk), in one run; writes
                         docs/benchmarks/replicated-writes-tls.{md,csv,png} instead""";

    WritesPlan {
        partitions = List.copyOf(partitions);
        payloads = List.copyOf(payloads);
        writers = List.copyOf(writers);
        systems = systems.stream().distinct().sorted().toList(); // declaration order: Neptune next to Ratis
    }

    /** The systems in the order they run. */
    List<WriteSystem> order() {
        List<WriteSystem> order = new ArrayList<>(systems);
        if (reversed) {
            Collections.reverse(order);
        }
        return order;
    }

    /** Whether every default (plaintext) system runs, and only those, so that the report is complete. */
    boolean complete() {
        return systems.equals(defaultSystems());
    }

    /** Whether this is a {@code --tls} run: plaintext Neptune against Neptune on each TLS provider. */
    boolean tlsComparison() {
        return systems.equals(tlsSystems());
    }

    /** The systems a run measures unless told otherwise: all but the TLS ones. */
    static List<WriteSystem> defaultSystems() {
        return Arrays.stream(WriteSystem.values()).filter(s -> !s.tls).toList();
    }

    /** The systems of {@code --tls}: Neptune with 3 replicas, plaintext and on each TLS provider. */
    static List<WriteSystem> tlsSystems() {
        return Arrays.stream(WriteSystem.values()).filter(s -> s.tls || s == WriteSystem.NEPTUNE).toList();
    }

    /** The full plan: 1–256 writers, 10-second runs. */
    static WritesPlan fullPlan() {
        return new WritesPlan(false, List.of(1, 64), List.of(100, 4096), List.of(1, 4, 16, 64, 256),
                Duration.ofSeconds(5), Duration.ofSeconds(2), Duration.ofSeconds(8), defaultSystems(), false);
    }

    /**
     * The quick plan: every system, partition count and payload of the full plan at 1 and 64 writers
     * (64 is where the report's ratio table compares the systems), with the full plan's warm-ups (5 s per
     * cluster, 2 s per run) and 1.5 s measured. The warm-ups are not cut: with 2 s and 0.5 s a quick run
     * gave Ratis 448 writes/s at 64 writers on one group against 4,927 in the full run (issue 26), so
     * its ratio to Neptune meant nothing; every system gets the same warm-up in both modes.
     */
    static WritesPlan quickPlan() {
        WritesPlan full = fullPlan();
        return new WritesPlan(true, full.partitions(), full.payloads(), List.of(1, 64), full.firstWarmUp(),
                full.warmUp(), Duration.ofMillis(1500), defaultSystems(), false);
    }

    /** Whether {@code args} ask for the usage text. */
    static boolean wantsHelp(List<String> args) {
        return args.contains("--help") || args.contains("-h");
    }

    /**
     * The plan {@code args} choose: {@code [--quick] [--systems a,b] [--tls] [--reverse]}, the systems by
     * {@link WriteSystem#option}; {@code --tls} stands for {@code --systems neptune,tls-openssl,tls-jdk}.
     *
     * @throws IllegalArgumentException on any other argument
     */
    static WritesPlan parse(List<String> args) {
        boolean quick = false;
        boolean reversed = false;
        List<WriteSystem> systems = defaultSystems();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--quick")) {
                quick = true;
            } else if (arg.equals("--reverse")) {
                reversed = true;
            } else if (arg.equals("--tls")) {
                systems = tlsSystems();
            } else if (arg.equals("--systems") && i + 1 < args.size()) {
                systems = systems(args.get(++i));
            } else {
                throw new IllegalArgumentException("argument: '" + arg
                        + "' (expected: --quick, --systems LIST, --tls, --reverse, --help or nothing)");
            }
        }
        WritesPlan plan = quick ? quickPlan() : fullPlan();
        return new WritesPlan(plan.quick(), plan.partitions(), plan.payloads(), plan.writers(), plan.firstWarmUp(),
                plan.warmUp(), plan.measure(), systems, reversed);
    }

    private static List<WriteSystem> systems(String list) {
        List<WriteSystem> chosen = new ArrayList<>();
        for (String name : list.split(",")) {
            chosen.add(Arrays.stream(WriteSystem.values()).filter(s -> s.option.equals(name.trim().toLowerCase(
                    Locale.ROOT))).findFirst().orElseThrow(() -> new IllegalArgumentException("system: '" + name
                    + "' (expected: neptune, unreplicated, ratis, tls-openssl or tls-jdk)")));
        }
        return chosen;
    }
}
