package io.neptune.core;

/** Whether a method only reads its partition or also changes it. */
public enum AccessMode {
    /** Does not change persistent data; any replica may serve it. */
    READ,
    /** Changes persistent data of its partition. */
    WRITE
}
