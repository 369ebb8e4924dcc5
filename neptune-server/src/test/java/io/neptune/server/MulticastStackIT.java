package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.awaitility.Awaitility.await;

import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.server.internal.security.CertificateAuthority.Issued;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three node processes on the UDP multicast stack, each in its own network namespace, find each
 * other through IP multicast (JGroups PING discovery; no host list, no discovery files), call
 * partitions hosted only in another namespace, and drop a node killed with SIGKILL.
 *
 * <p>Network rule: multicast is sent only inside namespaces this test creates and deletes
 * ({@link NamespaceNetwork}): no interface of the host's namespace is created, moved or connected,
 * the node namespaces have no default route, and the test asserts that the host never joins the
 * multicast group. Without root, iproute2 or namespace support the test is skipped, saying why.
 *
 * <p>With {@code security.tls: required} the same holds, the group's messages being encrypted with
 * a key that only holders of a node certificate of the cluster's authority obtain; a fourth node
 * whose certificate another authority issued never enters the others' yellow pages.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class MulticastStackIT {
    private static final int NODES = 3;
    private static final int PARTITIONS = 8;   // EchoTestService
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);
    /** The yellow page expiry {@link MulticastNodeMain} sets. */
    private static final Duration EXPIRY = Duration.ofSeconds(2);

    /** The fourth namespace is the outsider's, in {@link #aNodeOfAnotherAuthorityGetsNoKeyAndNoEntry}. */
    private static NamespaceNetwork network;
    private static TestCertificates authority;
    private static TestCertificates otherAuthority;

    private final List<NodeProcess> processes = new ArrayList<>();
    private String cluster = "";
    private String multicastGroup = "";
    private int multicastPort;

    @BeforeAll
    static void createNetwork(@TempDir Path directory) throws IOException {
        try {
            network = NamespaceNetwork.builder(NODES + 1).multicast().create();
        } catch (NetworkUnavailableException e) {
            abort(e.getMessage() + "; run as root to test the UDP multicast stack");
        }
        authority = TestCertificates.create(Files.createDirectory(directory.resolve("ca")), "multicast-it-ca");
        otherAuthority = TestCertificates.create(Files.createDirectory(directory.resolve("other-ca")), "other-ca");
    }

    @AfterAll
    static void deleteNetwork() {
        if (network != null) {
            network.close();
        }
    }

    @AfterEach
    void stopNodes() {
        RuntimeException failure = null;
        for (NodeProcess process : processes) {
            try {
                process.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        processes.clear();
        if (failure != null) {
            throw failure;
        }
    }

    @Test
    void nodesInSeparateNamespacesFindEachOtherByMulticastAndCallAcross() {
        startCluster();
        awaitEveryNode(allNodes(), JOIN_TIMEOUT);

        for (int i = 0; i < NODES; i++) {
            assertThat(network.exec(i, "ip", "maddr", "show", "dev", "eth0"))
                    .as("n%d joined %s on its namespace's eth0", i, multicastGroup)
                    .contains(multicastGroup);
        }
        assertThat(Commands.run(List.of("ip", "maddr", "show")).output())
                .as("the host's own interfaces never join the test's multicast group")
                .doesNotContain(multicastGroup);
        for (int i = 0; i < NODES; i++) {
            // IGMP adds a handful; the rest are announcements, heartbeats and discovery over IP multicast.
            assertThat(network.ipCounter(i, "InMcastPkts")).as("multicast packets received in n%d's namespace", i)
                    .isGreaterThan(10);
        }

        for (int i = 0; i < NODES; i++) {
            int partition = (i + 1) % NODES;   // hosted only by the next node, in another namespace
            assertCall(processes.get(i), partition, "OK n" + partition + " " + partition);
        }
    }

    @Test
    void killedNodeLeavesTheOthersYellowPages() {
        startCluster();
        awaitEveryNode(allNodes(), JOIN_TIMEOUT);

        NodeProcess victim = processes.get(NODES - 1);
        victim.kill();
        List<NodeProcess> survivors = processes.subList(0, NODES - 1);
        String remaining = IntStream.range(0, NODES - 1).mapToObj(i -> "n" + i).collect(Collectors.joining(","));
        for (NodeProcess survivor : survivors) {
            survivor.awaitNodes(remaining, LEAVE_TIMEOUT);
        }

        assertCall(processes.get(0), 1, "OK n1 1");
        assertCall(processes.get(0), NODES - 1, "FAILED");
    }

    @Test
    void withTlsRequiredNodesFindEachOtherCallAcrossAndDropAKilledNode() {
        startCluster(authority);
        awaitEveryNode(allNodes(), JOIN_TIMEOUT);
        for (NodeProcess process : processes) {
            assertThat(process.transcript()).as("%s's membership is encrypted", process.name())
                    .anyMatch(l -> l.contains("group-key encryption, signed announcements"));
        }
        for (int i = 0; i < NODES; i++) {
            int partition = (i + 1) % NODES;   // hosted only by the next node, in another namespace
            assertCall(processes.get(i), partition, "OK n" + partition + " " + partition);
        }

        processes.get(NODES - 1).kill();
        String remaining = IntStream.range(0, NODES - 1).mapToObj(i -> "n" + i).collect(Collectors.joining(","));
        for (NodeProcess survivor : processes.subList(0, NODES - 1)) {
            survivor.awaitNodes(remaining, LEAVE_TIMEOUT);
        }
        assertCall(processes.get(0), 1, "OK n1 1");
    }

    @Test
    void aNodeOfAnotherAuthorityGetsNoKeyAndNoEntry() {
        startCluster(authority);
        awaitEveryNode(allNodes(), JOIN_TIMEOUT);

        NodeProcess outsider = startNode(NODES, otherAuthority);
        outsider.awaitLine(l -> l.startsWith("STARTED ") || l.startsWith("FAILED "), START_TIMEOUT, "STARTED line");
        // Without AUTH the coordinator lets it into the JGroups view, but it gets no group key: it
        // either fails the key exchange's TLS handshake (NEP-SEC-030) or, seeing no view it can read,
        // stays alone and drops the members' encrypted messages (JGroups' ASYM_ENCRYPT says so).
        outsider.awaitLine(l -> l.contains("NEP-SEC-030") || l.contains("ASYM_ENCRYPT")
                && l.contains("message from non-member"), JOIN_TIMEOUT, "NEP-SEC-030 or ASYM_ENCRYPT refusal");
        Duration threeExpiries = EXPIRY.multipliedBy(3);
        await().during(threeExpiries).atMost(threeExpiries.plusSeconds(5)).pollInterval(Duration.ofMillis(100))
                .until(() -> processes.subList(0, NODES).stream().allMatch(p -> p.nodes().equals(allNodes())));
        assertThat(outsider.nodes()).as("the outsider reads no member's announcement").doesNotContain("n0", "n1", "n2");
        assertCall(processes.get(0), 1, "OK n1 1");
    }

    private void startCluster() {
        startCluster(null);
    }

    /** Starts the {@link #NODES} nodes, with certificates of {@code certificates} if not null. */
    private void startCluster(@Nullable TestCertificates certificates) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        cluster = "multicast-it-" + Integer.toHexString(random.nextInt(0x1000_0000, Integer.MAX_VALUE));
        multicastGroup = "239.8.8." + random.nextInt(1, 255);
        multicastPort = random.nextInt(20_000, 40_000);
        for (int i = 0; i < NODES; i++) {
            processes.add(launch(i, certificates));
        }
        for (NodeProcess process : processes) {
            String line = process.awaitLine(l -> l.startsWith("STARTED ") || l.startsWith("FAILED "), START_TIMEOUT,
                    "STARTED line");
            assertThat(line).as("%s started%s", process.name(), process.details()).startsWith("STARTED ");
        }
    }

    /** Starts node {@code i} in namespace {@code i}, in the cluster of {@link #startCluster}. */
    private NodeProcess startNode(int i, @Nullable TestCertificates certificates) {
        NodeProcess process = launch(i, certificates);
        processes.add(process);
        return process;
    }

    private NodeProcess launch(int i, @Nullable TestCertificates certificates) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", network.namespace(i),
                java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true",
                "-cp", testClasspath(), MulticastNodeMain.class.getName(),
                "node=n" + i,
                "bind=" + network.address(i),
                "multicast=" + multicastGroup + ":" + multicastPort,
                "cluster=" + cluster,
                "partitions=" + partitionsOf(i % NODES)));
        if (certificates != null) {
            Issued issued = certificates.issued(Principal.node(NodeId.of("n" + i)));
            command.addAll(List.of("certificate=" + issued.certificate(), "key=" + issued.key(),
                    "trust=" + certificates.trust()));
        }
        return NodeProcess.start("n" + i, command);
    }

    /** Partitions {@code p} with {@code p % NODES == i}, so each partition lives in exactly one namespace. */
    private static String partitionsOf(int node) {
        return IntStream.range(0, PARTITIONS).filter(p -> p % NODES == node).mapToObj(Integer::toString)
                .collect(Collectors.joining(","));
    }

    private static String allNodes() {
        return IntStream.range(0, NODES).mapToObj(i -> "n" + i).collect(Collectors.joining(","));
    }

    private void awaitEveryNode(String nodes, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (NodeProcess process : processes) {
            process.awaitNodes(nodes, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
    }

    private static void assertCall(NodeProcess caller, int partition, String expected) {
        caller.send("CALL " + partition);
        String prefix = "CALL " + partition + " ";
        String line = caller.awaitLine(l -> l.startsWith(prefix), CALL_TIMEOUT, "answer to CALL " + partition);
        assertThat(line.substring(prefix.length())).as("%s calling partition %d%s", caller.name(), partition,
                caller.details()).startsWith(expected);
    }

    /**
     * The classpath of this JVM. Failsafe starts the fork from a manifest-only booter jar but sets
     * {@code java.class.path} to the real test classpath; check that it did, so a child that cannot
     * load its main class fails here with a clear message.
     */
    private static String testClasspath() {
        String classpath = System.getProperty("java.class.path");
        List<String> entries = List.of(classpath.split(File.pathSeparator));
        assertThat(entries)
                .as("java.class.path lists the test classes and dependencies, not a manifest-only jar: %s", classpath)
                .anyMatch(e -> Files.exists(Path.of(e, MulticastNodeMain.class.getName().replace('.', '/') + ".class")))
                .anyMatch(e -> e.contains("jgroups"));
        return classpath;
    }
}
