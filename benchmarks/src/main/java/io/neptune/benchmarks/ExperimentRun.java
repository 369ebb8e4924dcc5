package io.neptune.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The frame of one experiment run from the repository root: where the reports go, and the run
 * time and host load average that every report states. Thread-safety: use from one thread.
 */
public final class ExperimentRun {
    private final Path root;
    private final String loadBefore;
    private final long began;

    private ExperimentRun(Path root, String loadBefore) {
        this.root = root;
        this.loadBefore = loadBefore;
        this.began = System.nanoTime();
    }

    /** Checks that the working directory is the repository root and prints {@code what} with the load average. */
    public static ExperimentRun begin(String what) {
        Path root = Report.repositoryRoot();
        ExperimentRun run = new ExperimentRun(root, Report.loadAverage());
        System.out.printf(Locale.ROOT, "%s; load average %s%n", what, run.loadBefore);
        return run;
    }

    /** The repository root. */
    public Path root() {
        return root;
    }

    /** Prints the run time and the load averages, and returns them as a sentence for the reports. */
    public String finish() {
        double minutes = (System.nanoTime() - began) / 60e9;
        String loadAfter = Report.loadAverage();
        System.out.printf(Locale.ROOT, "done in %.1f min; load average %s at start, %s at end%n", minutes, loadBefore,
                loadAfter);
        return String.format(Locale.ROOT, "Run time %.1f min; load average (1, 5, 15 min) %s at start and %s"
                + " at the end (other work shares this host).", minutes, loadBefore, loadAfter);
    }

    /**
     * Whether {@code args} ask for the quick mode: {@code --quick}, or nothing for the full mode.
     *
     * @throws IllegalArgumentException naming any other argument
     */
    public static boolean quick(String... args) {
        boolean quick = false;
        for (String arg : args) {
            if (!arg.equals("--quick")) {
                throw new IllegalArgumentException("argument: '" + arg + "' (expected: --quick or nothing)");
            }
            quick = true;
        }
        return quick;
    }

    /** The command line that reproduces the run: {@code ./neptune bench <experiment>} and {@code args}. */
    public static String command(String experiment, String[] args) {
        return "./neptune bench " + experiment + (args.length == 0 ? "" : " " + String.join(" ", args));
    }

    /**
     * {@code git rev-parse --short HEAD} in {@code root}, marked when the working tree has
     * uncommitted changes to tracked files, or "unknown" without git.
     */
    public static String gitHead(Path root) {
        String head = git(root, "rev-parse", "--short", "HEAD");
        if (head.isEmpty()) {
            return "unknown";
        }
        return git(root, "status", "--porcelain", "--untracked-files=no").isEmpty() ? head
                : head + " (with uncommitted changes)";
    }

    /** The trimmed output of a git command, or "" if it failed. */
    private static String git(Path root, String... args) {
        List<String> command = new ArrayList<>(List.of("git"));
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).directory(root.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return process.waitFor() == 0 ? output : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }
}
