package io.neptune.core;

/** Thrown at start when a configuration key or value is wrong; the message names the key. */
public final class ConfigException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String key;

    /** Creates the exception for {@code key} (a dotted path such as {@code membership.stack}). */
    public ConfigException(String key, String problem) {
        super(key.isEmpty() ? problem : key + ": " + problem);
        this.key = key;
    }

    /** The dotted path of the offending key; empty for the file as a whole. */
    public String key() {
        return key;
    }
}
