package io.neptune.core;

import static java.util.Objects.requireNonNull;

import io.neptune.core.internal.Checks;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * How a node finds the others: the JGroups stack and the yellow page's timing (DESIGN §4).
 * Immutable; create with {@link #builder()}.
 *
 * @param stack which JGroups stack to run
 * @param cluster the group name; nodes with the same name form one cluster
 * @param bindAddress address JGroups binds to; loopback by default
 * @param port JGroups transport port (TCP or UDP stacks); 0 picks a free port
 * @param discoveryDirectory shared directory for the {@link Stack#LOOPBACK} stack's discovery files
 * @param multicastAddress IP multicast group of the {@link Stack#UDP} stack
 * @param multicastPort IP multicast port of the {@link Stack#UDP} stack
 * @param initialHosts members to contact first with the {@link Stack#TCP} stack
 * @param dnsQuery the DNS name the {@link Stack#DNS} stack looks up to find members
 * @param dnsRecordType which records of {@code dnsQuery} the {@link Stack#DNS} stack reads
 * @param dnsServer {@code host:port} of the DNS server the {@link Stack#DNS} stack asks (SRV records, and
 *     the A records of the query or of the hosts the SRV records name); empty for the system's resolver
 * @param announceInterval mean time between two announcements of a node (jittered ±50%)
 * @param expiry time after which an unheard node leaves the yellow page
 */
public record MembershipConfig(
        Stack stack,
        String cluster,
        String bindAddress,
        int port,
        Path discoveryDirectory,
        String multicastAddress,
        int multicastPort,
        List<InetSocketAddress> initialHosts,
        String dnsQuery,
        DnsRecordType dnsRecordType,
        String dnsServer,
        Duration announceInterval,
        Duration expiry) {

    /** The JGroups stacks a node can run. */
    public enum Stack {
        /** TCP bound to loopback with file-based discovery: many processes on one machine, no root, no multicast. */
        LOOPBACK,
        /** UDP IP multicast, the dissertation's design; for a LAN that allows multicast. */
        UDP,
        /** TCP with TCPPING discovery from a list of initial hosts; no multicast needed. */
        TCP,
        /**
         * TCP with JGroups' DNS_PING: the members are what a DNS name resolves to, such as a Kubernetes
         * headless service (A records: every member on the same {@link #port()}) or SRV records (each
         * member's own port).
         */
        DNS
    }

    /** The DNS records the {@link Stack#DNS} stack reads. */
    public enum DnsRecordType {
        /** Addresses; each member's JGroups port is this node's {@link #port()}. */
        A,
        /** Host and port of each member. */
        SRV
    }

    /** Default for {@link #cluster()}. */
    public static final String DEFAULT_CLUSTER = "neptune";
    /** Default for {@link #bindAddress()}. */
    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";
    /** Default for {@link #multicastAddress()}: an organization-local scope group. */
    public static final String DEFAULT_MULTICAST_ADDRESS = "239.8.8.8";
    /** Default for {@link #multicastPort()}. */
    public static final int DEFAULT_MULTICAST_PORT = 45588;
    /** Default for {@link #announceInterval()}. */
    public static final Duration DEFAULT_ANNOUNCE_INTERVAL = Duration.ofSeconds(1);
    /** Default for {@link #expiry()}. */
    public static final Duration DEFAULT_EXPIRY = Duration.ofSeconds(5);

    /** Validates the fields. */
    public MembershipConfig {
        requireNonNull(stack, "stack");
        requireNonNull(cluster, "cluster");
        if (!cluster.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("cluster: '" + cluster + "' (expected: 1-64 of letters, digits, '.', '_', '-')");
        }
        requireNonNull(bindAddress, "bindAddress");
        Checks.port("port", port);
        requireNonNull(discoveryDirectory, "discoveryDirectory");
        requireNonNull(multicastAddress, "multicastAddress");
        Checks.port("multicastPort", multicastPort);
        initialHosts = List.copyOf(initialHosts);
        requireNonNull(dnsQuery, "dnsQuery");
        requireNonNull(dnsRecordType, "dnsRecordType");
        requireNonNull(dnsServer, "dnsServer");
        if (stack == Stack.DNS && dnsQuery.isBlank()) {
            throw new IllegalArgumentException("dnsQuery: empty (expected: the DNS name whose records list the members"
                    + " with the DNS stack)");
        }
        Checks.positive("announceInterval", announceInterval);
        Checks.positive("expiry", expiry);
        if (expiry.compareTo(announceInterval.multipliedBy(2)) < 0) {
            throw new IllegalArgumentException("expiry: " + expiry + " (expected: >= 2 x announceInterval "
                    + announceInterval + ")");
        }
    }

    /** Returns a builder with every default set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns the default configuration: the loopback stack, cluster {@value #DEFAULT_CLUSTER}. */
    public static MembershipConfig defaults() {
        return builder().build();
    }

    /** Returns a builder initialized from this configuration. */
    public Builder toBuilder() {
        return new Builder().stack(stack).cluster(cluster).bindAddress(bindAddress).port(port)
                .discoveryDirectory(discoveryDirectory).multicastAddress(multicastAddress)
                .multicastPort(multicastPort).initialHosts(initialHosts).dnsQuery(dnsQuery)
                .dnsRecordType(dnsRecordType).dnsServer(dnsServer).announceInterval(announceInterval).expiry(expiry);
    }

    /** The default discovery directory of {@code cluster}: {@code $TMPDIR/neptune-<cluster>}. */
    public static Path defaultDiscoveryDirectory(String cluster) {
        return Path.of(System.getProperty("java.io.tmpdir"), "neptune-" + cluster);
    }

    /** Mutable, single-use builder; not thread-safe. */
    public static final class Builder {
        private Stack stack = Stack.LOOPBACK;
        private String cluster = DEFAULT_CLUSTER;
        private String bindAddress = DEFAULT_BIND_ADDRESS;
        private int port;
        private Path discoveryDirectory = Path.of("");
        private String multicastAddress = DEFAULT_MULTICAST_ADDRESS;
        private int multicastPort = DEFAULT_MULTICAST_PORT;
        private List<InetSocketAddress> initialHosts = List.of();
        private String dnsQuery = "";
        private DnsRecordType dnsRecordType = DnsRecordType.A;
        private String dnsServer = "";
        private Duration announceInterval = DEFAULT_ANNOUNCE_INTERVAL;
        private Duration expiry = DEFAULT_EXPIRY;

        private Builder() {}

        /** Sets {@link MembershipConfig#stack()}. */
        public Builder stack(Stack stack) {
            this.stack = stack;
            return this;
        }

        /** Sets {@link MembershipConfig#cluster()}. */
        public Builder cluster(String cluster) {
            this.cluster = cluster;
            return this;
        }

        /** Sets {@link MembershipConfig#bindAddress()}. */
        public Builder bindAddress(String bindAddress) {
            this.bindAddress = bindAddress;
            return this;
        }

        /** Sets {@link MembershipConfig#port()}. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Sets {@link MembershipConfig#discoveryDirectory()}; empty means the default for the cluster. */
        public Builder discoveryDirectory(Path discoveryDirectory) {
            this.discoveryDirectory = discoveryDirectory;
            return this;
        }

        /** Sets {@link MembershipConfig#multicastAddress()}. */
        public Builder multicastAddress(String multicastAddress) {
            this.multicastAddress = multicastAddress;
            return this;
        }

        /** Sets {@link MembershipConfig#multicastPort()}. */
        public Builder multicastPort(int multicastPort) {
            this.multicastPort = multicastPort;
            return this;
        }

        /** Sets {@link MembershipConfig#initialHosts()}. */
        public Builder initialHosts(List<InetSocketAddress> initialHosts) {
            this.initialHosts = initialHosts;
            return this;
        }

        /** Sets {@link MembershipConfig#dnsQuery()}. */
        public Builder dnsQuery(String dnsQuery) {
            this.dnsQuery = dnsQuery;
            return this;
        }

        /** Sets {@link MembershipConfig#dnsRecordType()}. */
        public Builder dnsRecordType(DnsRecordType dnsRecordType) {
            this.dnsRecordType = dnsRecordType;
            return this;
        }

        /** Sets {@link MembershipConfig#dnsServer()}. */
        public Builder dnsServer(String dnsServer) {
            this.dnsServer = dnsServer;
            return this;
        }

        /** Sets {@link MembershipConfig#announceInterval()}. */
        public Builder announceInterval(Duration announceInterval) {
            this.announceInterval = announceInterval;
            return this;
        }

        /** Sets {@link MembershipConfig#expiry()}. */
        public Builder expiry(Duration expiry) {
            this.expiry = expiry;
            return this;
        }

        /** Validates and builds the configuration. */
        public MembershipConfig build() {
            Path directory = discoveryDirectory.toString().isEmpty()
                    ? defaultDiscoveryDirectory(cluster) : discoveryDirectory;
            return new MembershipConfig(stack, cluster, bindAddress, port, directory, multicastAddress,
                    multicastPort, initialHosts, dnsQuery, dnsRecordType, dnsServer, announceInterval, expiry);
        }
    }
}
