package io.neptune.server;

import static java.util.Objects.requireNonNull;

import io.neptune.client.ClientConfig;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.internal.Checks;
import io.neptune.core.internal.wire.WireFormat;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Settings of one node. Immutable; create with {@link #builder()}. Every value has a default;
 * {@code docs/CONFIGURATION.md} lists the file keys.
 *
 * @param node this node's id
 * @param bindAddress address of the request and load-index servers; loopback by default
 * @param port TCP request server port; 0 picks a free port
 * @param pollPort UDP load-index server port; 0 picks a free port
 * @param ioThreads Netty event loop threads shared by client and server
 * @param maxFrameBytes largest frame the request server accepts
 * @param frameTimeout how long the request server waits for the rest of a frame whose first bytes
 *     arrived before it answers PROTOCOL_ERROR and closes the connection; zero: no limit
 * @param membership how the node finds the others
 * @param client settings of the embedded client module
 * @param dataDirectory where the node keeps REDO logs and service data
 * @param logSync when a REDO log append counts as durable
 * @param logWriterThreads threads that write and force the node's REDO logs, shared by all of them
 *     (at most this many fsyncs in flight); see {@link #DEFAULT_LOG_WRITER_THREADS}
 * @param ackTimeout how long a primary waits for a secondary's acknowledgement before it treats
 *     the secondary as failed (fail-stop)
 * @param scheduling the service classes and the policy that schedules each hosted service's queue
 * @param logRetention how much of each partition's REDO log the node keeps after checkpoints
 * @param adminPort the admin HTTP port ({@code /metrics}, {@code /health/live}, {@code /health/ready}) on
 *     {@code bindAddress}; 0 picks a free port (announced in the yellow page), {@link #NO_ADMIN_PORT} serves none
 * @param maxConnections open connections the request port takes in all; one more is closed as it is accepted
 * @param maxConnectionsPerAddress open connections the request port takes from one peer address
 * @param maxStreamsPerConnection streams open at once on one connection; one more is refused (OVERLOADED)
 * @param security TLS of the request port, for the node's server and its embedded client alike; a node
 *     bound to an address other than loopback needs TLS or {@link SecurityConfig#insecure()}
 * @param adminTokenFile a file holding the bearer token the admin port asks for on every route but
 *     {@code /health/*} (the content, trimmed; read again when it changes); {@code null}: none asked
 * @param adminTls whether the admin port serves HTTPS with the node's certificate (asking for no
 *     client certificate: probes have none); needs {@code security.tls: required}
 * @param drainTimeout how long a stop signal (SIGTERM, Ctrl-C) lets a node served by
 *     {@link NeptuneNode#runUntilStopped()} drain before it closes anyway
 * @param wireVersion the highest version of the wire protocol (docs/protocols/wire.md) the node reads
 *     and sends; {@link WireFormat#LATEST} by default. At 1 it behaves as a node of a release before
 *     version 2: it reads version-1 frames only, answers a hello as such a node does, and records no spans
 *     (it cannot pass a trace context on); for a rolling upgrade that must keep version 2 off the wire
 */
public record NodeConfig(
        NodeId node,
        String bindAddress,
        int port,
        int pollPort,
        int ioThreads,
        int maxFrameBytes,
        Duration frameTimeout,
        MembershipConfig membership,
        ClientConfig client,
        Path dataDirectory,
        LogSync logSync,
        int logWriterThreads,
        Duration ackTimeout,
        SchedulingConfig scheduling,
        int adminPort,
        LogRetentionConfig logRetention,
        int maxConnections,
        int maxConnectionsPerAddress,
        int maxStreamsPerConnection,
        SecurityConfig security,
        @Nullable Path adminTokenFile,
        boolean adminTls,
        Duration drainTimeout,
        int wireVersion) {

    /** {@link #adminPort()} of a node that serves no admin port (a command-line tool's node, say). */
    public static final int NO_ADMIN_PORT = -1;

    /** Default for {@link #bindAddress()}. */
    public static final String DEFAULT_BIND_ADDRESS = "127.0.0.1";

    /** Validates the fields. */
    public NodeConfig {
        requireNonNull(node, "node");
        checkBindAddress(bindAddress);
        Checks.port("port", port);
        Checks.port("pollPort", pollPort);
        Checks.atLeast("ioThreads", ioThreads, 1);
        Checks.atLeast("maxFrameBytes", maxFrameBytes, 1024);
        requireNonNull(frameTimeout, "frameTimeout");
        if (frameTimeout.isNegative()) {
            throw new IllegalArgumentException("frameTimeout: " + frameTimeout + " (expected: >= 0; 0 for no limit)");
        }
        requireNonNull(membership, "membership");
        requireNonNull(client, "client");
        requireNonNull(dataDirectory, "dataDirectory");
        requireNonNull(logSync, "logSync");
        Checks.atLeast("logWriterThreads", logWriterThreads, 1);
        Checks.positive("ackTimeout", ackTimeout);
        requireNonNull(scheduling, "scheduling");
        requireNonNull(logRetention, "logRetention");
        if (adminPort != NO_ADMIN_PORT) {
            Checks.port("adminPort", adminPort);
        }
        Checks.atLeast("maxConnections", maxConnections, 1);
        Checks.atLeast("maxConnectionsPerAddress", maxConnectionsPerAddress, 1);
        Checks.atLeast("maxStreamsPerConnection", maxStreamsPerConnection, 1);
        requireNonNull(security, "security");
        checkInsecure(bindAddress, security);
        if (adminTls && security.tls() != SecurityConfig.TlsMode.REQUIRED) {
            throw new IllegalArgumentException("adminTls: true with security.tls: " + security.tls()
                    + " (expected: security.tls: required, whose certificate the admin port serves)");
        }
        Checks.positive("drainTimeout", drainTimeout);
        if (wireVersion < WireFormat.VERSION_1 || wireVersion > WireFormat.LATEST) {
            throw new IllegalArgumentException("wireVersion: " + wireVersion + " (expected: " + WireFormat.VERSION_1
                    + ".." + WireFormat.LATEST + ")");
        }
    }

    /** Whether the node serves an admin port. */
    public boolean hasAdminPort() {
        return adminPort != NO_ADMIN_PORT;
    }

    /**
     * Anyone who reaches a node without TLS may call it, replicate to it and steer it: that is safe on
     * loopback only, or on a network the operator vouches for by saying so.
     */
    private static void checkInsecure(String bindAddress, SecurityConfig security) {
        if (security.isEnabled() || security.insecure()) {
            return;
        }
        try {
            if (InetAddress.getByName(bindAddress).isLoopbackAddress()) {
                return;
            }
        } catch (UnknownHostException e) {
            return; // checkBindAddress names this problem
        }
        throw new IllegalArgumentException("security.tls: disabled on bind-address " + bindAddress + " (expected: tls:"
                + " required with certificates, see docs/SECURITY.md; or security.insecure: true to run without TLS"
                + " on a network where everyone who can reach the node is trusted)");
    }

    /**
     * The node announces its bind address to its peers, who call it there: it must name this
     * machine, and not be a wildcard, with which every peer would call itself.
     */
    private static void checkBindAddress(String bindAddress) {
        requireNonNull(bindAddress, "bindAddress");
        InetAddress address;
        try {
            address = InetAddress.getByName(bindAddress);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("bindAddress: '" + bindAddress
                    + "' (expected: an IP address or a host name of this machine)");
        }
        if (address.isAnyLocalAddress()) {
            throw new IllegalArgumentException("bindAddress: '" + bindAddress + "' (expected: a specific address, not a"
                    + " wildcard: the node announces it, and peers call it there)");
        }
    }

    /**
     * Default for {@link #logWriterThreads()}: {@value}, whatever the number of partitions. A force
     * blocks its thread for the device's flush time, so this is how many logs can force at once (the
     * appends to a log that arrive meanwhile share its next force: group commit); the threads run
     * only while there are appends, so an idle node keeps none. docs/PERFORMANCE.md (Footprint) has
     * the measurements behind the number.
     */
    public static final int DEFAULT_LOG_WRITER_THREADS = 32;

    /**
     * Default for {@link #frameTimeout()}: a whole frame of the default 4 MiB limit in 30 s is
     * about 140 KB/s, far below any link a cluster runs on.
     */
    public static final Duration DEFAULT_FRAME_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Default for {@link #maxConnections()}: {@value}. A client keeps {@code connections-per-node}
     * (2) connections to each node, so this is room for about 2,000 clients and peers.
     */
    public static final int DEFAULT_MAX_CONNECTIONS = 4096;

    /**
     * Default for {@link #maxConnectionsPerAddress()}: {@value}, room for a few hundred client
     * processes behind one address (a gateway host, a NAT), and a bound on what one host can hold.
     */
    public static final int DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 512;

    /**
     * Default for {@link #maxStreamsPerConnection()}: {@value}, well above the thousand concurrent
     * streams one connection is tested to carry.
     */
    public static final int DEFAULT_MAX_STREAMS_PER_CONNECTION = 4096;

    /** Default for {@link #ackTimeout()}. */
    public static final Duration DEFAULT_ACK_TIMEOUT = Duration.ofSeconds(2);

    /**
     * Default for {@link #drainTimeout()}: 20 s, time for a node to hand a few hundred primaries over
     * and finish its calls, with room left to close inside the grace period a container runtime gives
     * before it kills (Kubernetes: 30 s unless the pod says otherwise).
     */
    public static final Duration DEFAULT_DRAIN_TIMEOUT = Duration.ofSeconds(20);

    /** When a REDO log append counts as durable. */
    public enum LogSync {
        /** fsync after every record. */
        ALWAYS,
        /** fsync before acknowledging, shared by the appends that arrive meanwhile (group commit); the default. */
        GROUP,
        /** leave flushing to the operating system: survives a process crash, not a power loss. */
        NONE
    }

    /** Returns a builder initialized from this configuration. */
    public Builder toBuilder() {
        return new Builder().node(node).bindAddress(bindAddress).port(port).pollPort(pollPort).ioThreads(ioThreads)
                .maxFrameBytes(maxFrameBytes).frameTimeout(frameTimeout).membership(membership).client(client).dataDirectory(dataDirectory)
                .logSync(logSync).logWriterThreads(logWriterThreads).ackTimeout(ackTimeout).scheduling(scheduling).adminPort(adminPort)
                .logRetention(logRetention).maxConnections(maxConnections)
                .maxConnectionsPerAddress(maxConnectionsPerAddress).maxStreamsPerConnection(maxStreamsPerConnection)
                .security(security).adminTokenFile(adminTokenFile).adminTls(adminTls).drainTimeout(drainTimeout)
                .wireVersion(wireVersion);
    }

    /** Returns a builder with every default set and a node id of {@code node-<pid>}. */
    public static Builder builder() {
        return new Builder();
    }

    /** Mutable, single-use builder; not thread-safe. */
    public static final class Builder {
        private NodeId node = NodeId.of("node-" + ProcessHandle.current().pid());
        private String bindAddress = DEFAULT_BIND_ADDRESS;
        private int port;
        private int pollPort;
        private int ioThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
        private int maxFrameBytes = ClientConfig.DEFAULT_MAX_FRAME_BYTES;
        private Duration frameTimeout = DEFAULT_FRAME_TIMEOUT;
        private MembershipConfig membership = MembershipConfig.defaults();
        private ClientConfig client = ClientConfig.defaults();
        private @Nullable Path dataDirectory;
        private LogSync logSync = LogSync.GROUP;
        private int logWriterThreads = DEFAULT_LOG_WRITER_THREADS;
        private LogRetentionConfig logRetention = LogRetentionConfig.DEFAULT;
        private Duration ackTimeout = DEFAULT_ACK_TIMEOUT;
        private SchedulingConfig scheduling = SchedulingConfig.defaults();
        private int adminPort;
        private SecurityConfig security = SecurityConfig.disabled();
        private int maxConnections = DEFAULT_MAX_CONNECTIONS;
        private int maxConnectionsPerAddress = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS;
        private int maxStreamsPerConnection = DEFAULT_MAX_STREAMS_PER_CONNECTION;
        private @Nullable Path adminTokenFile;
        private boolean adminTls;
        private Duration drainTimeout = DEFAULT_DRAIN_TIMEOUT;
        private int wireVersion = WireFormat.LATEST;

        private Builder() {}

        /** Sets {@link NodeConfig#wireVersion()}; {@link WireFormat#LATEST} by default. */
        public Builder wireVersion(int wireVersion) {
            this.wireVersion = wireVersion;
            return this;
        }

        /** Sets {@link NodeConfig#maxStreamsPerConnection()}. */
        public Builder maxStreamsPerConnection(int maxStreamsPerConnection) {
            this.maxStreamsPerConnection = maxStreamsPerConnection;
            return this;
        }

        /** Sets {@link NodeConfig#drainTimeout()}; {@link #DEFAULT_DRAIN_TIMEOUT} by default. */
        public Builder drainTimeout(Duration drainTimeout) {
            this.drainTimeout = drainTimeout;
            return this;
        }

        /** Sets {@link NodeConfig#adminTls()}; false (plain HTTP) by default. */
        public Builder adminTls(boolean adminTls) {
            this.adminTls = adminTls;
            return this;
        }

        /** Sets {@link NodeConfig#adminTokenFile()}; {@code null} (the default): the admin port asks for no token. */
        public Builder adminTokenFile(@Nullable Path adminTokenFile) {
            this.adminTokenFile = adminTokenFile;
            return this;
        }

        /** Sets {@link NodeConfig#maxConnections()}. */
        public Builder maxConnections(int maxConnections) {
            this.maxConnections = maxConnections;
            return this;
        }

        /** Sets {@link NodeConfig#maxConnectionsPerAddress()}. */
        public Builder maxConnectionsPerAddress(int maxConnectionsPerAddress) {
            this.maxConnectionsPerAddress = maxConnectionsPerAddress;
            return this;
        }

        /** Sets {@link NodeConfig#security()}; TLS is disabled by default. */
        public Builder security(SecurityConfig security) {
            this.security = security;
            return this;
        }

        /** Sets {@link NodeConfig#adminPort()}: 0 (the default) picks a free port, {@link #NO_ADMIN_PORT} none. */
        public Builder adminPort(int adminPort) {
            this.adminPort = adminPort;
            return this;
        }

        /** Sets {@link NodeConfig#scheduling()}. */
        public Builder scheduling(SchedulingConfig scheduling) {
            this.scheduling = scheduling;
            return this;
        }

        /** Sets {@link NodeConfig#dataDirectory()}; the default is {@code neptune-data/<node>}. */
        public Builder dataDirectory(Path dataDirectory) {
            this.dataDirectory = dataDirectory;
            return this;
        }

        /** Sets {@link NodeConfig#logSync()}. */
        public Builder logSync(LogSync logSync) {
            this.logSync = logSync;
            return this;
        }

        /** Sets {@link NodeConfig#logRetention()}. */
        public Builder logRetention(LogRetentionConfig logRetention) {
            this.logRetention = logRetention;
            return this;
        }

        /** Sets {@link NodeConfig#logWriterThreads()}. */
        public Builder logWriterThreads(int logWriterThreads) {
            this.logWriterThreads = logWriterThreads;
            return this;
        }

        /** Sets {@link NodeConfig#ackTimeout()}. */
        public Builder ackTimeout(Duration ackTimeout) {
            this.ackTimeout = ackTimeout;
            return this;
        }

        /** Sets {@link NodeConfig#node()}. */
        public Builder node(NodeId node) {
            this.node = node;
            return this;
        }

        /** Sets {@link NodeConfig#node()}. */
        public Builder node(String node) {
            return node(NodeId.of(node));
        }

        /** Sets {@link NodeConfig#bindAddress()}. */
        public Builder bindAddress(String bindAddress) {
            this.bindAddress = bindAddress;
            return this;
        }

        /** Sets {@link NodeConfig#port()}. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** Sets {@link NodeConfig#pollPort()}. */
        public Builder pollPort(int pollPort) {
            this.pollPort = pollPort;
            return this;
        }

        /** Sets {@link NodeConfig#ioThreads()}. */
        public Builder ioThreads(int ioThreads) {
            this.ioThreads = ioThreads;
            return this;
        }

        /** Sets {@link NodeConfig#maxFrameBytes()}. */
        public Builder maxFrameBytes(int maxFrameBytes) {
            this.maxFrameBytes = maxFrameBytes;
            return this;
        }

        /** Sets {@link NodeConfig#frameTimeout()}; zero: no limit. */
        public Builder frameTimeout(Duration frameTimeout) {
            this.frameTimeout = frameTimeout;
            return this;
        }

        /** Sets {@link NodeConfig#membership()}. */
        public Builder membership(MembershipConfig membership) {
            this.membership = membership;
            return this;
        }

        /** Sets {@link NodeConfig#client()}. */
        public Builder client(ClientConfig client) {
            this.client = client;
            return this;
        }

        /** Validates and builds the configuration. */
        public NodeConfig build() {
            Path data = dataDirectory != null ? dataDirectory : Path.of("neptune-data", node.value());
            return new NodeConfig(node, bindAddress, port, pollPort, ioThreads, maxFrameBytes, frameTimeout, membership, client, data,
                    logSync, logWriterThreads, ackTimeout, scheduling, adminPort, logRetention, maxConnections,
                    maxConnectionsPerAddress, maxStreamsPerConnection, security, adminTokenFile, adminTls,
                    drainTimeout, wireVersion);
        }
    }
}
