package io.neptune.core;

import java.util.Arrays;
import java.util.Locale;

/**
 * What a level-2 or level-3 partition does when its replicas lose sight of each other
 * ({@code docs/protocols/replication.md}, DESIGN §6.3). Level 1 has no primary and ignores it.
 */
public enum FailoverMode {
    /**
     * A write commits only once a majority of the partition's configured replicas (the primary
     * included) logged it durably, and a primary is elected only with a majority's votes. Survives
     * network partitions and paused processes without losing an acknowledged write; a partition
     * whose majority is unreachable takes no writes. The default.
     */
    MAJORITY,
    /**
     * The dissertation's model: a write commits once every live in-sync replica logged it, and a
     * replica that does not answer is treated as dead. Takes writes while any replica lives, but
     * assumes the network never splits and a stopped process stays stopped: a split or a long
     * pause can lose acknowledged writes.
     */
    FAIL_STOP;

    /** The name used in config files: {@code majority} or {@code fail-stop}. */
    public String configName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The mode named {@code name} in config files.
     *
     * @throws IllegalArgumentException naming the value and the accepted ones
     */
    public static FailoverMode fromConfigName(String name) {
        for (FailoverMode mode : values()) {
            if (mode.configName().equals(name)) {
                return mode;
            }
        }
        throw new IllegalArgumentException("failover: '" + name + "' (expected: one of "
                + Arrays.stream(values()).map(FailoverMode::configName).toList() + ")");
    }
}
