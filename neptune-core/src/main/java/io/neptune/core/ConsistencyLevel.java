package io.neptune.core;

/** How the replicas of one partition are kept consistent (DESIGN §6). */
public enum ConsistencyLevel {
    /** Write-anywhere replication for commutative writes. */
    LEVEL_1,
    /** Primary-secondary replication with ordered writes. */
    LEVEL_2,
    /** Level 2 plus a staleness bound and progressive version delivery. */
    LEVEL_3
}
