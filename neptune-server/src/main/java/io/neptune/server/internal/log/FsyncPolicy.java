package io.neptune.server.internal.log;

import static java.util.Objects.requireNonNull;

import java.util.Locale;

/**
 * When an append to a {@link RedoLog} counts as durable, that is, when its future completes. The
 * default is {@link #GROUP}.
 */
public enum FsyncPolicy {
    /** Each record is written and forced to the device on its own before its append completes. */
    ALWAYS,
    /**
     * Each append completes only after a force that covers it, but appends that queue up while the
     * writer is busy share one force: the writer drains its queue, writes everything, forces once
     * and completes all of them. As durable as {@link #ALWAYS}, with far fewer forces under load.
     */
    GROUP,
    /**
     * Records are written to the file and the OS flushes them when it likes. An acknowledged record
     * survives a process kill (it is in the page cache) but not a power loss or kernel crash.
     */
    NONE;

    /** The default policy: {@link #GROUP}. */
    public static final FsyncPolicy DEFAULT = GROUP;

    /** The name used in config files: {@code always}, {@code group} or {@code none}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Returns the policy with the config name {@code name}, ignoring case. */
    public static FsyncPolicy ofConfigName(String name) {
        requireNonNull(name, "name");
        for (FsyncPolicy policy : values()) {
            if (policy.configName().equalsIgnoreCase(name.trim())) {
                return policy;
            }
        }
        throw new IllegalArgumentException("fsync policy: '" + name + "' (expected: always, group or none)");
    }
}
