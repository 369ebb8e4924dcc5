package io.neptune.core.internal.config;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ClusterSecret;
import io.neptune.core.ConfigException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Where a config document's values come from besides the document itself: an environment variable
 * ({@code NEPTUNE_} + the key path upper-cased, {@code .} and {@code -} as {@code _}) or a system
 * property ({@code neptune.} + the key path) may give any scalar key, the property first; and
 * {@code ${VAR}} in the document reads the environment ({@link ValueExpansion}). It remembers the
 * names it looked up, so a {@code NEPTUNE_*} variable or {@code neptune.*} property that names no key
 * is refused ({@link #rejectUnused()}), and which source gave each key, so an error names it
 * ({@link #attribute}).
 *
 * <p>Thread-safety: not thread-safe; used once while loading.
 */
public final class ConfigSources {
    /** The prefix of a variable that names a key. */
    public static final String ENVIRONMENT_PREFIX = "NEPTUNE_";
    /** The prefix of a system property that names a key. */
    public static final String PROPERTY_PREFIX = "neptune.";
    /**
     * The variables with {@link #ENVIRONMENT_PREFIX} that are not config keys, and so are never refused: the
     * launchers' own ({@code ./neptune}, {@code bin/neptune}), the log format their Logback configs read,
     * and the cluster secret, which its own rule reads.
     */
    public static final Set<String> NOT_KEYS = Set.of("NEPTUNE_JAVA_OPTS", "NEPTUNE_CLASSPATH", "NEPTUNE_LOG_FORMAT",
            ClusterSecret.ENVIRONMENT_VARIABLE);
    /**
     * The system properties with {@link #PROPERTY_PREFIX} that are not config keys, and so are never refused:
     * the log format and Neptune's log level, read by the Logback configs of the distribution and the demo.
     */
    public static final Set<String> NOT_KEY_PROPERTIES = Set.of("neptune.log.format", "neptune.log.level");

    private final String file;
    private final Map<String, String> environment;
    private final Map<String, String> properties;
    /** Variable or property name → the key it names, for every key looked up. */
    private final Map<String, String> lookedUp = new HashMap<>();
    /** Key path → the variable or property that gave its value. */
    private final Map<String, String> origins = new LinkedHashMap<>();

    private ConfigSources(String file, Map<String, String> environment, Map<String, String> properties) {
        this.file = requireNonNull(file, "file");
        this.environment = Map.copyOf(environment);
        this.properties = Map.copyOf(properties);
    }

    /**
     * The sources of a document read from {@code file} (named in errors as given; empty for a document
     * not read from a file), with {@code environment} and the system {@code properties} as maps so
     * that tests need not change the process's own.
     */
    public static ConfigSources of(String file, Map<String, String> environment, Map<String, String> properties) {
        return new ConfigSources(file, environment, properties);
    }

    /** No file name, no variables, no properties: the document alone (and {@code ${VAR}} finds nothing). */
    public static ConfigSources none() {
        return of("", Map.of(), Map.of());
    }

    /** The environment {@code ${VAR}} reads. */
    Map<String, String> environment() {
        return environment;
    }

    /** The variable that names {@code key}: {@code bind-address} → {@code NEPTUNE_BIND_ADDRESS}. */
    public static String variable(String key) {
        return ENVIRONMENT_PREFIX + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The system property that names {@code key}: {@code membership.stack} → {@code neptune.membership.stack}. */
    public static String property(String key) {
        return PROPERTY_PREFIX + key;
    }

    /**
     * The value the system property, else the variable, gives {@code key}; empty if neither is set.
     * Either way the names count as looked up, and the key's source is remembered.
     */
    Optional<String> lookUp(String key) {
        String property = property(key);
        String variable = variable(key);
        lookedUp.put(property, key);
        lookedUp.put(variable, key);
        if (properties.containsKey(property)) {
            origins.put(key, "system property " + property);
            return Optional.of(properties.get(property));
        }
        if (environment.containsKey(variable)) {
            origins.put(key, "environment variable " + variable);
            return Optional.of(environment.get(variable));
        }
        return Optional.empty();
    }

    /** Key path → the variable or property that gave its value, for every key one gave, in the order read. */
    public Map<String, String> origins() {
        return Collections.unmodifiableMap(new LinkedHashMap<>(origins));
    }

    /**
     * Refuses the first {@code NEPTUNE_*} variable (but {@link #NOT_KEYS}) and {@code neptune.*}
     * property (but {@link #NOT_KEY_PROPERTIES}) that names no key looked up; call it once every key has been read.
     */
    void rejectUnused() {
        for (String variable : new TreeMap<>(environment).keySet()) {
            if (variable.startsWith(ENVIRONMENT_PREFIX) && !NOT_KEYS.contains(variable)
                    && !lookedUp.containsKey(variable)) {
                throw unused("environment variable " + variable, variable, ENVIRONMENT_PREFIX);
            }
        }
        for (String property : new TreeMap<>(properties).keySet()) {
            if (property.startsWith(PROPERTY_PREFIX) && !NOT_KEY_PROPERTIES.contains(property)
                    && !lookedUp.containsKey(property)) {
                throw unused("system property " + property, property, PROPERTY_PREFIX);
            }
        }
    }

    private ConfigException unused(String source, String name, String prefix) {
        List<String> nearest = new ArrayList<>();
        int longest = -1;
        for (String known : new TreeMap<>(lookedUp).keySet()) {
            if (!known.startsWith(prefix)) {
                continue;
            }
            int common = commonPrefix(known, name);
            if (common > longest) {
                longest = common;
                nearest.clear();
            }
            if (common == longest) {
                nearest.add(known);
            }
        }
        String examples = nearest.size() > 6 ? String.join(", ", nearest.subList(0, 6)) + ", ..."
                : String.join(", ", nearest);
        return new ConfigException(source, "", "names no config key (expected: " + prefix + " and the path of a"
                + " scalar key of docs/CONFIGURATION.md, such as " + examples + "; sections and the lists services"
                + " and classes come only from the file)");
    }

    private static int commonPrefix(String a, String b) {
        int i = 0;
        while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return i;
    }

    /**
     * {@code error} with the source of its value named: the variable or property that gave its key,
     * else the file. An error about a whole section (a builder's check of several keys) names the file
     * and every variable or property that gave one of the section's keys. An error that names a
     * variable itself (such as {@code NEPTUNE_CLUSTER_SECRET}) is left as it is.
     */
    public ConfigException attribute(ConfigException error) {
        String key = error.key();
        if (!error.source().isEmpty() || environment.containsKey(key)) {
            return error;
        }
        String origin = origins.get(key);
        if (origin != null) {
            return error.withSource(origin);
        }
        List<String> sources = new ArrayList<>();
        if (!file.isEmpty()) {
            sources.add(file);
        }
        origins.forEach((overlaid, source) -> {
            if (parent(overlaid).equals(key)) {
                sources.add(source);
            }
        });
        return error.withSource(String.join(" and ", sources));
    }

    private static String parent(String key) {
        int dot = key.lastIndexOf('.');
        return dot < 0 ? "" : key.substring(0, dot);
    }
}
