package io.neptune.core;

/**
 * The role a replica plays for its partition, as the yellow page announces it and
 * {@code ClusterAdmin} reports it.
 */
public enum ReplicaRole {
    /** Takes the partition's writes (levels 2 and 3). */
    PRIMARY,
    /** Serves reads and receives writes from the primary; also every replica of an unreplicated level-1 service. */
    SECONDARY,
    /** Catching up after a restart; serves nothing. */
    RECOVERING
}
