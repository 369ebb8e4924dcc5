package io.neptune.core.internal.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.neptune.core.ConfigException;
import java.io.IOException;
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
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One section of a YAML (or JSON) config file. Every read names the key it wants and its default;
 * {@link #finish()} rejects keys nobody read, so a typo fails at start naming the key.
 *
 * <p>Thread-safety: not thread-safe; used once while loading.
 */
public final class ConfigNode {
    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(ns|us|ms|s|m|h|d)");
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(B|KiB|MiB|GiB)?");

    private final String path;
    private final JsonNode node;
    private final Set<String> read = new LinkedHashSet<>();

    private ConfigNode(String path, JsonNode node) {
        this.path = path;
        this.node = node;
    }

    /** Parses {@code file}; an empty file is an empty section. */
    public static ConfigNode load(Path file) {
        try {
            JsonNode root = new YAMLMapper().readTree(Files.readAllBytes(file));
            return of(root == null ? MissingNode.getInstance() : root);
        } catch (NoSuchFileException e) {
            throw new ConfigException("", "config file " + file + " does not exist");
        } catch (IOException e) {
            throw new ConfigException("", "cannot parse " + file + ": " + e.getMessage());
        }
    }

    /** Wraps a parsed document. */
    public static ConfigNode of(JsonNode root) {
        if (!root.isMissingNode() && !root.isNull() && !root.isObject()) {
            throw new ConfigException("", "the config file must be a mapping of keys to values");
        }
        return new ConfigNode("", root);
    }

    private String key(String name) {
        return path.isEmpty() ? name : path + "." + name;
    }

    private JsonNode value(String name) {
        read.add(name);
        JsonNode value = node.path(name);
        return value.isNull() ? MissingNode.getInstance() : value;
    }

    /** A nested section; missing means empty. */
    public ConfigNode section(String name) {
        JsonNode value = value(name);
        if (!value.isMissingNode() && !value.isObject()) {
            throw new ConfigException(key(name), "'" + value.asText() + "' (expected: a mapping of keys to values)");
        }
        return new ConfigNode(key(name), value);
    }

    /** A list of sections; missing means empty. */
    public List<ConfigNode> sections(String name) {
        JsonNode value = value(name);
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
            list.add(new ConfigNode(key(name) + "[" + i + "]", item));
        }
        return list;
    }

    /** The keys present in this section, in file order. */
    public List<String> keys() {
        List<String> keys = new ArrayList<>();
        node.fieldNames().forEachRemaining(keys::add);
        return keys;
    }

    /** Whether {@code name} is present. */
    public boolean has(String name) {
        read.add(name); // a key the parser looks for is a valid key, even where this file leaves it out
        return node.has(name) && !node.get(name).isNull();
    }

    /** A string value. */
    public String string(String name, String defaultValue) {
        JsonNode value = value(name);
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
        JsonNode value = value(name);
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
        JsonNode value = value(name);
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
        JsonNode value = value(name);
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

    /** A list of strings; a single string is a list of one. */
    public List<String> strings(String name) {
        JsonNode value = value(name);
        List<String> list = new ArrayList<>();
        if (value.isMissingNode()) {
            return list;
        }
        if (value.isValueNode()) {
            list.add(value.asText());
        } else if (value.isArray()) {
            value.forEach(item -> list.add(item.asText()));
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

    /** Rejects every key that was never read, naming it and the valid keys. */
    public void finish() {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!read.contains(name)) {
                throw new ConfigException(key(name), "unknown key (expected: one of " + String.join(", ", read) + ")");
            }
        }
    }

    /** The dotted path of this section; empty for the root. */
    public String path() {
        return path;
    }
}
