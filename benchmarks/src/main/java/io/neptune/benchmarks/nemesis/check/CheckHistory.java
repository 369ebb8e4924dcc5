package io.neptune.benchmarks.nemesis.check;

import static java.util.Objects.requireNonNull;

import io.neptune.benchmarks.nemesis.history.FinalState;
import io.neptune.benchmarks.nemesis.history.Guarantees;
import io.neptune.benchmarks.nemesis.history.History;
import io.neptune.benchmarks.nemesis.history.RunFiles;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.FailoverMode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/**
 * Checks a saved run directory again: reads {@value RunFiles#HISTORY}, {@value RunFiles#FINAL_STATE}
 * (optional) and {@value RunFiles#GUARANTEES} (optional when {@code --level} is given), runs
 * {@link Checkers#checkAll} and prints the Markdown report.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.neptune.benchmarks.nemesis.check.CheckHistory &lt;run dir&gt;
 *     [--level 1|2|3] [--mode majority|fail-stop] [--staleness-ms X] [--slack-ms Y]
 *     [--linearizable-reads] [--max-anomalies N] [--out report.md]
 * </pre>
 * Flags override the saved guarantees. Exit status: 0 valid, 1 invalid, 3 unknown (data missing to
 * decide), 2 bad usage or unreadable files.
 */
public final class CheckHistory {
    private static final String USAGE = "usage: CheckHistory <run dir> [--level 1|2|3] [--mode majority|fail-stop]"
            + " [--staleness-ms X] [--slack-ms Y] [--linearizable-reads] [--max-anomalies N] [--out report.md]";
    private static final int DEFAULT_MAX_ANOMALIES = 20;

    private CheckHistory() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the check; returns the exit status described above. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        try {
            Options options = Options.parse(args);
            Path dir = options.dir();
            History history = RunFiles.readHistory(dir.resolve(RunFiles.HISTORY));
            Path finalFile = dir.resolve(RunFiles.FINAL_STATE);
            FinalState state = Files.exists(finalFile) ? RunFiles.readFinalState(finalFile) : FinalState.empty();
            if (!Files.exists(finalFile)) {
                err.println("CheckHistory: no " + finalFile + ": checking without a final state");
            }
            CheckReport report = Checkers.checkAll(history, state, options.guarantees());
            String markdown = report.markdown(options.maxAnomalies);
            if (options.out != null) {
                Files.writeString(options.out, markdown, StandardCharsets.UTF_8);
            }
            out.print(markdown);
            return switch (report.validity()) {
                case VALID -> 0;
                case INVALID -> 1;
                case UNKNOWN -> 3;
            };
        } catch (IllegalArgumentException | IOException e) {
            err.println("CheckHistory: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
    }

    /** Parsed command line; single use. */
    private static final class Options {
        private @Nullable Path dir;
        private @Nullable Path out;
        private @Nullable ConsistencyLevel level;
        private @Nullable FailoverMode mode;
        private @Nullable Long stalenessMillis;
        private @Nullable Long slackMillis;
        private boolean linearizableReads;
        private int maxAnomalies = DEFAULT_MAX_ANOMALIES;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--level" -> o.level = level(value(args, ++i, arg));
                    case "--mode" -> o.mode = FailoverMode.fromConfigName(value(args, ++i, arg));
                    case "--staleness-ms" -> o.stalenessMillis = number(value(args, ++i, arg), arg);
                    case "--slack-ms" -> o.slackMillis = number(value(args, ++i, arg), arg);
                    case "--linearizable-reads" -> o.linearizableReads = true;
                    case "--max-anomalies" -> o.maxAnomalies = (int) number(value(args, ++i, arg), arg);
                    case "--out" -> o.out = Path.of(value(args, ++i, arg));
                    default -> {
                        if (arg.startsWith("--") || o.dir != null) {
                            throw new IllegalArgumentException("argument: " + arg + " (expected: one run dir and"
                                    + " the options below)");
                        }
                        o.dir = Path.of(arg);
                    }
                }
            }
            if (o.dir == null) {
                throw new IllegalArgumentException("run dir: absent (expected: a directory holding "
                        + RunFiles.HISTORY + ")");
            }
            return o;
        }

        /** The run dir; {@link #parse} requires one. */
        Path dir() {
            return requireNonNull(dir, "dir");
        }

        /** The saved guarantees with the flags applied. */
        Guarantees guarantees() throws IOException {
            Path file = dir().resolve(RunFiles.GUARANTEES);
            Guarantees saved = Files.exists(file) ? RunFiles.readGuarantees(file) : null;
            if (saved == null && level == null) {
                throw new IllegalArgumentException("guarantees: no " + file + " (expected: the file, or --level)");
            }
            ConsistencyLevel l = level != null ? level : requireNonNull(saved, "saved: or level, see above").level();
            FailoverMode m = mode != null ? mode : saved != null ? saved.mode() : FailoverMode.MAJORITY;
            Guarantees base = saved != null && saved.level() == l ? saved : Guarantees.of(l, m);
            return new Guarantees(l, m, stalenessMillis != null ? stalenessMillis : base.stalenessMillis(),
                    slackMillis != null ? slackMillis : base.slackMillis(),
                    linearizableReads || base.linearizableReads());
        }

        private static String value(String[] args, int i, String flag) {
            if (i >= args.length) {
                throw new IllegalArgumentException(flag + ": absent (expected: a value)");
            }
            return args[i];
        }

        private static long number(String value, String flag) {
            try {
                long n = Long.parseLong(value);
                if (n < 0 || n > Integer.MAX_VALUE) {
                    throw new NumberFormatException();
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(flag + ": " + value + " (expected: a non-negative integer)", e);
            }
        }

        private static ConsistencyLevel level(String value) {
            return switch (value) {
                case "1" -> ConsistencyLevel.LEVEL_1;
                case "2" -> ConsistencyLevel.LEVEL_2;
                case "3" -> ConsistencyLevel.LEVEL_3;
                default -> throw new IllegalArgumentException("--level: " + value + " (expected: 1, 2 or 3)");
            };
        }
    }
}
