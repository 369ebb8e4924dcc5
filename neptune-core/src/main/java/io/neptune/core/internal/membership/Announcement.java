package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * What a node publishes about itself every announce interval: where to reach it and the replicas
 * it hosts. Encoded as JSON on the JGroups channel.
 *
 * @param node node id
 * @param host address of its request and poll servers
 * @param tcpPort request server port
 * @param udpPort load-index server port
 * @param pid operating-system process id, for operators
 * @param incarnation start time of this process in ms; a restarted node has a higher one
 * @param sequence increases with every announcement of one incarnation
 * @param load active + queued requests over all hosted services
 * @param services the hosted services
 */
public record Announcement(
        String node,
        String host,
        int tcpPort,
        int udpPort,
        long pid,
        long incarnation,
        long sequence,
        int load,
        List<HostedService> services) {

    /** Validates the fields. */
    public Announcement {
        requireNonNull(node, "node");
        requireNonNull(host, "host");
        services = List.copyOf(services);
    }

    /**
     * One service hosted by the announcing node.
     *
     * @param name service name
     * @param partitions the service's partition count
     * @param load active + queued requests of this service on the node
     * @param replicas the hosted partitions
     */
    public record HostedService(String name, int partitions, int load, List<ReplicaState> replicas) {
        /** Validates the fields. */
        public HostedService {
            requireNonNull(name, "name");
            replicas = List.copyOf(replicas);
        }
    }

    /**
     * One hosted partition.
     *
     * @param partition partition id
     * @param priority static priority for primary election; higher wins
     * @param role current role
     * @param version current version (LSN)
     */
    public record ReplicaState(int partition, int priority, Role role, long version) {
        /** Validates the fields. */
        public ReplicaState {
            requireNonNull(role, "role");
        }
    }
}
