package io.neptune.core.internal.membership;

/** The role a replica plays for its partition. */
public enum Role {
    /** Takes the partition's writes (levels 2 and 3). */
    PRIMARY,
    /** Serves reads and receives writes from the primary; also every replica of an unreplicated level-1 service. */
    SECONDARY,
    /** Catching up after a restart; serves nothing. */
    RECOVERING
}
