package io.neptune.server;

/**
 * How much of a partition's REDO log a node keeps ({@code docs/protocols/replication.md},
 * "Checkpoints and log truncation"). A replica of a service that is
 * {@link io.neptune.core.Snapshottable} and has a {@link io.neptune.core.Check} method drops the
 * records its service holds durably once no live replica of the partition needs them, but keeps
 * at most {@code maxRecords} of them for a lagging replica (which installs a snapshot instead once
 * it falls further behind), and drops them in steps of at least {@code checkpointRecords}. The
 * request ids of the partition's last {@code requestIds} writes outlive their records (a retry of
 * one is answered, not run again); when full, a log's window holds about 35 bytes per id.
 *
 * @param maxRecords the most applied records kept for lagging live replicas, {@code >= 0}
 * @param checkpointRecords the fewest records one truncation drops, {@code >= 1}
 * @param requestIds how many of a partition's most recent request ids its replicas remember, {@code >= 1}
 */
public record LogRetentionConfig(long maxRecords, long checkpointRecords, int requestIds) {
    /** Default for {@link #maxRecords()}. */
    public static final long DEFAULT_MAX_RECORDS = 1_000_000;
    /** Default for {@link #checkpointRecords()}. */
    public static final long DEFAULT_CHECKPOINT_RECORDS = 100_000;
    /** Default for {@link #requestIds()}: about 3.3 MiB per partition once its window is full. */
    public static final int DEFAULT_REQUEST_IDS = 100_000;
    /**
     * The largest {@link #requestIds()}: 2^24 ids (about 560 MiB of heap per partition when full). Above
     * about 89 million, the sizes of a request-id file and a snapshot's id trailer no longer fit an int.
     */
    public static final int MAX_REQUEST_IDS = 1 << 24;
    /** The defaults. */
    public static final LogRetentionConfig DEFAULT = new LogRetentionConfig(DEFAULT_MAX_RECORDS,
            DEFAULT_CHECKPOINT_RECORDS, DEFAULT_REQUEST_IDS);

    /** Validates the fields. */
    public LogRetentionConfig {
        if (maxRecords < 0) {
            throw new IllegalArgumentException("maxRecords: " + maxRecords + " (expected: >= 0)");
        }
        if (checkpointRecords < 1) {
            throw new IllegalArgumentException("checkpointRecords: " + checkpointRecords + " (expected: >= 1)");
        }
        if (requestIds < 1 || requestIds > MAX_REQUEST_IDS) {
            throw new IllegalArgumentException("requestIds: " + requestIds + " (expected: 1.." + MAX_REQUEST_IDS + ")");
        }
    }

    /** {@code maxRecords} and {@code checkpointRecords}, with the {@link #DEFAULT_REQUEST_IDS default} request id window. */
    public LogRetentionConfig(long maxRecords, long checkpointRecords) {
        this(maxRecords, checkpointRecords, DEFAULT_REQUEST_IDS);
    }
}
