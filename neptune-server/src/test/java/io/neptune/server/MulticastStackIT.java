package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three node processes on the UDP multicast stack, each in its own network namespace, find each
 * other through IP multicast (JGroups PING discovery; no host list, no discovery files), call
 * partitions hosted only in another namespace, and drop a node killed with SIGKILL.
 *
 * <p>Network rule: multicast is sent only inside namespaces this test creates and deletes
 * ({@link NamespaceNetwork}): no interface of the host's namespace is created, moved or connected,
 * the node namespaces have no default route, and the test asserts that the host never joins the
 * multicast group. Without root, iproute2 or namespace support the test is skipped, saying why.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class MulticastStackIT {
    private static final int NODES = 3;
    private static final int PARTITIONS = 8;   // EchoTestService
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration LEAVE_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private static NamespaceNetwork network;

    private final List<NodeProcess> processes = new ArrayList<>();
    private String multicastGroup = "";

    @BeforeAll
    static void createNetwork() {
        network = NamespaceNetwork.create(NODES);
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
        assertThat(NamespaceNetwork.run(List.of("ip", "maddr", "show")).output())
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

    private void startCluster() {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        String cluster = "multicast-it-" + Integer.toHexString(random.nextInt(0x1000_0000, Integer.MAX_VALUE));
        multicastGroup = "239.8.8." + random.nextInt(1, 255);
        int multicastPort = random.nextInt(20_000, 40_000);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = testClasspath();
        for (int i = 0; i < NODES; i++) {
            List<String> command = List.of("ip", "netns", "exec", network.namespace(i),
                    java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Djava.net.preferIPv4Stack=true",
                    "-cp", classpath, MulticastNodeMain.class.getName(),
                    "node=n" + i,
                    "bind=" + network.address(i),
                    "multicast=" + multicastGroup + ":" + multicastPort,
                    "cluster=" + cluster,
                    "partitions=" + partitionsOf(i));
            processes.add(NodeProcess.start("n" + i, command));
        }
        for (NodeProcess process : processes) {
            String line = process.awaitLine(l -> l.startsWith("STARTED ") || l.startsWith("FAILED "), START_TIMEOUT,
                    "STARTED line");
            assertThat(line).as("%s started%s", process.name(), process.details()).startsWith("STARTED ");
        }
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
