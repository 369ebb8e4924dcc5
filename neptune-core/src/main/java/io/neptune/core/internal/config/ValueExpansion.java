package io.neptune.core.internal.config;

import io.neptune.core.ConfigException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Expands the references in a string value of a config file: {@code ${VAR}} is the environment
 * variable {@code VAR}, {@code ${VAR:-default}} the same or {@code default} where {@code VAR} is
 * unset or empty, {@code ${file:/path}} the content of that file, trimmed (a secret file usually ends
 * in a newline); {@code $${} is a literal {@code ${}. Anything else after {@code ${} is refused, so a
 * shell's {@code ${#out}} in a process command must be written {@code $${#out}}.
 *
 * <p>Thread-safety: stateless.
 */
final class ValueExpansion {
    private static final Pattern VARIABLE = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?", Pattern.DOTALL);
    private static final String FILE = "file:";

    private ValueExpansion() {}

    /** Whether {@code text} holds anything to expand or unescape. */
    static boolean expands(String text) {
        return text.contains("${");
    }

    /** {@code text} with its references replaced, for the value of {@code key}. */
    static String expand(String key, String text, Map<String, String> environment) {
        StringBuilder out = new StringBuilder(text.length());
        int i = 0;
        while (i < text.length()) {
            if (text.startsWith("$${", i)) {
                out.append("${");
                i += 3;
                continue;
            }
            if (!text.startsWith("${", i)) {
                out.append(text.charAt(i++));
                continue;
            }
            int end = text.indexOf('}', i + 2);
            if (end < 0) {
                throw new ConfigException(key, "'" + text + "' has a '${' without its '}' (expected: ${VAR},"
                        + " ${VAR:-default} or ${file:/path}; $${ for a literal ${)");
            }
            out.append(reference(key, text.substring(i + 2, end), environment));
            i = end + 1;
        }
        return out.toString();
    }

    private static String reference(String key, String reference, Map<String, String> environment) {
        if (reference.startsWith(FILE)) {
            return file(key, reference, reference.substring(FILE.length()));
        }
        Matcher m = VARIABLE.matcher(reference);
        if (!m.matches()) {
            throw new ConfigException(key, "'${" + reference + "}' (expected: ${VAR}, ${VAR:-default} or"
                    + " ${file:/path}; $${ for a literal ${, such as a shell's $${#out})");
        }
        String variable = m.group(1);
        String value = environment.get(variable);
        if (value != null && !value.isEmpty()) {
            return value;
        }
        if (m.group(2) != null) {
            return m.group(2);
        }
        throw new ConfigException(key, "'${" + reference + "}': environment variable " + variable + " is "
                + (value == null ? "not set" : "empty") + " (expected: set, or a default such as ${" + variable
                + ":-value})");
    }

    private static String file(String key, String reference, String path) {
        if (path.isBlank()) {
            throw new ConfigException(key, "'${" + reference + "}' names no file (expected: ${file:/path})");
        }
        try {
            return Files.readString(Path.of(path), StandardCharsets.UTF_8).strip();
        } catch (IOException | InvalidPathException e) {
            throw new ConfigException(key, "'${" + reference + "}': file " + path + " cannot be read ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }
}
