package io.neptune.server;

import static org.awaitility.Awaitility.await;

import io.neptune.client.ClientConfig;
import io.neptune.core.MembershipConfig;
import io.neptune.core.ReplicaRole;
import io.neptune.core.SecurityConfig;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The workload of {@link StatefulSetIT}, a process in the test network's client namespace (the test's
 * JVM has no route to the pods): a member of the cluster that hosts nothing, found and joined through
 * the headless Service's DNS name like the pods, writing to and reading from {@link KvTestService}
 * ({@link KvWriteLoad}, {@link KvReadLoad}) and looking at the yellow page on the test's behalf.
 *
 * <p>Arguments: its address, the DNS name, the DNS server ({@code host:port}), its (operator's)
 * certificate, key and trust, and its data directory. It reads one command a line from standard input and answers each with
 * one line: {@code start} → {@code STARTED}; {@code await-node N} → {@code NODE N} once N is in the
 * yellow page; {@code await-serving N} → {@code SERVING N} once N's replica of every partition serves
 * (none recovering); {@code await-gone N} → {@code GONE N}; {@code await-writes K} → {@code WRITES total}
 * once K more writes were acknowledged; {@code primaries} → {@code PRIMARIES node=count,...};
 * {@code stop} → {@code LOAD ...} (counts and failures); {@code audit N,M,...} → {@code AUDIT held} or
 * {@code AUDIT-FAILED reason}; {@code quit} ends it. A command that fails answers {@code ERROR reason}.
 */
final class StatefulSetClientMain {
    private static final int PARTITIONS = 8;   // KvTestService's
    private static final Duration WAIT = Duration.ofSeconds(120);
    /** Generous: two cores shared with the build and four node JVMs. */
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(60);
    private static final int WRITES_PER_SECOND = 50;

    private final NeptuneNode node;
    private final KvWriteLoad writes;
    private final KvReadLoad reads;

    private StatefulSetClientMain(NeptuneNode node) {
        this.node = node;
        this.writes = new KvWriteLoad(node.client(), PARTITIONS, 16, CALL_TIMEOUT);
        this.reads = new KvReadLoad(node.client(), KvWriteLoad.SERVICE, PARTITIONS, CALL_TIMEOUT);
    }

    public static void main(String[] args) throws Exception {
        MembershipConfig membership = MembershipConfig.builder().stack(MembershipConfig.Stack.DNS).bindAddress(args[0])
                .port(7800).dnsQuery(args[1]).dnsServer(args[2]).build();
        SecurityConfig security = SecurityConfig.builder().tls(SecurityConfig.TlsMode.REQUIRED)
                .identity(Path.of(args[3]), Path.of(args[4])).trust(Path.of(args[5])).build();
        NodeConfig config = NodeConfig.builder().node("workload").bindAddress(args[0]).ioThreads(2)
                .adminPort(NodeConfig.NO_ADMIN_PORT).membership(membership).security(security)
                .client(ClientConfig.builder().timeout(CALL_TIMEOUT).build())
                .dataDirectory(Path.of(args[6])).build();
        try (NeptuneNode node = NeptuneNode.builder(config).start()) {
            new StatefulSetClientMain(node).run();
        }
        System.out.println("BYE");
        System.out.flush();
    }

    private void run() throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("JOINED");
        String line;
        while ((line = in.readLine()) != null && !line.equals("quit")) {
            String[] words = line.trim().split(" ");
            try {
                System.out.println(answer(words[0], words.length > 1 ? words[1] : ""));
            } catch (Throwable e) {   // the test reads the reason; the process goes on with the next command
                System.out.println("ERROR " + line + ": " + oneLine(e));
            }
            System.out.flush();
        }
        writes.close();
    }

    private String answer(String command, String argument) throws Exception {
        return switch (command) {
            case "start" -> {
                writes.start(WRITES_PER_SECOND);
                reads.start(2);
                yield "STARTED";
            }
            case "await-node" -> {
                await(argument + " in the yellow page").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                        .until(() -> node.knownNodes().stream().anyMatch(n -> n.value().equals(argument)));
                yield "NODE " + argument;
            }
            case "await-serving" -> {
                await(argument + "'s replica of every partition serving").atMost(WAIT)
                        .pollInterval(Duration.ofMillis(100)).until(() -> IntStream.range(0, PARTITIONS)
                                .allMatch(p -> serving(argument, p)));
                yield "SERVING " + argument;
            }
            case "await-gone" -> {
                await(argument + " gone from the yellow page").atMost(WAIT).pollInterval(Duration.ofMillis(100))
                        .until(() -> node.knownNodes().stream().noneMatch(n -> n.value().equals(argument)));
                yield "GONE " + argument;
            }
            case "await-writes" -> {
                long before = writes.acknowledged();
                await(argument + " more writes acknowledged").atMost(WAIT).pollInterval(Duration.ofMillis(50))
                        .until(() -> writes.acknowledged() >= before + Long.parseLong(argument));
                yield "WRITES " + writes.acknowledged();
            }
            case "primaries" -> "PRIMARIES " + primaries();
            case "stop" -> {
                writes.stop();
                reads.stop();
                yield "LOAD acknowledged=" + writes.acknowledged() + " failed=" + writes.unknown() + " "
                        + writes.failureKinds() + " reads=" + reads.succeeded.get() + " readFailed=" + reads.failed.get()
                        + " " + reads.failures;
            }
            case "audit" -> {
                try {
                    yield "AUDIT " + writes.audit(node, List.of(argument.split(",")), WAIT);
                } catch (AssertionError e) {
                    yield "AUDIT-FAILED " + oneLine(e);
                }
            }
            default -> throw new IllegalArgumentException("command: " + command + " (expected: start, await-node,"
                    + " await-serving, await-gone, await-writes, primaries, stop, audit, quit)");
        };
    }

    private boolean serving(String name, int partition) {
        return node.replicaRoles(KvWriteLoad.SERVICE, partition).entrySet().stream()
                .anyMatch(e -> e.getKey().value().equals(name) && e.getValue() != ReplicaRole.RECOVERING);
    }

    /** How many primary roles each node holds in this node's yellow page, e.g. {@code neptune-0=3,neptune-1=3}. */
    private String primaries() {
        Map<String, Integer> counts = new TreeMap<>();
        for (int p = 0; p < PARTITIONS; p++) {
            node.replicaRoles(KvWriteLoad.SERVICE, p).forEach((id, role) -> {
                counts.merge(id.value(), role == ReplicaRole.PRIMARY ? 1 : 0, Integer::sum);
            });
        }
        return counts.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(","));
    }

    private static String oneLine(Throwable e) {
        return String.valueOf(e).replace('\n', ' ');
    }
}
