package io.neptune.server.process.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Placeholders in a process service's command, working directory and environment:
 * {@code {partition}}, {@code {partitions}}, {@code {service}} and {@code {node}} anywhere, and the
 * whole-element {@code {args}} (the request's arguments) and {@code {partition-args}} (the
 * partition's configured arguments) in the command. A placeholder is a lower-case name in braces
 * not preceded by {@code $} (so a shell's {@code ${x}} is left alone); {@code {{name}}} is the
 * literal text {@code {name}}, for an awk program such as {@code {{print}}}.
 *
 * <p>Thread-safety: stateless.
 */
public final class CommandTemplate {
    /** The element replaced by the request's arguments. */
    public static final String ARGS = "{args}";
    /** The element replaced by the partition's configured arguments. */
    public static final String PARTITION_ARGS = "{partition-args}";
    /** The placeholders allowed inside any text. */
    public static final Set<String> VALUES = Set.of("partition", "partitions", "service", "node");

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([a-z][a-z0-9-]*)}}|(?<!\\$)\\{([a-z][a-z0-9-]*)}");
    private static final String EXPECTED = "{partition}, {partitions}, {service}, {node}";

    private CommandTemplate() {}

    /**
     * Throws an {@link IllegalArgumentException} naming {@code key} if {@code text} has an unknown
     * placeholder, or an element-only one ({@code {args}}, {@code {partition-args}}) unless
     * {@code elements} lists it and {@code text} is exactly it.
     */
    public static void check(String key, String text, Set<String> elements) {
        if (elements.contains(text)) {
            return;
        }
        Matcher m = PLACEHOLDER.matcher(text);
        while (m.find()) {
            String name = m.group(2);
            if (name == null || VALUES.contains(name)) {
                continue;
            }
            String placeholder = "{" + name + "}";
            if (placeholder.equals(ARGS) || placeholder.equals(PARTITION_ARGS)) {
                throw new IllegalArgumentException(key + ": '" + text + "' (expected: " + placeholder
                        + (elements.contains(placeholder) ? " as a whole element of the command, alone"
                                : " only in a command" + (placeholder.equals(ARGS) ? " of mode per-request" : ""))
                        + ")");
            }
            throw new IllegalArgumentException(key + ": unknown placeholder " + placeholder + " in '" + text
                    + "' (expected: one of " + EXPECTED + (elements.isEmpty() ? "" : ", " + String.join(", ", elements))
                    + "; write {" + placeholder + "} for the literal text " + placeholder + ")");
        }
    }

    /** Replaces the value placeholders in {@code text} with {@code values} and unescapes {@code {{name}}}. */
    public static String substitute(String text, Map<String, String> values) {
        Matcher m = PLACEHOLDER.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String replacement = m.group(1) != null ? "{" + m.group(1) + "}" : values.getOrDefault(m.group(2), m.group());
            m.appendReplacement(out, Matcher.quoteReplacement(replacement));
        }
        m.appendTail(out);
        return out.toString();
    }

    /** The argument vector of {@code command}: values substituted, the two element placeholders expanded. */
    public static List<String> expand(List<String> command, Map<String, String> values, List<String> partitionArgs,
            List<String> args) {
        List<String> argv = new ArrayList<>();
        for (String element : command) {
            if (element.equals(ARGS)) {
                argv.addAll(args);
            } else if (element.equals(PARTITION_ARGS)) {
                for (String arg : partitionArgs) {
                    argv.add(substitute(arg, values));
                }
            } else {
                argv.add(substitute(element, values));
            }
        }
        return argv;
    }
}
