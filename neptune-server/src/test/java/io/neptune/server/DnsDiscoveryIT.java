package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.neptune.client.NeptuneHandle;
import io.neptune.core.AccessMode;
import io.neptune.core.MembershipConfig;
import io.neptune.core.NodeId;
import io.neptune.server.EchoTestService.Echo;
import io.neptune.server.EchoTestService.Reply;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.naming.Context;
import javax.naming.directory.Attribute;
import javax.naming.directory.InitialDirContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code dns} stack (JGroups' DNS_PING) as a Kubernetes headless service would use it, against
 * a real DNS server: Debian's {@code dnsmasq} on loopback, on a free port, serving one SRV record per
 * node. Skipped where dnsmasq is not installed (.ci/run installs {@code dnsmasq-base}).
 */
class DnsDiscoveryIT {
    private static final String QUERY = "_neptune._tcp.dns-it.test";
    private static final String HOST = "node.dns-it.test";
    private static final int NODES = 3;

    @TempDir
    Path directory;

    private final List<NeptuneNode> nodes = new ArrayList<>();
    private Process dnsmasq;

    @AfterEach
    void stop() throws InterruptedException {
        nodes.forEach(NeptuneNode::close);
        if (dnsmasq != null) {
            dnsmasq.destroy();
            if (!dnsmasq.waitFor(10, TimeUnit.SECONDS)) {
                dnsmasq.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void nodesFindEachOtherThroughSrvRecordsAndServeCalls() throws Exception {
        Path program = List.of(Path.of("/usr/sbin/dnsmasq"), Path.of("/usr/bin/dnsmasq")).stream()
                .filter(Files::isExecutable).findFirst().orElse(null);
        Assumptions.assumeTrue(program != null, "dnsmasq is not installed (apt-get install dnsmasq-base)");

        List<Integer> ports = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            ports.add(freeTcpPort());
        }
        int dnsPort = freeUdpAndTcpPort();
        List<String> command = new ArrayList<>(List.of(program.toString(), "--keep-in-foreground", "--conf-file=/dev/null",
                "--no-resolv", "--no-hosts", "--no-poll", "--bind-interfaces", "--listen-address=127.0.0.1",
                "--port=" + dnsPort, "--pid-file=", "--log-facility=-", "--log-queries", "--user=root"));
        command.add("--host-record=" + HOST + ",127.0.0.1");
        for (int port : ports) {
            command.add("--srv-host=" + QUERY + "," + HOST + "," + port);   // DNS_PING asks this server for HOST's A too
        }
        Path log = directory.resolve("dnsmasq.log");
        dnsmasq = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        String server = "127.0.0.1:" + dnsPort;
        await("dnsmasq serving " + NODES + " SRV records (log: " + log + ")").atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(100)).until(() -> {
                    assertThat(dnsmasq.isAlive()).as("dnsmasq running: " + Files.readString(log)).isTrue();
                    return srvPorts(server).equals(new HashSet<>(ports));
                });

        for (int i = 0; i < NODES; i++) {
            MembershipConfig membership = MembershipConfig.builder().stack(MembershipConfig.Stack.DNS)
                    .cluster("dns-it").bindAddress("127.0.0.1").port(ports.get(i)).dnsQuery(QUERY)
                    .dnsRecordType(MembershipConfig.DnsRecordType.SRV).dnsServer(server).build();
            nodes.add(NeptuneNode.builder(NodeConfig.builder().node(NodeId.of("dns-" + i)).ioThreads(1)
                    .dataDirectory(directory.resolve("dns-" + i)).adminPort(NodeConfig.NO_ADMIN_PORT)
                    .membership(membership).build()).host(new EchoTestService(), HostingConfig.all()).start());
        }
        for (NeptuneNode node : nodes) {
            await(node.node() + " sees every node").atMost(Duration.ofSeconds(60))
                    .until(() -> node.knownNodes().size() == NODES);
        }
        NeptuneNode first = nodes.get(0);
        await("echo#0 on every node").atMost(Duration.ofSeconds(30))
                .until(() -> first.replicasOf("echo", 0).size() == NODES);
        Set<String> servedBy = new HashSet<>();
        NeptuneHandle handle = NeptuneHandle.create();
        await("calls from dns-0 reach every node").atMost(Duration.ofSeconds(30)).until(() -> {
            servedBy.add(first.client().call(handle, "echo", 0, "echo", AccessMode.READ, new Echo("hi"), Reply.class)
                    .node());
            return servedBy.size() == NODES;
        });
        assertThat(Files.readString(log)).as("the nodes asked dnsmasq").contains("query[SRV] " + QUERY)
                .contains("query[A] " + HOST);
    }

    /** The ports of the SRV records of {@link #QUERY} at {@code server}, through JNDI as DNS_PING asks. */
    @SuppressWarnings("BanJNDI") // the DNS provider's attributes are record text, never deserialized objects
    private static Set<Integer> srvPorts(String server) {
        Properties env = new Properties();
        env.put(Context.INITIAL_CONTEXT_FACTORY, "com.sun.jndi.dns.DnsContextFactory");
        env.put(Context.PROVIDER_URL, "dns://" + server);
        try {
            InitialDirContext dns = new InitialDirContext(env);
            try {
                Attribute srv = dns.getAttributes(QUERY, new String[] {"SRV"}).get("SRV");
                Set<Integer> ports = new HashSet<>();
                for (int i = 0; srv != null && i < srv.size(); i++) {
                    ports.add(Integer.parseInt(srv.get(i).toString().split(" ")[2]));   // "priority weight port target."
                }
                return ports;
            } finally {
                dns.close();
            }
        } catch (javax.naming.NamingException e) {
            return Set.of();
        }
    }

    private static int freeTcpPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** A port free for both UDP and TCP on loopback (dnsmasq listens on both). */
    private static int freeUdpAndTcpPort() throws IOException {
        for (int attempt = 0; ; attempt++) {
            int port;
            try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                port = udp.getLocalPort();
            }
            try (ServerSocket tcp = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
                return tcp.getLocalPort();
            } catch (IOException e) {
                if (attempt > 20) {
                    throw e;
                }
            }
        }
    }
}
