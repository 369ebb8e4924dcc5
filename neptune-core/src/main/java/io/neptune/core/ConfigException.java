package io.neptune.core;

import static java.util.Objects.requireNonNull;

/**
 * Thrown at start when a configuration key or value is wrong; the message names the key and,
 * where known, the source of the value: {@code node.yaml: membership.stack: 'udpp' (expected: ...)},
 * {@code environment variable NEPTUNE_MEMBERSHIP_STACK: membership.stack: ...}.
 */
public final class ConfigException extends NeptuneException {
    private static final long serialVersionUID = 2L;

    private final String source;
    private final String key;
    private final String problem;

    /** Creates the exception for {@code key} (a dotted path such as {@code membership.stack}). */
    public ConfigException(String key, String problem) {
        this("", key, problem);
    }

    /**
     * Creates the exception for {@code key} whose value came from {@code source}: a file's path, {@code environment
     * variable NEPTUNE_...} or {@code system property neptune....}; empty if unknown.
     */
    public ConfigException(String source, String key, String problem) {
        super(message(source, key, problem));
        this.source = requireNonNull(source, "source");
        this.key = requireNonNull(key, "key");
        this.problem = requireNonNull(problem, "problem");
    }

    private static String message(String source, String key, String problem) {
        String keyed = key.isEmpty() ? problem : key + ": " + problem;
        return source.isEmpty() ? keyed : source + ": " + keyed;
    }

    /**
     * The dotted path of the offending key; empty for the file as a whole, or for a variable or property
     * that names no key.
     */
    public String key() {
        return key;
    }

    /** Where the offending value came from, as the message names it; empty if the message names no source. */
    public String source() {
        return source;
    }

    /** This error with {@code source} named in its message, or this error if it names a source already. */
    public ConfigException withSource(String source) {
        if (!this.source.isEmpty() || source.isEmpty()) {
            return this;
        }
        ConfigException sourced = new ConfigException(source, key, problem);
        sourced.setStackTrace(getStackTrace());
        return sourced;
    }
}
