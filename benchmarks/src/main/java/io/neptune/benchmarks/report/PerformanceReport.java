package io.neptune.benchmarks.report;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code ./neptune bench report}: renders the generated tables of {@code docs/PERFORMANCE.md} from
 * the committed reports under {@code docs/benchmarks/} and rewrites them between their markers
 * (see {@link GeneratedSections}), printing the lines it removed and added. With {@code --check} it
 * changes nothing and exits 1 when a table differs from what the data give.
 *
 * <p>The generated section is {@value #SUMMARY}: the Summary's table of every figure. RELIABILITY.md's
 * nemesis campaign table is not generated: the campaigns' results are committed only as prose.
 */
public final class PerformanceReport {
    /** The name of the Summary's generated section. */
    static final String SUMMARY = "summary";

    private final Path root;

    private PerformanceReport(Path root) {
        this.root = root;
    }

    /** The report of the repository at {@code root}. */
    static PerformanceReport of(Path root) {
        return new PerformanceReport(root);
    }

    /** The Summary table as the committed data give it. */
    String renderSummary() {
        BenchData data = BenchData.in(root.resolve("docs").resolve("benchmarks"));
        return SummaryTable.render(SummaryTable.evaluate(SummaryTable.allRows(), data), data);
    }

    /** The PERFORMANCE.md file. */
    Path performance() {
        return root.resolve("docs").resolve("PERFORMANCE.md");
    }

    /**
     * Rewrites the generated section of PERFORMANCE.md when it differs, printing the change to
     * {@code out}; returns whether it differed. With {@code write} false it only compares.
     */
    boolean update(boolean write, PrintStream out) {
        try {
            String document = Files.readString(performance());
            String rendered = renderSummary();
            String current = GeneratedSections.content(document, SUMMARY);
            if (current.equals(rendered)) {
                out.println("docs/PERFORMANCE.md: the " + SUMMARY + " table is up to date");
                return false;
            }
            out.println("docs/PERFORMANCE.md: the " + SUMMARY + " table " + (write ? "rewritten" : "differs") + ":");
            for (String line : changedLines(current, rendered)) {
                out.println(line);
            }
            if (write) {
                Files.writeString(performance(), GeneratedSections.replace(document, SUMMARY, rendered));
            }
            return true;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot update " + performance(), e);
        }
    }

    /** The lines only the old text has ("- ") and only the new one has ("+ "). */
    static List<String> changedLines(String before, String after) {
        Set<String> old = new LinkedHashSet<>(before.lines().toList());
        Set<String> now = new LinkedHashSet<>(after.lines().toList());
        List<String> changes = new ArrayList<>();
        old.stream().filter(line -> !now.contains(line)).forEach(line -> changes.add("- " + line));
        now.stream().filter(line -> !old.contains(line)).forEach(line -> changes.add("+ " + line));
        return changes;
    }

    /**
     * Whether {@code args} ask only to check ({@code --check}); no arguments rewrite the tables.
     *
     * @throws IllegalArgumentException naming an argument it does not know, so that a mistyped
     *     {@code --check} does not rewrite the tables
     */
    static boolean checkOnly(String[] args) {
        boolean check = false;
        for (String arg : args) {
            if (!arg.equals("--check")) {
                throw new IllegalArgumentException("argument: " + arg + " (expected: none, or --check)");
            }
            check = true;
        }
        return check;
    }

    /** Runs from the repository root: {@code [--check]}. */
    public static void main(String[] args) {
        boolean check;
        try {
            check = checkOnly(args);
        } catch (IllegalArgumentException e) {
            System.err.println("bench report: " + e.getMessage());
            Runtime.getRuntime().exit(2);
            return;
        }
        Path root = Path.of("").toAbsolutePath();
        if (!Files.isDirectory(root.resolve("docs").resolve("benchmarks"))) {
            throw new IllegalStateException("run from the repository root (no docs/benchmarks in " + root + ")");
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        boolean changed = of(root).update(!check, out);
        if (check && changed) {
            Runtime.getRuntime().exit(1);
        }
    }
}
