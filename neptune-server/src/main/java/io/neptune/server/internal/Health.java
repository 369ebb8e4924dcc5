package io.neptune.server.internal;

import static java.util.Objects.requireNonNull;

import io.neptune.core.ReplicaRole;
import java.util.List;

/**
 * Whether a node is ready: it runs, and every replica it hosts serves (none is RECOVERING). What
 * {@code /health/ready} answers.
 *
 * @param running whether the node is started and not stopping
 * @param notServing the hosted replicas that do not serve yet, sorted by service and partition
 */
public record Health(boolean running, List<NotServing> notServing) {
    /** Copies the list. */
    public Health {
        notServing = List.copyOf(notServing);
    }

    /**
     * A hosted replica that does not serve.
     *
     * @param service the service
     * @param partition the partition
     * @param role its role, RECOVERING
     */
    public record NotServing(String service, int partition, ReplicaRole role) {
        /** Validates the fields. */
        public NotServing {
            requireNonNull(service, "service");
            requireNonNull(role, "role");
        }
    }

    /** Whether the node runs and every hosted replica serves. */
    public boolean isReady() {
        return running && notServing.isEmpty();
    }
}
