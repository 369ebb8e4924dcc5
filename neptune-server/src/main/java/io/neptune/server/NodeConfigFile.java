package io.neptune.server;

import static java.util.Objects.requireNonNull;
import static java.util.Objects.requireNonNullElse;

import io.neptune.client.BalancingPolicy;
import io.neptune.client.ClientConfig;
import io.neptune.core.ClusterSecret;
import io.neptune.core.ConfigException;
import io.neptune.core.FailoverMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.core.SecurityConfig;
import io.neptune.core.ServiceClass;
import io.neptune.core.ServiceDescriptor;
import io.neptune.core.YieldFunction;
import io.neptune.core.internal.config.ConfigNode;
import io.neptune.core.internal.config.ConfigSources;
import io.neptune.core.internal.wire.WireFormat;
import io.neptune.server.internal.BindAddresses;
import io.neptune.server.internal.NodeConfigYaml;
import io.neptune.server.process.ProcessConfig;
import io.neptune.server.process.internal.ProcessConfigs;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.InvocationTargetException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's YAML config file: the node settings and the services it hosts. Every key has a default;
 * an unknown key or a bad value fails with a {@link ConfigException} naming it and where its value
 * came from. Any scalar key may also come from a system property ({@code neptune.membership.stack})
 * or an environment variable ({@code NEPTUNE_MEMBERSHIP_STACK}), which win over the file in that
 * order, and string values may hold {@code ${VAR}} and {@code ${file:/path}}. The keys are documented
 * in {@code docs/CONFIGURATION.md}.
 *
 * @param node the node settings
 * @param services the service classes to host, in file order
 * @param processes the process-backed services to host ({@code services} entries with {@code process:}), in
 *     file order
 */
public record NodeConfigFile(NodeConfig node, List<HostedService> services, List<HostedProcess> processes) {
    private static final Logger logger = LoggerFactory.getLogger(NodeConfigFile.class);


    /**
     * One {@code services} entry.
     *
     * @param className the service class, with a public no-argument constructor
     * @param hosting how it is hosted
     */
    public record HostedService(String className, HostingConfig hosting) {
        /** Validates the fields. */
        public HostedService {
            requireNonNull(className, "className");
            requireNonNull(hosting, "hosting");
        }
    }

    /**
     * One {@code services} entry with a {@code process:} section.
     *
     * @param process the program and how it runs
     * @param hosting how it is hosted
     */
    public record HostedProcess(ProcessConfig process, HostingConfig hosting) {
        /** Validates the fields. */
        public HostedProcess {
            requireNonNull(process, "process");
            requireNonNull(hosting, "hosting");
        }
    }

    /** Copies the lists. */
    public NodeConfigFile {
        requireNonNull(node, "node");
        services = List.copyOf(services);
        processes = List.copyOf(processes);
    }

    /**
     * Reads and validates {@code file}, with this process's environment variables and system
     * properties over it.
     */
    public static NodeConfigFile load(Path file) {
        Map<String, String> properties = new HashMap<>();
        System.getProperties().stringPropertyNames().forEach(name -> properties.put(name, System.getProperty(name)));
        return load(file, System.getenv(), properties);
    }

    /**
     * Reads and validates {@code file}, with {@code environment} and the system {@code properties}
     * over it: a system property {@code neptune.<key>} wins over a variable {@code NEPTUNE_<KEY>},
     * which wins over the file. {@code ${VAR}} in the file and the cluster secret's variable read
     * {@code environment}.
     *
     * @throws ConfigException naming the key and the source of its value (the file, a variable or a
     *     property), or a {@code NEPTUNE_*} variable or {@code neptune.*} property that names no key
     */
    public static NodeConfigFile load(Path file, Map<String, String> environment, Map<String, String> properties) {
        ConfigSources sources = ConfigSources.of(file.toString(), environment, properties);
        ConfigNode root = ConfigNode.load(file, sources);
        NodeConfigFile config;
        try {
            config = parse(root, environment);
        } catch (ConfigException e) {
            throw sources.attribute(e);
        }
        if (!sources.origins().isEmpty()) { // names only: a value may be a secret
            logger.info("{}: over {}: {}", config.node().node(), file, String.join(", ", sources.origins()
                    .entrySet().stream().map(e -> e.getKey() + " from " + e.getValue()).toList()));
        }
        return config;
    }

    /**
     * Validates an already parsed document; a cluster secret not named by
     * {@code security.cluster-secret-file} comes from {@value ClusterSecret#ENVIRONMENT_VARIABLE}.
     */
    public static NodeConfigFile parse(ConfigNode root) {
        return parse(root, System.getenv());
    }

    /** {@link #parse(ConfigNode)} with {@code environment} in place of the process's. */
    static NodeConfigFile parse(ConfigNode root, Map<String, String> environment) {
        NodeConfig.Builder node = NodeConfig.builder();
        String bindAddress = BindAddresses.resolve("bind-address",
                root.string("bind-address", NodeConfig.DEFAULT_BIND_ADDRESS));
        root.build(r -> {
            if (r.has("node")) {
                node.node(NodeId.of(r.string("node", "")));
            } else {
                r.string("node", "");
            }
            String tokenFile = r.string("admin-token-file", "");
            if (!tokenFile.isEmpty()) {
                node.adminTokenFile(Path.of(tokenFile));
            }
            String data = r.string("data-directory", "");
            if (!data.isEmpty()) {
                node.dataDirectory(Path.of(data));
            }
            return node.bindAddress(bindAddress)
                    .port(r.integer("port", 0))
                    .pollPort(r.integer("poll-port", 0))
                    .adminPort(r.integer("admin-port", 0))
                    .adminTls(r.bool("admin-tls", false))
                    .ioThreads(r.integer("io-threads", Math.max(2, Runtime.getRuntime().availableProcessors())))
                    .maxFrameBytes(r.size("max-frame-size", ClientConfig.DEFAULT_MAX_FRAME_BYTES))
                    .frameTimeout(r.duration("frame-timeout", NodeConfig.DEFAULT_FRAME_TIMEOUT))
                    .maxConnections(r.integer("max-connections", NodeConfig.DEFAULT_MAX_CONNECTIONS, 1))
                    .maxConnectionsPerAddress(r.integer("max-connections-per-address",
                            NodeConfig.DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, 1))
                    .maxStreamsPerConnection(r.integer("max-streams-per-connection",
                            NodeConfig.DEFAULT_MAX_STREAMS_PER_CONNECTION, 1))
                    .logSync(r.choice("log-sync", NodeConfig.LogSync.class, NodeConfig.LogSync.GROUP))
                    .logWriterThreads(r.integer("log-writer-threads", NodeConfig.DEFAULT_LOG_WRITER_THREADS))
                    .logRetention(new LogRetentionConfig(
                            r.integer("log-retention", (int) LogRetentionConfig.DEFAULT_MAX_RECORDS, 0),
                            r.integer("log-checkpoint-interval", (int) LogRetentionConfig.DEFAULT_CHECKPOINT_RECORDS, 1),
                            r.integer("request-id-window", LogRetentionConfig.DEFAULT_REQUEST_IDS, 1,
                                    LogRetentionConfig.MAX_REQUEST_IDS)))
                    .ackTimeout(r.duration("ack-timeout", NodeConfig.DEFAULT_ACK_TIMEOUT))
                    .drainTimeout(r.duration("drain-timeout", NodeConfig.DEFAULT_DRAIN_TIMEOUT))
                    .wireVersion(r.integer("wire-version", WireFormat.LATEST, WireFormat.VERSION_1, WireFormat.LATEST));
        });
        node.membership(membership(root.section("membership"), bindAddress));
        node.client(client(root.section("client")));
        node.security(security(root.section("security"), environment));
        node.scheduling(scheduling(root.section("scheduling"), root.sections("classes")));
        List<HostedService> services = new ArrayList<>();
        List<HostedProcess> processes = new ArrayList<>();
        for (ConfigNode service : root.sections("services")) {
            if (service.has("process")) {
                processes.add(process(service));
            } else {
                services.add(service(service));
            }
        }
        root.finish();
        NodeConfig config = root.build(r -> node.build());
        if (!root.has("node") && !services.isEmpty()) { // process services keep no data
            logger.warn("no 'node' in the config: this node is {} and keeps its data under {}; started again under"
                    + " another process id it will be another node and not find that data (set 'node')", config.node(),
                    config.dataDirectory());
        }
        return new NodeConfigFile(config, services, processes);
    }

    private static MembershipConfig membership(ConfigNode m, String bindAddress) {
        MembershipConfig config = m.build(s -> {
            MembershipConfig.Builder b = MembershipConfig.builder()
                    .stack(s.choice("stack", MembershipConfig.Stack.class, MembershipConfig.Stack.LOOPBACK))
                    .cluster(s.string("cluster", MembershipConfig.DEFAULT_CLUSTER))
                    .bindAddress(BindAddresses.resolve(s.path() + ".bind-address",
                            s.string("bind-address", bindAddress)))
                    .port(s.integer("port", 0))
                    .discoveryDirectory(Path.of(s.string("discovery-directory", "")))
                    .multicastAddress(s.string("multicast-address", MembershipConfig.DEFAULT_MULTICAST_ADDRESS))
                    .multicastPort(s.integer("multicast-port", MembershipConfig.DEFAULT_MULTICAST_PORT))
                    .announceInterval(s.duration("announce-interval", MembershipConfig.DEFAULT_ANNOUNCE_INTERVAL))
                    .expiry(s.duration("expiry", MembershipConfig.DEFAULT_EXPIRY));
            List<InetSocketAddress> hosts = new ArrayList<>();
            for (String host : s.strings("initial-hosts")) {
                hosts.add(hostAndPort(s.path() + ".initial-hosts", host));
            }
            String dnsServer = s.string("dns-server", "");
            if (!dnsServer.isEmpty()) {
                hostAndPort(s.path() + ".dns-server", dnsServer);
            }
            b.dnsQuery(s.string("dns-query", ""))
                    .dnsRecordType(s.choice("dns-record-type", MembershipConfig.DnsRecordType.class,
                            MembershipConfig.DnsRecordType.A))
                    .dnsServer(dnsServer);
            if (s.choice("stack", MembershipConfig.Stack.class, MembershipConfig.Stack.LOOPBACK)
                    == MembershipConfig.Stack.DNS && s.string("dns-query", "").isBlank()) {
                throw new ConfigException(s.path() + ".dns-query", "missing (expected: with stack: dns, the DNS name"
                        + " whose records list the members, such as neptune.shop.svc.cluster.local)");
            }
            return b.initialHosts(hosts).build();
        });
        m.finish();
        return config;
    }

    /**
     * The {@code security:} section (docs/CONFIGURATION.md, docs/SECURITY.md). The cluster secret
     * comes from the file {@code cluster-secret-file} names if it names one, else from
     * {@value ClusterSecret#ENVIRONMENT_VARIABLE} of {@code environment} if that is set.
     */
    static SecurityConfig security(ConfigNode s, Map<String, String> environment) {
        SecurityConfig config = s.build(c -> {
            SecurityConfig.Builder b = SecurityConfig.builder()
                    .tls(c.choice("tls", SecurityConfig.TlsMode.class, SecurityConfig.TlsMode.DISABLED))
                    .clientAuth(c.choice("client-auth", SecurityConfig.ClientAuth.class,
                            SecurityConfig.ClientAuth.REQUIRE))
                    .handshakeTimeout(c.duration("handshake-timeout", SecurityConfig.DEFAULT_HANDSHAKE_TIMEOUT))
                    .insecure(c.bool("insecure", false))
                    .provider(c.choice("provider", SecurityConfig.TlsProvider.class, SecurityConfig.TlsProvider.AUTO));
            String certificate = c.string("certificate", "");
            String key = c.string("key", "");
            if (!certificate.isEmpty() || !key.isEmpty()) {
                b.identity(Path.of(certificate), Path.of(key));
            }
            String trust = c.string("trust", "");
            if (!trust.isEmpty()) {
                b.trust(Path.of(trust));
            }
            clusterSecret(c.string("cluster-secret-file", ""), environment).ifPresent(b::clusterSecret);
            return b.build();
        });
        s.finish();
        return config;
    }

    private static Optional<ClusterSecret> clusterSecret(String file, Map<String, String> environment) {
        if (file.isEmpty()) {
            return ClusterSecret.fromEnvironment(environment);
        }
        if (environment.containsKey(ClusterSecret.ENVIRONMENT_VARIABLE)) {
            logger.warn("{} is set and {} too: the secret comes from the file {}, the variable is ignored",
                    ClusterSecret.ENVIRONMENT_VARIABLE, ClusterSecret.FILE_KEY, file);
        }
        return Optional.of(ClusterSecret.fromFile(Path.of(file)));
    }

    private static InetSocketAddress hostAndPort(String key, String text) {
        int colon = text.lastIndexOf(':');
        try {
            if (colon < 1) {
                throw new NumberFormatException();
            }
            return new InetSocketAddress(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
        } catch (NumberFormatException e) {
            throw new ConfigException(key, "'" + text + "' (expected: host:port)");
        }
    }

    private static SchedulingConfig scheduling(ConfigNode s, List<ConfigNode> classes) {
        SchedulingConfig.Builder b = s.build(n -> SchedulingConfig.builder()
                .policy(n.choice("policy", SchedulingPolicy.class, SchedulingPolicy.FIFO))
                .adaptiveDropThreshold(n.number("adaptive-drop-threshold",
                        SchedulingConfig.DEFAULT_ADAPTIVE_DROP_THRESHOLD))
                .adaptiveWindow(n.duration("adaptive-window", SchedulingConfig.DEFAULT_ADAPTIVE_WINDOW))
                .dropBelow(n.number("drop-below", SchedulingConfig.DEFAULT_DROP_BELOW))
                .decay(n.number("decay", SchedulingConfig.DEFAULT_DECAY)));
        s.finish();
        for (ConfigNode c : classes) {
            ServiceClass serviceClass = c.build(n -> {
                String name = n.string("name", "");
                if (name.isEmpty()) {
                    throw new ConfigException(n.path() + ".name", "missing (expected: the class name callers use)");
                }
                return new ServiceClass(name, yieldFunction(n), n.number("share", 0));
            });
            List<String> callers = c.strings("callers");
            c.finish();
            try {
                b.serviceClass(serviceClass);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(c.path() + ".name", "'" + serviceClass.name() + "' declared twice");
            }
            for (String caller : callers) {
                try {
                    b.bindCaller(caller, serviceClass.name());
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(c.path() + ".callers", requireNonNullElse(e.getMessage(), e.toString())
                            .replaceFirst("^callerClasses: ", ""));
                }
            }
        }
        try {
            return b.build();
        } catch (IllegalArgumentException e) { // the shares' sum, a caller's key: properties of the list
            throw new ConfigException("classes", requireNonNullElse(e.getMessage(), e.toString())
                    .replaceFirst("^(classes|callerClasses): ", ""));
        }
    }

    /** {@code yield: throughput | resptime | hybrid} with {@code full-yield}, {@code deadline}, and for hybrid D', C'. */
    private static YieldFunction yieldFunction(ConfigNode n) {
        String form = n.string("yield", "throughput");
        double c = n.number("full-yield", 1);
        if (!n.has("deadline")) {
            throw new ConfigException(n.path() + ".deadline", "missing (expected: D, the response time after which"
                    + " a request of the class yields nothing, such as 2s)");
        }
        Duration deadline = n.duration("deadline", Duration.ZERO);
        for (String hybridOnly : List.of("pre-deadline", "drop-penalty")) {
            if (n.has(hybridOnly) && !form.equals("hybrid")) {
                throw new ConfigException(n.path() + "." + hybridOnly, "given for yield '" + form
                        + "' (expected: only with yield: hybrid, whose D' and C' it sets)");
            }
        }
        return switch (form) {
            case "throughput" -> YieldFunction.throughput(c, deadline);
            case "resptime" -> YieldFunction.resptime(c, deadline);
            case "hybrid" -> YieldFunction.hybrid(c, n.duration("pre-deadline", deadline.dividedBy(2)),
                    n.number("drop-penalty", c / 2), deadline);
            default -> throw new ConfigException(n.path() + ".yield", "'" + form
                    + "' (expected: throughput, resptime or hybrid)");
        };
    }

    private static ClientConfig client(ConfigNode c) {
        ClientConfig config = c.build(s -> ClientConfig.builder()
                .policy(BalancingPolicy.fromConfigName(s.string("policy", BalancingPolicy.RANDOM_POLLING.configName())))
                .pollSize(s.integer("poll-size", ClientConfig.DEFAULT_POLL_SIZE))
                .pollDeadline(s.duration("poll-deadline", ClientConfig.DEFAULT_POLL_DEADLINE))
                .discardSlowPolls(s.bool("discard-slow-polls", true))
                .timeout(s.duration("timeout", ClientConfig.DEFAULT_TIMEOUT))
                .retries(s.integer("retries", ClientConfig.DEFAULT_RETRIES))
                .retryBackoff(s.duration("retry-backoff", ClientConfig.DEFAULT_RETRY_BACKOFF))
                .retryBackoffMultiplier(s.number("retry-backoff-multiplier",
                        ClientConfig.DEFAULT_RETRY_BACKOFF_MULTIPLIER))
                .retryBackoffMax(s.duration("retry-backoff-max", ClientConfig.DEFAULT_RETRY_BACKOFF_MAX))
                .retryJitter(s.bool("retry-jitter", true))
                .retryBudgetTokens(s.integer("retry-budget-tokens", ClientConfig.DEFAULT_RETRY_BUDGET_TOKENS))
                .retryBudgetTokenRatio(s.number("retry-budget-token-ratio",
                        ClientConfig.DEFAULT_RETRY_BUDGET_TOKEN_RATIO))
                .hedgedReads(s.bool("hedged-reads", false))
                .connectionsPerNode(s.integer("connections-per-node", ClientConfig.DEFAULT_CONNECTIONS_PER_NODE))
                .connectTimeout(s.duration("connect-timeout", ClientConfig.DEFAULT_CONNECT_TIMEOUT))
                .maxFrameBytes(s.size("max-frame-size", ClientConfig.DEFAULT_MAX_FRAME_BYTES))
                .partitioningInterval(s.duration("partitioning-interval", ClientConfig.DEFAULT_PARTITIONING_INTERVAL))
                .build());
        c.finish();
        return config;
    }

    private static HostedService service(ConfigNode s) {
        String className = s.string("class", "");
        if (className.isEmpty()) {
            throw new ConfigException(s.path() + ".class", "missing (expected: the service's class name)");
        }
        HostingConfig hosting = hosting(s, HostingConfig.DEFAULT_WORKERS);
        s.finish();
        return new HostedService(className, hosting);
    }

    /** A {@code services} entry with {@code process:}: the program in that section, hosting keys beside it. */
    private static HostedProcess process(ConfigNode s) {
        if (s.has("class")) {
            throw new ConfigException(s.path() + ".class", "given with 'process' (expected: either a class or a"
                    + " process)");
        }
        ConfigNode p = s.section("process");
        ProcessConfig process = p.build(ProcessConfigs::parse);
        p.finish();
        HostingConfig hosting = hosting(s, process.maxProcesses()); // workers beyond it would only wait for a slot
        s.finish();
        return new HostedProcess(process, hosting);
    }

    private static HostingConfig hosting(ConfigNode s, int defaultWorkers) {
        return s.build(h -> {
            HostingConfig.Builder b = HostingConfig.builder();
            List<String> specs = h.strings("partitions");
            // absent or "all": every partition; [] hosts none until an operator places some here
            if (h.has("partitions") && specs.stream().noneMatch(spec -> spec.trim().equals("all"))) {
                b.partitions(partitions(h.path() + ".partitions", specs));
            }
            b.priority(h.integer("priority", HostingConfig.DEFAULT_PRIORITY))
                    .workers(h.integer("workers", defaultWorkers))
                    .queueCapacity(h.integer("queue-capacity", HostingConfig.DEFAULT_QUEUE_CAPACITY))
                    .replicas(h.integer("replicas", HostingConfig.DEFAULT_REPLICAS))
                    .priorities(priorities(h.section("priorities")));
            if (h.has("failover")) {
                b.failover(h.choice("failover", FailoverMode.class, FailoverMode.MAJORITY));
            }
            return b.build();
        });
    }

    /** Reads {@code partition: priority} pairs; keys may be ranges such as {@code 0-7}. */
    private static Map<Integer, Integer> priorities(ConfigNode section) {
        Map<Integer, Integer> priorities = new HashMap<>();
        for (String key : section.keys()) {
            int priority = section.integer(key, 0);
            for (int partition : partitions(section.path() + "." + key, List.of(key))) {
                priorities.put(partition, priority);
            }
        }
        section.finish();
        return priorities;
    }

    /** Parses {@code all}, {@code 3}, {@code 0-15} or a list of those. */
    static TreeSet<Integer> partitions(String key, List<String> specs) {
        TreeSet<Integer> partitions = new TreeSet<>();
        for (String spec : specs) {
            String text = spec.trim();
            if (text.equals("all")) {
                return new TreeSet<>();
            }
            try {
                int dash = text.indexOf('-');
                int from = Integer.parseInt(dash < 0 ? text : text.substring(0, dash).trim());
                int to = dash < 0 ? from : Integer.parseInt(text.substring(dash + 1).trim());
                if (from < 0 || to < from) {
                    throw new NumberFormatException();
                }
                if (to >= ServiceDescriptor.MAX_PARTITIONS) {
                    throw new ConfigException(key, "'" + spec + "' (expected: partition ids below "
                            + ServiceDescriptor.MAX_PARTITIONS + ", the most a service may have)");
                }
                for (int p = from; p <= to; p++) {
                    partitions.add(p);
                }
            } catch (NumberFormatException e) {
                throw new ConfigException(key, "'" + spec + "' (expected: all, a partition id or a range such as 0-15)");
            }
        }
        return partitions;
    }

    /**
     * This config as YAML that {@link #load} reads back to an equal config, every key written out:
     * what a launcher writes before it starts a node process with {@code neptune node --config}.
     *
     * @throws IllegalArgumentException if a service class has a custom yield function, which a file cannot name
     */
    public String toYaml() {
        return NodeConfigYaml.write(this);
    }

    /** Writes {@link #toYaml()} to {@code file}, replacing it. */
    public void write(Path file) {
        try {
            Files.writeString(file, toYaml());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write node config " + file, e);
        }
    }

    /** Creates the node builder with every service instantiated and hosted. */
    public NeptuneNode.Builder toBuilder() {
        NeptuneNode.Builder builder = NeptuneNode.builder(node);
        for (int i = 0; i < services.size(); i++) {
            HostedService service = services.get(i);
            String key = "services[" + i + "].class";
            Object instance;
            try {
                instance = Class.forName(service.className()).getConstructor().newInstance();
            } catch (ClassNotFoundException e) {
                throw new ConfigException(key, "'" + service.className() + "' (expected: a class on the classpath)");
            } catch (NoSuchMethodException | InstantiationException | IllegalAccessException e) {
                throw new ConfigException(key, "'" + service.className()
                        + "' cannot be created (expected: a public class with a public no-argument constructor)");
            } catch (InvocationTargetException e) {
                throw new ConfigException(key, "'" + service.className() + "' constructor threw "
                        + e.getCause());
            }
            builder.host(instance, service.hosting());
        }
        for (HostedProcess process : processes) {
            builder.hostProcess(process.process(), process.hosting());
        }
        return builder;
    }
}
