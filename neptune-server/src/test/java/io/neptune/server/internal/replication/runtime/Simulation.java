package io.neptune.server.internal.replication.runtime;

import io.neptune.server.internal.replication.runtime.SimOptions.Mode;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Runs seeds of the deterministic simulation ({@link SimCluster}) for chosen modes, in parallel on
 * the machine's cores, and sums them up in one line with a hash over every run's trace: the same
 * arguments give the same hash on any machine. {@code ./neptune simulate} runs this.
 *
 * <pre>
 * simulate [--seeds N] [--seed S] [--modes all|majority-2,...] [--steps K] [--replicas R] [--no-faults] [--trace]
 *          [--threads T]
 * </pre>
 *
 * {@code --threads} (default: one per core) sets how many seeds run at once; it changes nothing but
 * the time taken (each seed runs on one thread, and the hash is summed in seed order).
 */
public final class Simulation {
    /** What to run; {@code threads}: how many seeds at once, 0 for one per core. */
    record Plan(long firstSeed, int seeds, Set<Mode> modes, long steps, int replicas, boolean faults, boolean trace,
            int threads) {
        static final Plan DEFAULT = new Plan(1, 100, EnumSet.allOf(Mode.class), 10_000, 5, true, false, 0);

        /** How many threads run the plan: one for a trace (one run's events in order), else as asked. */
        int threadsToUse() {
            if (trace) {
                return 1;
            }
            return threads > 0 ? threads : Math.max(1, Runtime.getRuntime().availableProcessors());
        }
    }

    /** The results of a plan, in seed and then mode order. */
    record Summary(List<SimCluster.Result> results, long traceHash, long millis) {
        List<SimCluster.Result> failures() {
            return results.stream().filter(r -> !r.passed()).toList();
        }

        String line() {
            long steps = results.stream().mapToLong(SimCluster.Result::steps).sum();
            long acknowledged = results.stream().mapToLong(SimCluster.Result::acknowledged).sum();
            long faults = results.stream().mapToLong(SimCluster.Result::faults).sum();
            double simulated = results.stream().mapToDouble(SimCluster.Result::simulatedMillis).sum() / 1000;
            return String.format("simulate: %d runs (%d seeds x %d modes), %,d steps, %,.0f s simulated, %,d acknowledged"
                    + " writes, %,d faults, %d failed, %.1f s, trace-hash=%s", results.size(),
                    results.stream().mapToLong(SimCluster.Result::seed).distinct().count(),
                    results.stream().map(r -> r.options().mode()).distinct().count(), steps, simulated, acknowledged,
                    faults, failures().size(), millis / 1000.0, HexFormat.of().toHexDigits(traceHash));
        }
    }

    private Simulation() {
    }

    /** Runs {@code plan} on {@code threads} threads; prints each failure (seed, how to replay, trace) to {@code out}. */
    static Summary run(Plan plan, int threads, PrintStream out) {
        long start = System.nanoTime();
        Path root = temporaryDirectory();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<SimCluster.Result>> runs = new ArrayList<>();
            for (long seed = plan.firstSeed(); seed < plan.firstSeed() + plan.seeds(); seed++) {
                for (Mode mode : plan.modes()) {
                    // every other seed runs a durable Snapshottable service: checkpoints and snapshot installs
                    SimOptions options = new SimOptions(mode, plan.replicas(), plan.steps(), plan.faults(),
                            seed % 2 == 0);
                    long s = seed;
                    Path dir = root.resolve(mode.cliName() + "-" + seed);
                    runs.add(pool.submit(() -> plan.trace() ? new SimCluster(options, s, dir).traceTo(out).run()
                            : new SimCluster(options, s, dir).run()));
                }
            }
            List<SimCluster.Result> results = new ArrayList<>();
            long hash = 0;
            int done = 0;
            for (Future<SimCluster.Result> run : runs) {
                SimCluster.Result result = run.get();
                results.add(result);
                hash = hash * 31 + result.traceHash();
                if (!result.passed()) {
                    out.printf("FAILED seed %d, mode %s: %s%n  replay: ./neptune simulate --seeds 1 --seed %d --modes %s"
                            + " --steps %d --replicas %d%s%n%s", result.seed(), result.options().mode().cliName(),
                            result.violation(), result.seed(), result.options().mode().cliName(), plan.steps(),
                            plan.replicas(), plan.faults() ? "" : " --no-faults", result.report());
                }
                if (++done % 100 == 0) {
                    out.printf("  %d of %d runs done%n", done, runs.size());
                }
            }
            return new Summary(results, hash, (System.nanoTime() - start) / 1_000_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("a simulation run threw", e.getCause());
        } finally {
            pool.shutdownNow();
            try {
                Files.deleteIfExists(root);
            } catch (IOException e) {
                out.println("cannot delete " + root + ": " + e);
            }
        }
    }

    /**
     * Where the runs keep the files the replicas write beside their logs (membership, origin bases,
     * snapshots): a RAM disk when the machine has one. Each such write is forced (a file and its
     * directory): on this machine's disk a run's thread spent two thirds of its time in those system
     * calls, mostly fsync (a profile, 2026-11-29), though the simulated disks are {@code InMemoryLog}s
     * and no simulated crash depends on what the real disk kept.
     */
    private static Path temporaryDirectory() {
        try {
            Path ramDisk = Path.of("/dev/shm");
            if (Files.isDirectory(ramDisk) && Files.isWritable(ramDisk)) {
                return Files.createTempDirectory(ramDisk, "neptune-simulate");
            }
            return Files.createTempDirectory("neptune-simulate");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory", e);
        }
    }

    static Plan parse(String... args) {
        Plan plan = Plan.DEFAULT;
        long firstSeed = plan.firstSeed();
        int seeds = plan.seeds();
        Set<Mode> modes = plan.modes();
        long steps = plan.steps();
        int replicas = plan.replicas();
        boolean faults = plan.faults();
        boolean trace = plan.trace();
        int threads = plan.threads();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--seeds" -> seeds = (int) positive(arg, value(args, ++i, arg));
                case "--seed" -> firstSeed = number(arg, value(args, ++i, arg));
                case "--steps" -> steps = positive(arg, value(args, ++i, arg));
                case "--replicas" -> replicas = (int) positive(arg, value(args, ++i, arg));
                case "--modes" -> modes = modes(value(args, ++i, arg));
                case "--no-faults" -> faults = false;
                case "--trace" -> trace = true;
                case "--threads" -> threads = (int) positive(arg, value(args, ++i, arg));
                default -> throw new IllegalArgumentException("unknown option: " + arg + " (expected: --seeds N,"
                        + " --seed S, --modes all|majority-2,majority-3,fail-stop-2,fail-stop-3,write-anywhere-1,"
                        + " --steps K, --replicas R, --no-faults, --trace, --threads T)");
            }
        }
        return new Plan(firstSeed, seeds, modes, steps, replicas, faults, trace, threads);
    }

    private static Set<Mode> modes(String list) {
        if (list.equals("all")) {
            return EnumSet.allOf(Mode.class);
        }
        Set<Mode> modes = EnumSet.noneOf(Mode.class);
        for (String name : list.split(",")) {
            modes.add(Mode.ofCliName(name.trim()));
        }
        return modes;
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static long number(String option, String value) {
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + ": " + value + " (expected: a whole number)");
        }
    }

    private static long positive(String option, String value) {
        long n = number(option, value);
        if (n < 1) {
            throw new IllegalArgumentException(option + ": " + value + " (expected: at least 1)");
        }
        return n;
    }

    public static void main(String[] args) {
        Plan plan;
        try {
            plan = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("simulate: " + e.getMessage());
            System.exit(2);
            return;
        }
        int threads = plan.threadsToUse();
        System.out.printf("simulate: seeds %d..%d, modes %s, %d replicas, %,d steps each, faults %s, %d threads%n",
                plan.firstSeed(), plan.firstSeed() + plan.seeds() - 1,
                plan.modes().stream().map(Mode::cliName).toList(), plan.replicas(), plan.steps(),
                plan.faults() ? "on" : "off", threads);
        Summary summary = run(plan, threads, System.out);
        System.out.println(summary.line());
        System.exit(summary.failures().isEmpty() ? 0 : 1);
    }
}
