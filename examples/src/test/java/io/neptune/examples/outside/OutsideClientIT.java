package io.neptune.examples.outside;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.server.Commands;
import io.neptune.server.NamespaceNetwork;
import io.neptune.server.NetworkUnavailableException;
import io.neptune.server.NodeProcess;
import io.neptune.server.TestCertificates;
import io.neptune.server.internal.security.CertificateAuthority.Issued;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application outside the cluster's network ({@link OutsideCaller}) on {@code neptune-client}'s
 * own class path (no JGroups, no {@code neptune-server}), in a network namespace of its own whose
 * firewall lets it reach the nodes' request and load-poll ports and nothing else, calls every example
 * service but BLAST while one of three node processes is killed with SIGKILL and a fourth is added:
 * no call fails, and it calls the added node.
 *
 * <p>Network rule: every packet stays in namespaces this test creates and deletes
 * ({@link NamespaceNetwork}). Skipped without root, iproute2 or nftables. Everything speaks TLS, the
 * client with a client certificate, as a client outside the cluster's network would.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class OutsideClientIT {
    private static final int REQUEST_PORT = 7000;
    private static final int POLL_PORT = 7001;
    private static final int JGROUPS_PORT = 7800;
    private static final String PARTITIONS = "0,1,2,3";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(90);
    private static final Duration PHASE_TIMEOUT = Duration.ofSeconds(90);
    private static final Pattern CALLS = Pattern.compile("CALLS ok=(\\d+) failed=(\\d+) nodes=(\\S*) last-failure=(.*)");
    private static final List<String> REPLICATED = List.of("io.neptune.examples.cache.CacheService",
            "io.neptune.examples.auction.AuctionService", "io.neptune.examples.discussion.DiscussionService",
            "io.neptune.examples.search.SearchService");

    @TempDir
    Path work;
    private TestCertificates certificates;

    @Test
    void aClientOutsideTheClusterNetworkCallsEveryServiceWhileANodeIsKilledAndOneAdded() throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/sbin/nft")), "nftables is not installed (apt-get install nftables)");
        NamespaceNetwork network;
        try {
            network = NamespaceNetwork.builder(4).client().create();
        } catch (NetworkUnavailableException e) {
            abort(e.getMessage() + "; run as root to test a client outside the cluster's network");
            return;
        }
        certificates = TestCertificates.create(Files.createDirectories(work.resolve("ca")), "outside-it-ca");
        List<NodeProcess> processes = new ArrayList<>();
        try (network) {
            for (int i = 0; i < 3; i++) {
                processes.add(startNode(network, i, true));
            }
            for (NodeProcess node : processes) {
                node.awaitLine(l -> l.startsWith("READY "), START_TIMEOUT, "READY");
            }
            firewallTheClient(network);

            NodeProcess client = startClient(network);
            processes.add(client);
            assertThat(client.awaitLine(l -> l.startsWith("JGROUPS "), START_TIMEOUT, "class path line"))
                    .isEqualTo("JGROUPS absent SERVER absent");
            client.awaitLine(l -> l.startsWith("CONNECTED "), START_TIMEOUT, "CONNECTED");
            Calls before = awaitCalls(client, c -> c.ok() >= 50 && c.nodes().containsAll(List.of("node-1", "node-2",
                    "node-3")), "50 calls answered by all three nodes");

            processes.get(1).kill();
            Calls afterKill = awaitCalls(client, c -> c.ok() >= before.ok() + 100, "100 calls after node-2 was killed");

            processes.add(startNode(network, 3, false));
            Calls afterAdd = awaitCalls(client, c -> c.nodes().contains("node-4") && c.ok() >= afterKill.ok() + 50,
                    "calls answered by node-4, added after the client started");

            System.out.printf("OutsideClientIT: %d calls before the kill, %d after it, %d after node-4 came; answered"
                    + " by %s; failed %d%n", before.ok(), afterKill.ok() - before.ok(), afterAdd.ok() - afterKill.ok(),
                    afterAdd.nodes(), afterAdd.failed());
            assertThat(afterAdd.failed()).as("failed calls; the last: %s%s", afterAdd.lastFailure(), client.details())
                    .isZero();
        } finally {
            for (NodeProcess process : processes) {
                process.close();
            }
        }
    }

    private record Calls(long ok, long failed, List<String> nodes, String lastFailure) {
        static Calls parse(String line) {
            Matcher m = CALLS.matcher(line);
            if (!m.matches()) {
                throw new IllegalArgumentException("not a CALLS line: " + line);
            }
            return new Calls(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), List.of(m.group(3).split(",")),
                    m.group(4));
        }
    }

    /** Reads the client's CALLS lines until one satisfies {@code condition}; fails at once on a failed call. */
    private static Calls awaitCalls(NodeProcess client, java.util.function.Predicate<Calls> condition, String what) {
        long deadline = System.nanoTime() + PHASE_TIMEOUT.toNanos();
        while (true) {
            Duration left = Duration.ofNanos(Math.max(1, deadline - System.nanoTime()));
            Calls calls = Calls.parse(client.awaitLine(l -> l.startsWith("CALLS "), left, what));
            assertThat(calls.failed()).as("failed calls while waiting for %s; the last: %s", what, calls.lastFailure())
                    .isZero();
            if (condition.test(calls)) {
                return calls;
            }
        }
    }

    /**
     * Lets the client's namespace send to the nodes only on their request (TCP) and load-poll (UDP)
     * ports, and checks that a node's JGroups port is then out of its reach.
     */
    private static void firewallTheClient(NamespaceNetwork network) {
        String subnet = network.address(0).substring(0, network.address(0).lastIndexOf('.')) + ".0/24";
        String rules = "table inet outside {\n"
                + "  chain out {\n"
                + "    type filter hook output priority 0; policy accept;\n"
                + "    ip daddr " + subnet + " tcp dport != " + REQUEST_PORT + " drop\n"
                + "    ip daddr " + subnet + " udp dport != " + POLL_PORT + " drop\n"
                + "  }\n"
                + "}\n";
        run(List.of("ip", "netns", "exec", network.clientNamespace(), "nft", "-f", "-"), rules);
        String node = network.address(0);
        assertThat(reaches(network, node, REQUEST_PORT)).as("the request port of node-1").isTrue();
        assertThat(reaches(network, node, JGROUPS_PORT)).as("the JGroups port of node-1").isFalse();
    }

    private static boolean reaches(NamespaceNetwork network, String host, int port) {
        Commands.Result result = Commands.run(List.of("ip", "netns", "exec", network.clientNamespace(), "timeout", "3",
                "bash", "-c", "exec 3<>/dev/tcp/" + host + "/" + port));
        return result.exit() == 0;
    }

    private static void run(List<String> command, String input) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            process.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
            process.getOutputStream().close();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException(String.join(" ", command) + " cannot run", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    /**
     * Starts node {@code i} ({@code node-(i+1)}) in its namespace with the {@code neptune node} command:
     * echo, and with {@code replicated} the four replicated services, on partitions 0-3.
     */
    private NodeProcess startNode(NamespaceNetwork network, int i, boolean replicated) throws IOException {
        String name = "node-" + (i + 1);
        Issued identity = certificates.issued(Principal.node(NodeId.of(name)));
        String hosts = IntStream.range(0, network.nodes()).mapToObj(n -> network.address(n) + ":" + JGROUPS_PORT)
                .collect(Collectors.joining(", "));
        StringBuilder yaml = new StringBuilder()
                .append("node: ").append(name).append('\n')
                .append("bind-address: ").append(network.address(i)).append('\n')
                .append("port: ").append(REQUEST_PORT).append('\n')
                .append("poll-port: ").append(POLL_PORT).append('\n')
                .append("data-directory: ").append(work.resolve("data").resolve(name)).append('\n')
                .append("security:\n  tls: required\n")
                .append("  certificate: ").append(identity.certificate()).append('\n')
                .append("  key: ").append(identity.key()).append('\n')
                .append("  trust: ").append(certificates.trust()).append('\n')
                .append("membership:\n  stack: tcp\n  port: ").append(JGROUPS_PORT).append('\n')
                .append("  initial-hosts: [").append(hosts).append("]\n")
                .append("services:\n")
                .append("  - class: io.neptune.examples.echo.EchoService\n    partitions: [").append(PARTITIONS)
                .append("]\n    workers: 2\n");
        if (replicated) {
            for (String service : REPLICATED) {
                yaml.append("  - class: ").append(service).append("\n    partitions: [").append(PARTITIONS)
                        .append("]\n    replicas: 3\n    workers: 2\n");
            }
        }
        Path config = Files.writeString(work.resolve(name + ".yaml"), yaml);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = Path.of("target", "classes").toAbsolutePath() + ":" + Path.of("target", "lib")
                .toAbsolutePath() + "/*";
        return NodeProcess.start(name, List.of("ip", "netns", "exec", network.namespace(i), java, "-Xmx256m",
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath, "io.neptune.examples.cli.Main",
                "node", "--config", config.toString()), work.resolve(name + ".log"));
    }

    /** Starts {@link OutsideCaller} in the client's namespace on neptune-client's class path and the examples' classes. */
    private NodeProcess startClient(NamespaceNetwork network) throws IOException {
        String jar = System.getProperty("thin.client.jar", "");
        Path classpathFile = Path.of(System.getProperty("thin.client.classpath", "missing"));
        assumeTrue(Files.isRegularFile(Path.of(jar)) && Files.isRegularFile(classpathFile),
                "neptune-client is not packaged (run mvn package first): " + jar);
        String classpath = jar + ":" + Files.readString(classpathFile).strip() + ":"
                + Path.of("target", "classes").toAbsolutePath();
        assertThat(classpath).doesNotContain("jgroups").doesNotContain("neptune-server");
        String seeds = network.address(0) + ":" + REQUEST_PORT + "," + network.address(2) + ":" + REQUEST_PORT;
        Issued identity = certificates.issued(new Principal(Principal.Role.CLIENT, "outside"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return NodeProcess.start("outside", List.of("ip", "netns", "exec", network.clientNamespace(), java,
                "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", classpath,
                OutsideCaller.class.getName(), seeds, PARTITIONS, identity.certificate().toString(),
                identity.key().toString(), certificates.trust().toString()), work.resolve("outside.log"));
    }
}
