package io.neptune.server.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.neptune.client.ClientConfig;
import io.neptune.core.ClusterSecret;
import io.neptune.core.MembershipConfig;
import io.neptune.core.SecurityConfig;
import io.neptune.core.ServiceClass;
import io.neptune.core.YieldFunction;
import io.neptune.server.HostingConfig;
import io.neptune.server.NodeConfig;
import io.neptune.server.NodeConfigFile;
import io.neptune.server.SchedulingConfig;
import io.neptune.server.process.ProcessConfig;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Writes a {@link NodeConfigFile} as the YAML that {@link NodeConfigFile#load} reads back to an
 * equal config: every key explicit, so a file written here says all a node will do. The one writer
 * for launchers that start node processes (the demo, the benchmarks, the tests).
 */
public final class NodeConfigYaml {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final YAMLMapper YAML = YAMLMapper.builder()
            .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
            .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
            .build();

    private NodeConfigYaml() {}

    /**
     * The YAML text of {@code file}.
     *
     * @throws IllegalArgumentException if a service class's yield function is not one a file can name
     *     (only {@link YieldFunction#throughput}, {@link YieldFunction#resptime} and {@link YieldFunction#hybrid})
     */
    public static String write(NodeConfigFile file) {
        NodeConfig node = file.node();
        ObjectNode root = NODES.objectNode()
                .put("node", node.node().toString())
                .put("bind-address", node.bindAddress())
                .put("port", node.port())
                .put("poll-port", node.pollPort())
                .put("admin-port", node.adminPort())
                .put("admin-tls", node.adminTls())
                .put("io-threads", node.ioThreads())
                .put("max-frame-size", node.maxFrameBytes())
                .put("frame-timeout", duration(node.frameTimeout()))
                .put("max-connections", node.maxConnections())
                .put("max-connections-per-address", node.maxConnectionsPerAddress())
                .put("max-streams-per-connection", node.maxStreamsPerConnection())
                .put("data-directory", node.dataDirectory().toString())
                .put("log-sync", configName(node.logSync()))
                .put("log-writer-threads", node.logWriterThreads())
                .put("log-retention", node.logRetention().maxRecords())
                .put("log-checkpoint-interval", node.logRetention().checkpointRecords())
                .put("request-id-window", node.logRetention().requestIds())
                .put("ack-timeout", duration(node.ackTimeout()));
        Path tokenFile = node.adminTokenFile();
        if (tokenFile != null) {
            root.put("admin-token-file", tokenFile.toString());
        }
        root.set("membership", membership(node.membership()));
        root.set("client", client(node.client()));
        root.set("security", security(node.security()));
        SchedulingConfig scheduling = node.scheduling();
        root.putObject("scheduling")
                .put("policy", configName(scheduling.policy()))
                .put("adaptive-drop-threshold", scheduling.adaptiveDropThreshold())
                .put("adaptive-window", duration(scheduling.adaptiveWindow()))
                .put("drop-below", scheduling.dropBelow())
                .put("decay", scheduling.decay());
        ArrayNode classes = root.putArray("classes");
        scheduling.classList().forEach(c -> classes.add(serviceClass(c, scheduling.callerClasses())));
        ArrayNode services = root.putArray("services");
        for (NodeConfigFile.HostedService service : file.services()) {
            services.add(hosting(NODES.objectNode().put("class", service.className()), service.hosting()));
        }
        for (NodeConfigFile.HostedProcess process : file.processes()) {
            ObjectNode entry = NODES.objectNode();
            entry.set("process", process(process.process()));
            services.add(hosting(entry, process.hosting()));
        }
        try {
            return YAML.writeValueAsString(root);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static ObjectNode membership(MembershipConfig m) {
        ObjectNode section = NODES.objectNode()
                .put("stack", configName(m.stack()))
                .put("cluster", m.cluster())
                .put("bind-address", m.bindAddress())
                .put("port", m.port())
                .put("discovery-directory", m.discoveryDirectory().toString())
                .put("multicast-address", m.multicastAddress())
                .put("multicast-port", m.multicastPort())
                .put("announce-interval", duration(m.announceInterval()))
                .put("expiry", duration(m.expiry()));
        ArrayNode hosts = section.putArray("initial-hosts");
        for (InetSocketAddress host : m.initialHosts()) {
            hosts.add(host.getHostString() + ":" + host.getPort());
        }
        return section.put("dns-query", m.dnsQuery())
                .put("dns-record-type", configName(m.dnsRecordType()))
                .put("dns-server", m.dnsServer());
    }

    private static ObjectNode client(ClientConfig c) {
        return NODES.objectNode()
                .put("policy", c.policy().configName())
                .put("poll-size", c.pollSize())
                .put("poll-deadline", duration(c.pollDeadline()))
                .put("discard-slow-polls", c.discardSlowPolls())
                .put("timeout", duration(c.timeout()))
                .put("retries", c.retries())
                .put("retry-backoff", duration(c.retryBackoff()))
                .put("retry-backoff-multiplier", c.retryBackoffMultiplier())
                .put("retry-backoff-max", duration(c.retryBackoffMax()))
                .put("retry-jitter", c.retryJitter())
                .put("retry-budget-tokens", c.retryBudgetTokens())
                .put("retry-budget-token-ratio", c.retryBudgetTokenRatio())
                .put("hedged-reads", c.hedgedReads())
                .put("connections-per-node", c.connectionsPerNode())
                .put("connect-timeout", duration(c.connectTimeout()))
                .put("max-frame-size", c.maxFrameBytes())
                .put("partitioning-interval", duration(c.partitioningInterval()));
    }

    private static ObjectNode security(SecurityConfig s) {
        ObjectNode section = NODES.objectNode().put("tls", configName(s.tls()));
        if (s.certificate() != null && s.key() != null) {
            section.put("certificate", s.certificate().toString()).put("key", s.key().toString());
        }
        if (s.trust() != null) {
            section.put("trust", s.trust().toString());
        }
        ClusterSecret secret = s.clusterSecret();
        if (secret != null) { // the file's name only; a secret from the environment is inherited by the process
            secret.file().ifPresent(file -> section.put("cluster-secret-file", file.toString()));
        }
        return section.put("client-auth", configName(s.clientAuth()))
                .put("handshake-timeout", duration(s.handshakeTimeout()))
                .put("insecure", s.insecure())
                .put("provider", configName(s.provider()));
    }

    private static ObjectNode serviceClass(ServiceClass c, Map<String, String> callerClasses) {
        if (!(c.yield() instanceof YieldFunction.Piecewise f)) {
            throw new IllegalArgumentException("class '" + c.name() + "': yield function " + c.yield()
                    + " (expected: throughput, resptime or hybrid; a custom function cannot be written to a file)");
        }
        ObjectNode entry = NODES.objectNode()
                .put("name", c.name())
                .put("yield", f.form())
                .put("full-yield", f.c())
                .put("deadline", duration(f.deadline()));
        if (f.form().equals("hybrid")) {
            entry.put("pre-deadline", duration(f.preDeadline())).put("drop-penalty", f.atDeadline());
        }
        entry.put("share", c.guaranteedShare());
        List<String> callers = callerClasses.entrySet().stream().filter(e -> e.getValue().equals(c.name()))
                .map(Map.Entry::getKey).sorted().toList();
        if (!callers.isEmpty()) {
            callers.forEach(entry.putArray("callers")::add);
        }
        return entry;
    }

    private static ObjectNode hosting(ObjectNode entry, HostingConfig h) {
        if (h.allPartitions()) {
            entry.put("partitions", "all");
        } else {
            ArrayNode partitions = entry.putArray("partitions");
            h.partitions().forEach(partitions::add);
        }
        entry.put("priority", h.priority())
                .put("workers", h.workers())
                .put("queue-capacity", h.queueCapacity())
                .put("replicas", h.replicas());
        ObjectNode priorities = entry.putObject("priorities");
        h.priorities().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> priorities.put(Integer.toString(e.getKey()), e.getValue()));
        if (h.failover() != null) {
            entry.put("failover", h.failover().configName());
        }
        return entry;
    }

    private static ObjectNode process(ProcessConfig p) {
        ObjectNode section = NODES.objectNode().put("name", p.name()).put("partitions", p.partitions());
        ArrayNode command = section.putArray("command");
        p.command().forEach(command::add);
        section.put("working-directory", p.workingDirectory());
        ObjectNode environment = section.putObject("environment");
        p.environment().forEach(environment::put);
        ObjectNode arguments = section.putObject("partition-args");
        for (Map.Entry<Integer, List<String>> e : p.partitionArguments().entrySet()) {
            ArrayNode args = arguments.putArray(Integer.toString(e.getKey()));
            e.getValue().forEach(args::add);
        }
        return section.put("mode", configName(p.mode()))
                .put("timeout", duration(p.timeout()))
                .put("max-processes", p.maxProcesses())
                .put("max-output", p.maxOutputBytes());
    }

    /** An enum constant as config files name it: {@code FAIL_STOP} is {@code fail-stop}. */
    private static String configName(Enum<?> constant) {
        return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** The largest whole unit: {@code 5s}, {@code 250ms}, {@code 8760h}. */
    static String duration(Duration d) {
        long nanos = d.toNanos();
        long[] units = {3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L};
        String[] names = {"h", "m", "s", "ms", "us"};
        for (int i = 0; i < units.length; i++) {
            if (nanos % units[i] == 0) {
                return nanos / units[i] + names[i];
            }
        }
        return nanos + "ns";
    }
}
