package io.neptune.core.internal.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BigIntegerNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.neptune.core.ConfigException;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One section of a YAML (or JSON) config file. Every read names the key it wants and its default;
 * {@link #finish()} rejects keys nobody read, so a typo fails at start naming the key.
 *
 * <p>A scalar key outside the lists of sections may also come from a system property or an
 * environment variable named after its path ({@link ConfigSources}), which win over the file, and a
 * string value of the file may hold {@code ${VAR}}, {@code ${VAR:-default}} or {@code ${file:/path}}
 * ({@link ValueExpansion}). Such text is read as the file's would be: {@code 7800} is a number,
 * {@code true} a boolean, {@code 1.5s} a duration.
 *
 * <p>Thread-safety: not thread-safe; used once while loading.
 */
public final class ConfigNode {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s|m|h|d)");
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB)?");
    private static final Pattern INTEGER = Pattern.compile("[-+]?\\d+");
    private static final Pattern DECIMAL = Pattern.compile("[-+]?(\\d+\\.?\\d*|\\.\\d+)([eE][-+]?\\d+)?");

    private final String path;
    private final JsonNode node;
    private final ConfigSources sources;
    /** Whether variables and properties may give this section's keys: not inside a list of sections. */
    private final boolean overlaid;
    private final Set<String> read = new LinkedHashSet<>();

    private ConfigNode(String path, JsonNode node, ConfigSources sources, boolean overlaid) {
        this.path = path;
        this.node = node;
        this.sources = sources;
        this.overlaid = overlaid;
    }

    /** Parses {@code file}, whose keys {@code sources} may also give; an empty file is an empty section. */
    public static ConfigNode load(Path file, ConfigSources sources) {
        try {
            JsonNode root = new YAMLMapper().readTree(Files.readAllBytes(file));
            return of(root == null ? MissingNode.getInstance() : root, sources);
        } catch (NoSuchFileException e) {
            throw new ConfigException("", "config file " + file + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("", "cannot parse " + file + ": " + e.getMessage());
        }
    }

    /** Wraps a parsed document, without variables or properties ({@link ConfigSources#none()}). */
    public static ConfigNode of(JsonNode root) {
        return of(root, ConfigSources.none());
    }

    /** Wraps a parsed document whose keys {@code sources} may also give. */
    public static ConfigNode of(JsonNode root, ConfigSources sources) {
        if (!root.isMissingNode() && !root.isNull() && !root.isObject()) {
            throw new ConfigException("", "the config file must be a mapping of keys to values");
        }
        return new ConfigNode("", root, sources, true);
    }

    private String key(String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    /** The file's own value of {@code name}, as parsed. */
    private JsonNode fileValue(String name) {
        read.add(name);
        JsonNode value = node.path(name);
        return value.isNull() ? MissingNode.getInstance() : value;
    }

    /** The value of scalar key {@code name}: a property's or variable's, else the file's with references expanded. */
    private Value value(String name) {
        read.add(name);
        Optional<String> overlay = overlaid ? sources.lookUp(key(name)) : Optional.empty();
        if (overlay.isPresent()) {
            return new Value(TextNode.valueOf(overlay.get()), true);
        }
        JsonNode value = fileValue(name);
        if (value.isTextual() && ValueExpansion.expands(value.textValue())) {
            return new Value(TextNode.valueOf(expand(name, value.textValue())), true);
        }
        return new Value(value, false);
    }

    private String expand(String name, String text) {
        return ValueExpansion.expand(key(name), text, sources.environment());
    }

    /** A nested section; missing means empty. */
    public ConfigNode section(String name) {
        JsonNode value = fileValue(name);
        if (!value.isMissingNode() && !value.isObject()) {
            throw new ConfigException(key(name), "'" + value.asText() + "' (expected: a mapping of keys to values)");
        }
        return new ConfigNode(key(name), value, sources, overlaid);
    }

    /** A list of sections, from the file only; missing means empty. */
    public List<ConfigNode> sections(String name) {
        JsonNode value = fileValue(name);
        if (value.isMissingNode()) {
            return List.of();
        }
        if (!value.isArray()) {
            throw new ConfigException(key(name), "'" + value.asText() + "' (expected: a list)");
        }
        List<ConfigNode> list = new ArrayList<>();
        for (int i = 0; i < value.size(); i++) {
            JsonNode item = value.get(i);
            if (!item.isObject()) {
                throw new ConfigException(key(name) + "[" + i + "]", "'" + item.asText() + "' (expected: a mapping)");
            }
            list.add(new ConfigNode(key(name) + "[" + i + "]", item, sources, false));
        }
        return list;
    }

    /** The keys present in this section, in file order. */
    public List<String> keys() {
        List<String> keys = new ArrayList<>();
        node.fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    /** Whether {@code name} is present, in the file or (for a scalar key) a variable or property. */
    public boolean has(String name) {
        read.add(name); // a key the parser looks for is a valid key, even where this file leaves it out
        if (overlaid && sources.lookUp(key(name)).isPresent()) {
            return true;
        }
        return node.has(name) && !node.get(name).isNull();
    }

    /** A string value. */
    public String string(String name, String defaultValue) {
        JsonNode value = value(name).node();
        if (value.isMissingNode()) {
            return defaultValue;
        }
        if (!value.isValueNode()) {
            throw new ConfigException(key(name), value + " (expected: a string)");
        }
        return value.asText();
    }

    /** An integer value. */
    public int integer(String name, int defaultValue) {
        JsonNode value = value(name).typed();
        if (value.isMissingNode()) {
            return defaultValue;
        }
        if (!value.canConvertToInt() || !value.isIntegralNumber()) {
            throw new ConfigException(key(name), "'" + value.asText() + "' (expected: an integer)");
        }
        return value.intValue();
    }

    /** An integer of at least {@code min}. */
    public int integer(String name, int defaultValue, int min) {
        int value = integer(name, defaultValue);
        if (value < min) {
            throw new ConfigException(key(name), "'" + value + "' (expected: >= " + min + ")");
        }
        return value;
    }

    /** An integer from {@code min} to {@code max}. */
    public int integer(String name, int defaultValue, int min, int max) {
        int value = integer(name, defaultValue);
        if (value < min || value > max) {
            throw new ConfigException(key(name), "'" + value + "' (expected: " + min + ".." + max + ")");
        }
        return value;
    }

    /** A finite number. */
    public double number(String name, double defaultValue) {
        JsonNode value = value(name).typed();
        if (value.isMissingNode()) {
            return defaultValue;
        }
        if (!value.isNumber() || !Double.isFinite(value.doubleValue())) {
            throw new ConfigException(key(name), "'" + value.asText() + "' (expected: a number)");
        }
        return value.doubleValue();
    }

    /** A boolean value. */
    public boolean bool(String name, boolean defaultValue) {
        JsonNode value = value(name).typed();
        if (value.isMissingNode()) {
            return defaultValue;
        }
        if (!value.isBoolean()) {
            throw new ConfigException(key(name), "'" + value.asText() + "' (expected: true or false)");
        }
        return value.booleanValue();
    }

    /** A duration such as {@code 10ms}, {@code 1s}, {@code 1.5s}, {@code 2m}, {@code 90d}. */
    public Duration duration(String name, Duration defaultValue) {
        String text = string(name, "");
        if (text.isEmpty()) {
            return defaultValue;
        }
        return parseDuration(key(name), text);
    }

    /** Parses a duration such as {@code 250ms}, {@code 1.5s} or {@code 90d}, naming {@code key} on error. */
    public static Duration parseDuration(String key, String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new ConfigException(key, "'" + text + "' (expected: a duration such as 10ms, 1s, 1.5s, 2m or 90d)");
        }
        double amount = Double.parseDouble(m.group(1));
        double nanos = switch (m.group(2)) {
            case "ns" -> amount;
            case "us" -> amount * 1e3;
            case "ms" -> amount * 1e6;
            case "s" -> amount * 1e9;
            case "m" -> amount * 60e9;
            case "h" -> amount * 3600e9;
            default -> amount * 86_400e9;
        };
        return Duration.ofNanos((long) nanos);
    }

    /** A size in bytes such as {@code 4MiB}, {@code 64KiB} or {@code 1024}. */
    public int size(String name, int defaultValue) {
        String text = string(name, "");
        if (text.isEmpty()) {
            return defaultValue;
        }
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new ConfigException(key(name), "'" + text + "' (expected: a size such as 65536, 64KiB or 4MiB)");
        }
        long unit = m.group(2) == null ? 1 : switch (m.group(2)) {
            case "KiB" -> 1024L;
            case "MiB" -> 1024L * 1024;
            case "GiB" -> 1024L * 1024 * 1024;
            default -> 1L;
        };
        long bytes = Long.parseLong(m.group(1)) * unit;
        if (bytes > Integer.MAX_VALUE) {
            throw new ConfigException(key(name), "'" + text + "' (expected: < 2GiB)");
        }
        return (int) bytes;
    }

    /** An enum value written in lower case with dashes, e.g. {@code random-polling}. */
    public <E extends Enum<E>> E choice(String name, Class<E> type, E defaultValue) {
        String text = string(name, "");
        if (text.isEmpty()) {
            return defaultValue;
        }
        for (E constant : type.getEnumConstants()) {
            if (constant.name().toLowerCase(Locale.ROOT).replace('_', '-').equals(text)) {
                return constant;
            }
        }
        List<String> names = new ArrayList<>();
        for (E constant : type.getEnumConstants()) {
            names.add(constant.name().toLowerCase(Locale.ROOT).replace('_', '-'));
        }
        throw new ConfigException(key(name), "'" + text + "' (expected: one of " + String.join(", ", names) + ")");
    }

    /**
     * A list of strings; a single string is a list of one. A variable or property gives the list
     * comma-separated ({@code 10.0.0.1:7800,10.0.0.2:7800}).
     */
    public List<String> strings(String name) {
        return strings(name, true);
    }

    /**
     * {@link #strings} with the file's text taken as written, no {@code ${...}} expanded: for a
     * command template, where a shell's {@code ${x}} belongs to the shell.
     */
    public List<String> literalStrings(String name) {
        return strings(name, false);
    }

    private List<String> strings(String name, boolean expand) {
        read.add(name);
        List<String> list = new ArrayList<>();
        Optional<String> overlay = overlaid ? sources.lookUp(key(name)) : Optional.empty();
        if (overlay.isPresent()) {
            for (String item : overlay.get().split(",", -1)) {
                if (!item.isBlank()) {
                    list.add(item.strip());
                }
            }
            return list;
        }
        JsonNode value = fileValue(name);
        if (value.isMissingNode()) {
            return list;
        }
        if (value.isValueNode()) {
            list.add(expand && value.isTextual() ? expand(name, value.textValue()) : value.asText());
        } else if (value.isArray()) {
            value.forEach(item -> list.add(expand && item.isTextual() ? expand(name, item.textValue()) : item.asText()));
        } else {
            throw new ConfigException(key(name), value + " (expected: a list of values)");
        }
        return list;
    }

    /** Runs {@code build}, turning an {@link IllegalArgumentException} into a {@link ConfigException} for this section. */
    public <T> T build(Function<ConfigNode, T> build) {
        try {
            return build.apply(this);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(path, Objects.requireNonNullElse(e.getMessage(), e.toString()));
        }
    }

    /**
     * Rejects every key that was never read, naming it and the valid keys. At the root it also
     * rejects a {@code NEPTUNE_*} variable or {@code neptune.*} property that names no key read
     * anywhere ({@link ConfigSources}), so the root is finished after every section is read.
     */
    public void finish() {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!read.contains(name)) {
                throw new ConfigException(key(name), "unknown key (expected: one of " + String.join(", ", read) + ")");
            }
        }
        if (path.isEmpty()) {
            sources.rejectUnused();
        }
    }

    /** The dotted path of this section; empty for the root. */
    public String path() {
        return path;
    }

    /**
     * A value read for a key, and whether it is text from outside YAML's typing (a variable, a
     * property or an expanded reference), which {@link #typed()} reads as YAML reads a plain scalar.
     */
    private record Value(JsonNode node, boolean text) {
        JsonNode typed() {
            if (!text) {
                return node;
            }
            String trimmed = node.asText().strip();
            if (trimmed.equals("true") || trimmed.equals("false")) {
                return BooleanNode.valueOf(trimmed.equals("true"));
            }
            if (INTEGER.matcher(trimmed).matches()) {
                return BigIntegerNode.valueOf(new BigInteger(trimmed));
            }
            if (DECIMAL.matcher(trimmed).matches()) {
                return DoubleNode.valueOf(Double.parseDouble(trimmed));
            }
            return node;
        }
    }
}
