package io.neptune.core.internal.membership;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import io.neptune.core.ClassStats;
import io.neptune.core.ConsistencyLevel;
import io.neptune.core.ReplicaRole;
import io.neptune.core.ServiceDescriptor;
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
 * @param served requests this incarnation has answered so far, over all hosted services (a
 *     dashboard derives requests per second from two announcements); an announcement without the
 *     field, from an older node, reads as 0
 * @param adminPort the node's admin HTTP port ({@code /metrics}, {@code /health}) on {@code host}; 0 when
 *     it serves none, and in an announcement from an older node, which lacks the field
 * @param draining whether the node is draining ({@code admin drain}): it hands its primaries away and
 *     finishes its calls before it leaves, so clients choose it for no new call while another replica
 *     can serve (false from an older node)
 * @param tls whether the node's request port accepts TLS connections (false from an older node):
 *     a client whose TLS is {@code permissive} connects to it with TLS, to others in plaintext
 */
@JsonIgnoreProperties(ignoreUnknown = true) // a newer node may announce more; an older one must still read it
public record Announcement(
        String node,
        String host,
        int tcpPort,
        int udpPort,
        long pid,
        long incarnation,
        long sequence,
        int load,
        List<HostedService> services,
        @JsonSetter(nulls = Nulls.AS_EMPTY) long served,
        @JsonSetter(nulls = Nulls.AS_EMPTY) int adminPort,
        @JsonSetter(nulls = Nulls.AS_EMPTY) boolean draining,
        @JsonSetter(nulls = Nulls.AS_EMPTY) boolean tls) {

    /** Validates the fields. */
    public Announcement {
        requireNonNull(node, "node");
        requireNonNull(host, "host");
        checkPort("tcpPort", tcpPort);
        checkPort("udpPort", udpPort);
        services = List.copyOf(services);
        if (adminPort != 0) {
            checkPort("adminPort", adminPort);
        }
    }

    private static void checkPort(String name, int port) {
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException(name + ": " + port + " (expected: 1..65535)");
        }
    }

    /** An announcement that does not count the requests served. */
    public Announcement(String node, String host, int tcpPort, int udpPort, long pid, long incarnation, long sequence,
            int load, List<HostedService> services) {
        this(node, host, tcpPort, udpPort, pid, incarnation, sequence, load, services, 0, 0, false, false);
    }

    /** An announcement without an admin port. */
    public Announcement(String node, String host, int tcpPort, int udpPort, long pid, long incarnation, long sequence,
            int load, List<HostedService> services, long served) {
        this(node, host, tcpPort, udpPort, pid, incarnation, sequence, load, services, served, 0, false, false);
    }

    /** An announcement of a node that is not draining. */
    public Announcement(String node, String host, int tcpPort, int udpPort, long pid, long incarnation, long sequence,
            int load, List<HostedService> services, long served, int adminPort) {
        this(node, host, tcpPort, udpPort, pid, incarnation, sequence, load, services, served, adminPort, false, false);
    }

    /** An announcement of a node whose request port is plaintext only. */
    public Announcement(String node, String host, int tcpPort, int udpPort, long pid, long incarnation, long sequence,
            int load, List<HostedService> services, long served, int adminPort, boolean draining) {
        this(node, host, tcpPort, udpPort, pid, incarnation, sequence, load, services, served, adminPort, draining,
                false);
    }

    /**
     * The base URL of the node's admin port, {@code http://host:port} (IPv6 hosts in brackets); empty
     * when it announces none.
     */
    public String adminUrl() {
        if (adminPort == 0) {
            return "";
        }
        return "http://" + (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + adminPort;
    }

    /**
     * One service hosted by the announcing node.
     *
     * @param name service name
     * @param partitions the service's partition count
     * @param load active + queued requests of this service on the node
     * @param replicas the hosted partitions
     * @param consistency the service's consistency level
     * @param stalenessMillis the level-3 staleness bound x in milliseconds; 0 for other levels
     * @param classes what each service class got from the service's scheduler on the node, sorted
     *     by class; empty when the node schedules it FIFO without classes (or predates classes)
     * @param workers the service's worker threads on the node: its capacity, in requests at a time
     *     (0 from a node that predates the field)
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record HostedService(String name, int partitions, int load, List<ReplicaState> replicas,
            ConsistencyLevel consistency, long stalenessMillis,
            @JsonSetter(nulls = Nulls.AS_EMPTY) List<ClassStats> classes,
            @JsonSetter(nulls = Nulls.AS_EMPTY) int workers) {
        /** Validates the fields. */
        public HostedService {
            requireNonNull(name, "name");
            if (partitions < 1 || partitions > ServiceDescriptor.MAX_PARTITIONS) {
                throw new IllegalArgumentException(name + ": partitions: " + partitions + " (expected: 1.."
                        + ServiceDescriptor.MAX_PARTITIONS + ")");
            }
            replicas = List.copyOf(replicas);
            requireNonNull(consistency, "consistency");
            classes = classes == null ? List.of() : List.copyOf(classes);
        }

        /** A service scheduled without classes. */
        public HostedService(String name, int partitions, int load, List<ReplicaState> replicas,
                ConsistencyLevel consistency, long stalenessMillis) {
            this(name, partitions, load, replicas, consistency, stalenessMillis, List.of(), 0);
        }

        /** An unreplicated level-1 service. */
        public HostedService(String name, int partitions, int load, List<ReplicaState> replicas) {
            this(name, partitions, load, replicas, ConsistencyLevel.LEVEL_1, 0);
        }
    }

    /**
     * One hosted partition.
     *
     * @param partition partition id
     * @param priority static priority for primary election; higher wins
     * @param role current role
     * @param version current version: the LSN of the last write applied here
     * @param epoch the replica's current epoch
     * @param logEnd the LSN of the last write in its REDO log (applied or not)
     * @param lastEpoch the epoch of that last write (0 for an empty log): with {@code logEnd}, how
     *     complete the log is, which decides elections
     * @param boundVersion on a level-3 primary, its version x seconds ago (the staleness bound); else 0
     */
    @JsonIgnoreProperties(ignoreUnknown = true)
    public record ReplicaState(int partition, int priority, ReplicaRole role, long version, long epoch, long logEnd,
            long lastEpoch, long boundVersion) {
        /** Validates the fields. */
        public ReplicaState {
            requireNonNull(role, "role");
        }

        /** A replica without replication state. */
        public ReplicaState(int partition, int priority, ReplicaRole role, long version) {
            this(partition, priority, role, version, 0, version, 0, 0);
        }
    }
}
