package io.neptune.benchmarks.nemesis;

import io.neptune.benchmarks.nemesis.check.CheckReport;
import io.neptune.benchmarks.nemesis.check.Checkers;
import io.neptune.benchmarks.nemesis.check.Verdict.Validity;
import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.RunFiles;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.FailoverMode;
import io.neptune.server.LogRetentionConfig;
import io.neptune.server.NetworkUnavailableException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * {@code ./neptune bench nemesis [--quick] [--seed N] [--mode majority|fail-stop] [--level 1|2|3]
 * [--duration D] [--runs R] [--nodes N] [--out DIR] [--faults KIND,...] [--log-retention RECORDS]}:
 * Jepsen-style runs of a list-append service under partitions, pauses, kills and crashes (and, with
 * {@code --faults ...,move-replica,move-primary} in majority mode, placement changes made while those
 * faults are in force), each writing a run directory with the history, the
 * final state, the faults, the node logs and a report (docs/RELIABILITY.md explains it all).
 *
 * <p>Runs go to {@code docs/benchmarks/nemesis/<time>-seed-<N>/}, the record behind the figures in
 * docs/RELIABILITY.md; {@code --quick} runs (CI and smoke checks, throwaway) go to
 * {@code benchmarks/target/nemesis/} so they never land in the docs by accident. Needs root (network
 * namespaces); run from the repository root.
 */
public final class NemesisBench {
    private NemesisBench() {}

    /** Parsed command line. */
    record Options(boolean quick, long seed, FailoverMode mode, int level, Duration duration, int runs, int nodes,
            Path out, Set<FaultSchedule.Kind> faults, @Nullable LogRetentionConfig retention) {
        /** Options with the nodes' default log retention. */
        Options(boolean quick, long seed, FailoverMode mode, int level, Duration duration, int runs, int nodes,
                Path out, Set<FaultSchedule.Kind> faults) {
            this(quick, seed, mode, level, duration, runs, nodes, out, faults, null);
        }
    }

    /** Runs the bench; exits 1 if a run had problems, 2 if this machine cannot run it. */
    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = parse(List.of(args));
        } catch (IllegalArgumentException e) {
            System.err.println("nemesis: " + e.getMessage());
            System.err.println(usage());
            System.exit(2);
            return;
        }
        List<String> summary = new ArrayList<>();
        List<WriteRecovery.Gap> gaps = new ArrayList<>();
        int faults = 0;
        int valid = 0;
        boolean failed = false;
        for (int r = 0; r < options.runs(); r++) {
            long seed = options.seed() + r;
            NemesisRun.Settings settings = settings(options, seed);
            Path directory = options.out().resolve(LocalDateTime.now().format(DateTimeFormatter.ofPattern(
                    "yyyyMMdd-HHmmss", Locale.ROOT)) + "-seed-" + seed);
            System.out.printf(Locale.ROOT, "nemesis run %d/%d: seed %d, %s, level %d, %d nodes, %d s of faults -> %s%n",
                    r + 1, options.runs(), seed, settings.mode().configName(), settings.level(), settings.nodes(),
                    settings.duration().toSeconds(), directory);
            NemesisRun.Outcome outcome;
            try {
                outcome = new NemesisRun(settings, directory, crashHook(), NemesisBench::progress).call();
            } catch (NetworkUnavailableException e) {
                System.err.println("nemesis: " + e.getMessage());
                System.exit(2);
                return;
            }
            Verdicts verdicts = checkerVerdicts(outcome);
            NemesisReport.write(outcome, command(args, seed), verdicts.lines(), verdicts.gaps());
            gaps.addAll(verdicts.gaps());
            faults += outcome.faults().size();
            valid += verdicts.passed() && outcome.problems().isEmpty() ? 1 : 0;
            if (!options.quick()) {
                NemesisRun.compress(directory);   // full runs are kept under docs/: megabytes of history and logs
            }
            HistorySummary h = outcome.history();
            String line = String.format(Locale.ROOT, "seed %d: %d faults, ops ok %d / fail %d / info %d, replicas %s,"
                    + " %.0f s; checkers %s; %s", seed, outcome.faults().size(), h.count("ok"), h.count("fail"),
                    h.count("info"), (outcome.unsettled() == null ? "agree" : "DISAGREE")
                    + (outcome.schedule().placements().isEmpty() ? "" : "; "
                    + Nemesis.PlacementTally.of(outcome.faults())), outcome.wallSeconds(),
                    verdicts.passed() ? "passed" : "FAILED",
                    outcome.problems().isEmpty() ? "no problems" : outcome.problems().size() + " problems");
            summary.add(line);
            System.out.println(line + "; report " + directory.resolve("report.md"));
            failed |= !outcome.problems().isEmpty() || !verdicts.passed();
        }
        if (options.runs() > 1) {
            List<String> text = new ArrayList<>();
            text.add(String.format(Locale.ROOT, "# Nemesis: %d runs from seed %d, mode %s, level %d", options.runs(),
                    options.seed(), options.mode().configName(), options.level()));
            text.add("");
            text.add(String.format(Locale.ROOT, "%d of %d runs valid (every checker, no problems), %d faults.", valid,
                    options.runs(), faults));
            text.add("");
            summary.forEach(l -> text.add("- " + l));
            text.add("");
            text.add("Time from a fault's start until every partition that was taking writes completed a write"
                    + " invoked after it:");
            text.add("");
            text.addAll(WriteRecovery.table(gaps));
            text.forEach(System.out::println);
            try {
                Files.writeString(options.out().resolve(String.format(Locale.ROOT, "summary-seed-%d-%d-%s.md",
                        options.seed(), options.seed() + options.runs() - 1, options.mode().configName())),
                        String.join("\n", text) + "\n");
            } catch (IOException e) {
                System.err.println("nemesis: cannot write the summary: " + e);
            }
        }
        if (failed) {
            System.exit(1);
        }
    }

    /**
     * The checkers' section of a run's report, whether every checker found the run valid, and how
     * long each fault stopped writes (empty when the history could not be read).
     */
    record Verdicts(List<String> lines, boolean passed, List<WriteRecovery.Gap> gaps) {}

    /**
     * Runs every checker that applies to the run's promises ({@code io.neptune.benchmarks.nemesis.check})
     * on its {@code history.jsonl} and {@code final-state.json}, and writes {@code guarantees.json} so
     * {@code CheckHistory} can re-check the directory. A run that any checker finds invalid, or
     * cannot decide, has not passed, which makes {@link #main} exit 1.
     */
    static Verdicts checkerVerdicts(NemesisRun.Outcome outcome) {
        Path dir = outcome.directory();
        NemesisRun.Settings settings = outcome.settings();
        try {
            Guarantees guarantees = switch (settings.level()) {
                case 3 -> Guarantees.level3(settings.mode(), 1000);
                case 1 -> Guarantees.of(ConsistencyLevel.LEVEL_1, settings.mode());
                default -> Guarantees.of(ConsistencyLevel.LEVEL_2, settings.mode());
            };
            RunFiles.writeGuarantees(dir.resolve(RunFiles.GUARANTEES), guarantees);
            History history = RunFiles.readHistory(dir.resolve(RunFiles.HISTORY));
            CheckReport report = Checkers.checkAll(history, RunFiles.readFinalState(dir.resolve(RunFiles.FINAL_STATE)),
                    guarantees);
            return new Verdicts(List.of(report.markdown(20).split("\n", -1)), report.validity() == Validity.VALID,
                    WriteRecovery.of(history, outcome.faults()));
        } catch (IOException | RuntimeException e) {
            return new Verdicts(List.of("## Checkers", "", "The checkers could not run: " + e), false, List.of());
        }
    }

    /** The machine-crash hook: crashfs where gcc can build it ({@link CrashHook#crashFs()}). */
    static CrashHook crashHook() {
        return CrashHook.crashFs();
    }

    /** The settings of one run of {@code options} with {@code seed}. */
    static NemesisRun.Settings settings(Options options, long seed) {
        int degree = Math.min(3, options.nodes());
        return options.quick()
                ? new NemesisRun.Settings(seed, true, options.mode(), options.level(), options.nodes(), degree,
                        options.duration(), Duration.ofSeconds(5), 8, 20, Duration.ofMillis(25), Duration.ofSeconds(5),
                        Duration.ofSeconds(30), options.faults(), options.retention())
                : new NemesisRun.Settings(seed, false, options.mode(), options.level(), options.nodes(), degree,
                        options.duration(), Duration.ofSeconds(15), 8, 20, Duration.ofMillis(20), Duration.ofSeconds(5),
                        Duration.ofSeconds(60), options.faults(), options.retention());
    }

    static Options parse(List<String> args) {
        boolean quick = args.contains("--quick");
        long seed = System.currentTimeMillis() % 1_000_000;
        FailoverMode mode = FailoverMode.MAJORITY;
        int level = 2;
        Duration duration = quick ? Duration.ofSeconds(45) : Duration.ofSeconds(180);
        int runs = 1;
        int nodes = quick ? 3 : 5;
        Path root = Path.of("").toAbsolutePath();
        Set<FaultSchedule.Kind> faults = FaultSchedule.Kind.defaults();
        LogRetentionConfig retention = null;
        Path out = quick ? root.resolve("benchmarks").resolve("target").resolve("nemesis")
                : root.resolve("docs").resolve("benchmarks").resolve("nemesis");
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--quick")) {
                continue;
            }
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException("option " + arg + ": missing value (expected: " + usage() + ")");
            }
            String value = args.get(++i);
            switch (arg) {
                case "--seed" -> seed = Long.parseLong(value);
                case "--mode" -> mode = FailoverMode.fromConfigName(value);
                case "--level" -> level = Integer.parseInt(value);
                case "--duration" -> duration = duration(value);
                case "--runs" -> runs = Integer.parseInt(value);
                case "--nodes" -> nodes = Integer.parseInt(value);
                case "--out" -> out = Path.of(value).toAbsolutePath();
                case "--log-retention" -> {
                    long records = Long.parseLong(value);
                    if (records < 4) {
                        throw new IllegalArgumentException("--log-retention: " + records + " (expected: >= 4 records)");
                    }
                    retention = new LogRetentionConfig(records, records / 4);
                }
                case "--faults" -> {
                    faults = EnumSet.noneOf(FaultSchedule.Kind.class);
                    for (String label : value.split(",")) {
                        faults.add(FaultSchedule.Kind.ofLabel(label.trim()));
                    }
                }
                default -> throw new IllegalArgumentException("option: " + arg + " (expected: " + usage() + ")");
            }
        }
        if (level < 1 || level > 3) {
            throw new IllegalArgumentException("--level: " + level + " (expected: 1, 2 or 3)");
        }
        FaultSchedule.checkPlacement(faults, mode, level);
        if (runs < 1 || nodes < 3 || duration.toSeconds() < 10) {
            throw new IllegalArgumentException("--runs: " + runs + ", --nodes: " + nodes + ", --duration: " + duration
                    + " (expected: runs >= 1, nodes >= 3, duration >= 10s)");
        }
        if (!quick && !Files.isDirectory(root.resolve("docs")) && !args.contains("--out")) {
            throw new IllegalArgumentException("run from the repository root (no docs/ in " + root + "), or give --out");
        }
        return new Options(quick, seed, mode, level, duration, runs, nodes, out, faults, retention);
    }

    /** Parses {@code 90}, {@code 90s}, {@code 5m}. */
    private static Duration duration(String text) {
        if (text.endsWith("m")) {
            return Duration.ofMinutes(Long.parseLong(text.substring(0, text.length() - 1)));
        }
        return Duration.ofSeconds(Long.parseLong(text.endsWith("s") ? text.substring(0, text.length() - 1) : text));
    }

    static String usage() {
        return "./neptune bench nemesis [--quick] [--seed N] [--mode majority|fail-stop] [--level 1|2|3]"
                + " [--duration 180s|5m] [--runs R] [--nodes N] [--out DIR] [--faults kind,kind...]"
                + " [--log-retention RECORDS]\n  fault kinds: " + FaultSchedule.Kind.defaults().stream()
                .map(FaultSchedule.Kind::label).toList() + " (the default: all of them), and the placement changes"
                + " move-replica, move-primary (majority mode, level 2 or 3 only; concurrent with the faults)";
    }

    /** The command that reproduces one run: the given options, one run, its seed. */
    private static String command(String[] args, long seed) {
        StringBuilder command = new StringBuilder("./neptune bench nemesis");
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--seed") || args[i].equals("--runs")) {
                i++;
            } else {
                command.append(' ').append(args[i]);
            }
        }
        return command.append(" --seed ").append(seed).toString();
    }

    private static void progress(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
