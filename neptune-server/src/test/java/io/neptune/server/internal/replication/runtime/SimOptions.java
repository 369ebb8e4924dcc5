package io.neptune.server.internal.replication.runtime;

import io.neptune.server.LogRetentionConfig;
import java.time.Duration;
import java.util.Locale;

/**
 * What one simulated cluster runs: the replication mode and level, how many replicas, how many
 * events before the faults stop and the cluster must converge, whether faults are injected, and
 * whether the service is durable and {@code Snapshottable} (the replicas then checkpoint, truncate
 * their logs and install snapshots) or volatile.
 */
record SimOptions(Mode mode, int replicas, long steps, boolean faults, boolean snapshots) {
    /** The ack timeout of the replicas, the node's default. */
    static final Duration ACK_TIMEOUT = Duration.ofSeconds(2);
    /** The level-3 staleness bound. */
    static final Duration STALENESS = Duration.ofSeconds(1);
    /**
     * The log retention of durable services: a checkpoint every 20 records and at most 60 kept, so
     * that replicas that were away for a while need a snapshot.
     */
    static final LogRetentionConfig RETENTION = new LogRetentionConfig(60, 20);

    /** Every mode at every level it has. */
    enum Mode {
        MAJORITY_LEVEL_2(true, true),
        MAJORITY_LEVEL_3(true, true),
        FAIL_STOP_LEVEL_2(true, false),
        FAIL_STOP_LEVEL_3(true, false),
        WRITE_ANYWHERE_LEVEL_1(false, true);

        private final boolean partitionLsns;
        private final boolean survivesSplits;

        Mode(boolean partitionLsns, boolean survivesSplits) {
            this.partitionLsns = partitionLsns;
            this.survivesSplits = survivesSplits;
        }

        /** Whether LSNs number the partition's writes (levels 2 and 3), not each replica's own (level 1). */
        boolean partitionLsns() {
            return partitionLsns;
        }

        /**
         * Whether the mode promises to survive network splits and lossy links: fail-stop does not (a
         * secondary that does not answer is taken for dead, docs/RELIABILITY.md).
         */
        boolean survivesSplits() {
            return survivesSplits;
        }

        boolean levelThree() {
            return this == MAJORITY_LEVEL_3 || this == FAIL_STOP_LEVEL_3;
        }

        /** Its name on the command line: {@code majority-2}, {@code fail-stop-3}, {@code write-anywhere-1}. */
        String cliName() {
            String[] words = name().toLowerCase(Locale.ROOT).split("_level_");
            return words[0].replace('_', '-') + "-" + words[1];
        }

        static Mode ofCliName(String name) {
            for (Mode m : values()) {
                if (m.cliName().equals(name)) {
                    return m;
                }
            }
            throw new IllegalArgumentException("mode: " + name + " (expected one of: majority-2, majority-3,"
                    + " fail-stop-2, fail-stop-3, write-anywhere-1)");
        }
    }

    /**
     * The replica of this mode over {@code core}; in majority mode a {@code learner} (a replica an
     * operator added, which counts for nothing until a configuration names it).
     */
    PartitionReplica newReplica(ReplicaCore core, int priority, boolean learner) {
        ReplicaSettings settings = new ReplicaSettings(priority, replicas, ACK_TIMEOUT,
                mode.levelThree() ? STALENESS : null, learner);
        return switch (mode) {
            case MAJORITY_LEVEL_2, MAJORITY_LEVEL_3 -> new MajorityReplica(core, settings);
            case FAIL_STOP_LEVEL_2, FAIL_STOP_LEVEL_3 -> new PrimaryBackupReplica(core, settings);
            case WRITE_ANYWHERE_LEVEL_1 -> new WriteAnywhereReplica(core, settings);
        };
    }
}
