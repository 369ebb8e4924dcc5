package io.neptune.core;

/** Thrown when a partition id is outside {@code 0..partitions-1} of its service. */
public final class UnknownPartitionException extends NeptuneException {
    private static final long serialVersionUID = 1L;

    private final String service;
    private final int partition;
    private final int partitions;

    /** Creates the exception for {@code partition} of {@code service}. */
    public UnknownPartitionException(String service, int partition, int partitions) {
        super("partition: " + partition + " of service '" + service + "' (expected: 0.." + (partitions - 1) + ")");
        this.service = service;
        this.partition = partition;
        this.partitions = partitions;
    }

    /** The service that was called. */
    public String service() {
        return service;
    }

    /** The partition id that was asked for. */
    public int partition() {
        return partition;
    }

    /** The service's partition count. */
    public int partitions() {
        return partitions;
    }
}
