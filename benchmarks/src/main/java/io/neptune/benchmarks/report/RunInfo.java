package io.neptune.benchmarks.report;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * When and how a bench produced a report: the header lines {@code Report} writes at the top of
 * {@code docs/benchmarks/<name>.md} ({@code - Date:}, {@code - Machine:}, {@code - Command:}), or the
 * same fields of its JSON summary. Immutable.
 *
 * @param date ISO-8601 instant, or "unknown" when the report has no header
 * @param machine cores, CPU model and JVM
 * @param command the command line that ran the bench
 */
public record RunInfo(String date, String machine, String command) {
    /** A report without a header (hand-made CSVs such as {@code footprint.csv}). */
    public static final RunInfo UNKNOWN = new RunInfo("unknown", "unknown", "unknown");

    public RunInfo {
        requireNonNull(date, "date");
        requireNonNull(machine, "machine");
        requireNonNull(command, "command");
    }

    /** Reads the header lines of a report's Markdown file; fields it lacks stay "unknown". */
    static RunInfo fromMarkdown(String markdown) {
        String date = field(markdown, "- Date: ").orElse(UNKNOWN.date);
        String machine = field(markdown, "- Machine: ").orElse(UNKNOWN.machine);
        String command = field(markdown, "- Command: ").map(c -> c.replace("`", "")).orElse(UNKNOWN.command);
        return new RunInfo(date, machine, command);
    }

    private static Optional<String> field(String markdown, String prefix) {
        return markdown.lines().filter(line -> line.startsWith(prefix)).findFirst()
                .map(line -> line.substring(prefix.length()).trim());
    }

    /** The day of the run ({@code 2026-11-22}), or "date unknown". */
    public String day() {
        return date.length() >= 10 && date.charAt(4) == '-' ? date.substring(0, 10) : "date unknown";
    }

    /** "quick" when the command carried {@code --quick}, "full" when it named a bench without it. */
    public String mode() {
        if (command.equals(UNKNOWN.command)) {
            return "mode unknown";
        }
        return command.contains("--quick") ? "quick" : "full";
    }
}
