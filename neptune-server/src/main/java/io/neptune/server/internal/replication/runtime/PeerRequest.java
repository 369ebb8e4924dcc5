package io.neptune.server.internal.replication.runtime;

import static java.util.Objects.requireNonNull;

import io.neptune.core.internal.wire.Metadata;

/**
 * One peer-protocol request to a replica of a partition, as {@link Peers#call} sends it.
 *
 * @param service the partition's service
 * @param partition the partition
 * @param method the peer-protocol method ({@code replicate}, {@code vote}, ...)
 * @param message the method's message, one of {@link PeerMessages}
 * @param metadata what the request carries beside the message (trace contexts: {@link LoggedTraces});
 *     a network that cannot carry metadata drops it
 */
record PeerRequest(String service, int partition, String method, Object message, Metadata metadata) {
    /** Checks for nulls. */
    PeerRequest {
        requireNonNull(service, "service");
        requireNonNull(method, "method");
        requireNonNull(message, "message");
        requireNonNull(metadata, "metadata");
    }

    /** {@code method} with {@code message} to a replica of {@code service#partition}, without metadata. */
    static PeerRequest of(String service, int partition, String method, Object message) {
        return new PeerRequest(service, partition, method, message, Metadata.NONE);
    }
}
