package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.abort;

import io.neptune.core.NodeId;
import io.neptune.core.Principal;
import io.neptune.server.internal.security.CertificateAuthority;
import io.neptune.server.internal.security.CertificateAuthority.Issued;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The StatefulSet of {@code deploy/kubernetes} without Kubernetes (issue 25 §3, docs/DEPLOYMENT.md
 * "Kubernetes"): each pod {@code neptune-i} is a {@code neptune node} process started as the pod spec
 * starts it, with the real {@code deploy/kubernetes/neptune.yaml} and the environment the StatefulSet
 * gives ({@code POD_NAME}, {@code POD_IP}, {@code POD_NAMESPACE}), in a network namespace of its own
 * with hostname {@code neptune-i} and an {@code /etc/hosts} naming it, as the kubelet writes one. The
 * pods find each other by DNS_PING through a real dnsmasq that serves the headless Service's name with
 * one A record per pod, published or not ready ({@link HeadlessServiceDns}). Three pods start together
 * ({@code podManagementPolicy: Parallel}), a client in another namespace writes and reads throughout,
 * and the StatefulSet scales to four ({@code neptune-3} published, started, {@code neptune admin
 * rebalance}) and back to three as docs/DEPLOYMENT.md "Scaling" says (the highest ordinal's replicas
 * removed with {@code neptune admin remove-replica}, then SIGTERM, then unpublished, then rebalance).
 * No call fails, every acknowledged write is on every replica exactly once, and every stop exits 0.
 *
 * <p>What the test overrides, through the {@code NEPTUNE_*} variables of docs/CONFIGURATION.md and not in
 * the file: the data directory (a directory of the test's, the pod's volume), the DNS server (no
 * cluster DNS in the pod's resolver), the certificate paths (the Secret's files, in a directory of the
 * test's). The file's {@code services:} list cannot come from variables (only the file gives lists of
 * sections), and its {@code EchoService} is in the examples module, not on this module's class path: the
 * test replaces that list, and only it, with {@link KvTestService} (level 2, three replicas), whose data
 * shows whether a write was lost or applied twice.
 *
 * <p>Needs root (network namespaces) and dnsmasq ({@code dnsmasq-base}); skipped, saying why, without
 * either. Every process and namespace goes on every path. Network rule: the pods, dnsmasq and the
 * client talk only inside the namespaces the test creates.
 */
// 2 to 4 minutes on two cores shared with a build, much of it in the three `neptune admin` runs (rebalance,
// remove-replica of all of neptune-3's partitions, rebalance): each is a JVM that starts TLS and joins the cluster
// (5 to 35 s each there)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class StatefulSetIT {
    private static final String NAMESPACE = "shop";
    private static final String HEADLESS_SERVICE = "neptune-headless";
    private static final int PODS = 3;
    private static final int PARTITIONS = 8;   // KvTestService's
    private static final Path MANIFESTS = Path.of("..", "deploy", "kubernetes");
    /** The lines {@code neptune admin} prints (its plan, steps and results), not the log's. */
    private static final Pattern ADMIN_OUTPUT = Pattern.compile(
            "plan |  \\S|\\[\\d+/\\d+\\]|rebalanced|balanced|removed |note:|FAILED|neptune:|dry run");
    private static final Duration START = Duration.ofSeconds(120);
    private static final Duration STOP = Duration.ofSeconds(60);
    /** Small, and C1 only: seven JVMs share two cores here, and the JIT's C2 threads would starve them at start. */
    private static final List<String> JVM = List.of("-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    @TempDir(cleanup = CleanupMode.ON_SUCCESS)   // kept for the post-mortem when the test fails
    Path work;

    private final Map<String, NodeProcess> pods = new LinkedHashMap<>();
    private NamespaceNetwork network;
    private Path config;
    private CertificateAuthority authority;
    private int adminRuns;
    private final long started = System.nanoTime();

    @Test
    void threePodsScaleToFourAndBackToThreeWithRebalanceUnderWritesWithoutAFailedCallOrALostWrite()
            throws Exception {
        Path dnsmasq = HeadlessServiceDns.program().orElse(null);
        if (dnsmasq == null) {
            abort("dnsmasq is not installed (apt-get install dnsmasq-base)");
        }
        log("pods' volumes, certificates and logs in %s", work);
        config = podConfig();
        authority = CertificateAuthority.create(work.resolve("ca"), "StatefulSetIT", Duration.ofDays(2));
        try (NamespaceNetwork created = createNetwork(); HeadlessServiceDns dns = HeadlessServiceDns.start(dnsmasq,
                created.clientNamespace(), created.clientAddress(), HEADLESS_SERVICE, NAMESPACE,
                Files.createDirectories(work.resolve("dns")))) {
            network = created;
            // a second address in the client namespace for `neptune admin`, whose JGroups port (the file's 7800,
            // which DNS_PING's A records imply) the client's membership holds on the first
            List<String> address = List.of("ip", "-n", network.clientNamespace(), "addr", "add", adminAddress() + "/24",
                    "dev", "eth0");
            Commands.Result added = Commands.run(address);
            assertThat(added.exit()).as(added.describe(address)).isZero();
            try {
                scale(dns);
            } finally {
                stopAll();
            }
        }
    }

    private void scale(HeadlessServiceDns dns) throws Exception {
        for (int i = 0; i < PODS; i++) {
            issue("neptune-" + i);
        }
        dns.publish(addresses(PODS));
        for (int i = 0; i < PODS; i++) {
            startPod(i);
        }
        for (NodeProcess pod : pods.values()) {
            pod.awaitLine(l -> l.startsWith("READY " + pod.name() + " "), START, "READY line" + dns.details());
        }
        log("three pods ready");
        try (NodeProcess client = startClient(dns)) {
            for (String pod : pods.keySet()) {
                ask(client, "await-serving " + pod, "SERVING ");
            }
            ask(client, "start", "STARTED");
            log("the client writes and reads: %s", ask(client, "await-writes 200", "WRITES "));

            String primariesAtFour = scaleUp(dns, client);
            scaleDown(dns, client);
            String load = ask(client, "stop", "LOAD ");
            String audit = ask(client, "audit neptune-0,neptune-1,neptune-2", "AUDIT");
            log("%s; %s; primaries at four pods: %s", load, audit, primariesAtFour);
            assertThat(primariesAtFour).as("neptune-3 leads partitions after the rebalance")
                    .containsPattern("neptune-3=[1-9]");
            assertThat(number(load, "failed=(\\d+)")).as("failed writes: %s", load).isZero();
            assertThat(number(load, "readFailed=(\\d+)")).as("failed reads: %s", load).isZero();
            assertThat(audit).as("the audit of neptune-0..2").startsWith("AUDIT ");
            assertThat(number(audit, "AUDIT (\\d+)")).as("writes every replica holds, against the acknowledged: %s",
                    load).isGreaterThanOrEqualTo(number(load, "acknowledged=(\\d+)"));
            client.send("quit");
            assertThat(client.awaitExit(STOP)).as("the client exits" + client.details()).isTrue();
        }
        for (String pod : List.copyOf(pods.keySet())) {   // one at a time: each drains to the others
            stop(pod);
        }
    }

    /**
     * {@code kubectl scale statefulset/neptune --replicas 4}: neptune-3's certificate issued first (as
     * DEPLOYMENT.md says), its DNS record published, the pod started; once it is in the yellow page,
     * {@code neptune admin rebalance}, then waits until neptune-3's replicas serve. Returns the primary
     * roles per pod then.
     */
    private String scaleUp(HeadlessServiceDns dns, NodeProcess client) throws Exception {
        issue("neptune-3");
        dns.publish(addresses(PODS + 1));
        NodeProcess added = startPod(PODS);
        added.awaitLine(l -> l.startsWith("READY neptune-3 "), START, "READY line" + dns.details());
        ask(client, "await-node neptune-3", "NODE ");
        log("neptune-3 ready and in the yellow page");
        assertThat(admin("rebalance", "--timeout", "60s")).as("rebalance at four pods")
                .anyMatch(l -> l.startsWith("rebalanced:") || l.startsWith("balanced:"));
        ask(client, "await-serving neptune-3", "SERVING ");
        String primaries = ask(client, "primaries", "PRIMARIES ");
        log("neptune-3 serves every partition; %s", ask(client, "await-writes 100", "WRITES "));
        return primaries;
    }

    /**
     * {@code kubectl scale statefulset/neptune --replicas 3} as DEPLOYMENT.md "Scaling" says: neptune-3
     * taken out of every partition's voters in one run ({@code neptune admin remove-replica kv all neptune-3}),
     * then stopped by SIGTERM (it drains), its DNS record removed, and {@code neptune admin rebalance}.
     */
    private void scaleDown(HeadlessServiceDns dns, NodeProcess client) throws Exception {
        // one run for all of neptune-3's partitions: one JVM, one join
        List<String> said = admin("remove-replica", KvWriteLoad.SERVICE, "all", "neptune-3");
        for (int p = 0; p < PARTITIONS; p++) {
            String removed = "removed neptune-3 from kv#" + p + ";";
            assertThat(said).as("remove-replica of kv#%d", p).anyMatch(l -> l.startsWith(removed));
        }
        assertThat(said).as("remove-replica's summary").contains("removed neptune-3 from " + PARTITIONS
                + " partitions of kv: [0, 1, 2, 3, 4, 5, 6, 7]");
        stop("neptune-3");
        dns.publish(addresses(PODS));
        ask(client, "await-gone neptune-3", "GONE ");
        log("neptune-3 stopped (exit status 0) and gone from the yellow page");
        assertThat(admin("rebalance", "--timeout", "60s")).as("rebalance at three pods")
                .anyMatch(l -> l.startsWith("rebalanced:") || l.startsWith("balanced:"));
        ask(client, "await-writes 100", "WRITES ");
    }

    /** Stops pod {@code pod} by SIGTERM, as the kubelet does, and checks that it drained and exited 0. */
    private void stop(String pod) throws InterruptedException {
        NodeProcess process = pods.get(pod);
        process.signalTerm();
        assertThat(process.awaitExit(STOP)).as(pod + " exits after SIGTERM" + process.details()).isTrue();
        assertThat(process.exitValue()).as(pod + "'s exit status (0: drained)" + process.details()).isZero();
        process.close();
        pods.remove(pod);
    }

    /**
     * {@code deploy/kubernetes/neptune.yaml} as it is, but for its {@code services:} list (the file's last
     * section, which no variable can replace): {@link KvTestService} on every partition, three replicas.
     */
    private Path podConfig() throws IOException {
        String file = Files.readString(MANIFESTS.resolve("neptune.yaml"));
        int services = file.indexOf("\nservices:\n");
        assertThat(services).as("a top-level services: section in deploy/kubernetes/neptune.yaml").isPositive();
        String rest = file.substring(services + "\nservices:\n".length());
        assertThat(rest.lines()).as("services: is the file's last section").allMatch(l -> l.isBlank()
                || l.startsWith(" "));
        return Files.writeString(work.resolve("neptune.yaml"), file.substring(0, services + 1) + """
                services:
                  # StatefulSetIT: KvTestService for the file's EchoService (examples, not on this class path)
                  - class: %s
                    partitions: all
                    replicas: 3
                """.formatted(KvTestService.class.getName()));
    }

    private NamespaceNetwork createNetwork() {
        try {
            return NamespaceNetwork.builder(PODS + 1).client().create();
        } catch (NetworkUnavailableException e) {
            return abort(e.getMessage() + "; run as root to test the StatefulSet");
        }
    }

    /** The pods' addresses, {@code neptune-0} to {@code neptune-<count - 1>}: their headless Service's records. */
    private Map<String, String> addresses(int count) {
        Map<String, String> addresses = new LinkedHashMap<>();
        for (int i = 0; i < count; i++) {
            addresses.put("neptune-" + i, network.address(i));
        }
        return addresses;
    }

    private String adminAddress() {
        String client = network.clientAddress();
        return client.substring(0, client.lastIndexOf('.') + 1) + "101";
    }

    /** Issues pod {@code name}'s certificate into the Secret's directory, as {@code neptune certs issue} does. */
    private void issue(String name) throws IOException {
        Path secret = Files.createDirectories(work.resolve("neptune-tls"));
        authority.issue(Principal.node(NodeId.of(name)), secret, Duration.ofDays(2));
        if (!Files.exists(secret.resolve(CertificateAuthority.CERTIFICATE_FILE))) {
            Files.copy(authority.certificate(), secret.resolve(CertificateAuthority.CERTIFICATE_FILE));
        }
    }

    /**
     * Starts pod {@code neptune-<i>} as the StatefulSet does: {@code neptune node --config neptune.yaml}
     * with the pod's environment, hostname and {@code /etc/hosts}, in network namespace {@code i}.
     */
    private NodeProcess startPod(int i) throws IOException {
        String pod = "neptune-" + i;
        Path volume = Files.createDirectories(work.resolve(pod));
        Path hosts = Files.writeString(volume.resolve("hosts"), "127.0.0.1 localhost\n" + network.address(i) + " "
                + pod + "." + HEADLESS_SERVICE + "." + NAMESPACE + ".svc.cluster.local " + pod + "\n");
        Path secret = work.resolve("neptune-tls");
        Map<String, String> environment = new LinkedHashMap<>();
        environment.put("POD_NAME", pod);                     // fieldRef metadata.name
        environment.put("POD_IP", network.address(i));        // fieldRef status.podIP
        environment.put("POD_NAMESPACE", NAMESPACE);          // fieldRef metadata.namespace
        environment.put("NEPTUNE_DATA_DIRECTORY", volume.resolve("data").toString());
        environment.put("NEPTUNE_MEMBERSHIP_DNS_SERVER", network.clientAddress() + ":53");
        environment.put("NEPTUNE_SECURITY_CERTIFICATE", secret.resolve("node-" + pod + ".pem").toString());
        environment.put("NEPTUNE_SECURITY_KEY", secret.resolve("node-" + pod + "-key.pem").toString());
        environment.put("NEPTUNE_SECURITY_TRUST", secret.resolve(CertificateAuthority.CERTIFICATE_FILE).toString());
        environment.put("POD_HOSTS", hosts.toString());
        // ip netns exec runs the command in a mount namespace of its own (slave to the host's): the bind
        // mount of /etc/hosts stays there, as the kubelet's does in the pod
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", network.namespace(i), "unshare", "--uts",
                "--", "sh", "-c", "hostname \"$POD_NAME\" && mount --bind \"$POD_HOSTS\" /etc/hosts"
                        + " && echo \"POD hostname $(hostname)\" && exec \"$@\"", pod, java()));
        command.addAll(JVM);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"),
                io.neptune.server.cli.NeptuneCli.class.getName(), "node", "--config", config.toString(),
                "--parent-pid", Long.toString(ProcessHandle.current().pid())));
        NodeProcess process = NodeProcess.start(pod, command, volume.resolve("node.log"), environment);
        pods.put(pod, process);
        process.awaitLine(l -> l.startsWith("POD "), START, "the pod's hostname");
        assertThat(process.transcript()).as(pod + "'s hostname").contains("POD hostname " + pod);
        return process;
    }

    /** Starts {@link StatefulSetClientMain} in the client namespace as an operator, and waits until it joined. */
    private NodeProcess startClient(HeadlessServiceDns dns) throws IOException {
        Path operators = Files.createDirectories(work.resolve("operators"));
        Issued identity = authority.issue(new Principal(Principal.Role.OPERATOR, "workload"), operators,
                Duration.ofDays(2));
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", network.clientNamespace(), java()));
        command.addAll(JVM);
        command.addAll(List.of("-Djava.net.preferIPv4Stack=true", "-cp", System.getProperty("java.class.path"),
                StatefulSetClientMain.class.getName(), network.clientAddress(), dns.name(),
                network.clientAddress() + ":53", identity.certificate().toString(), identity.key().toString(),
                authority.certificate().toString(), Files.createDirectories(work.resolve("client")).toString()));
        NodeProcess client = NodeProcess.start("client", command, work.resolve("client.log"));
        client.awaitLine("JOINED"::equals, START, "the client joining");
        return client;
    }

    /**
     * Runs {@code neptune admin <args>} from the client namespace, as an operator would from a pod of the
     * cluster's network: with the pods' own config file and environment (its address and the DNS server),
     * an operator's certificate; returns its output once it exited 0.
     */
    private List<String> admin(String... args) throws Exception {
        Path operators = Files.createDirectories(work.resolve("operators"));
        Issued identity = authority.issue(new Principal(Principal.Role.OPERATOR, "admin"), operators,
                Duration.ofDays(2));
        Path directory = Files.createDirectories(work.resolve("admin"));
        Map<String, String> environment = Map.of("POD_NAME", "neptune-admin", "POD_IP", adminAddress(),
                "POD_NAMESPACE", NAMESPACE, "NEPTUNE_MEMBERSHIP_DNS_SERVER", network.clientAddress() + ":53",
                "NEPTUNE_SECURITY_CERTIFICATE", identity.certificate().toString(),
                "NEPTUNE_SECURITY_KEY", identity.key().toString(),
                "NEPTUNE_SECURITY_TRUST", authority.certificate().toString());
        List<String> command = new ArrayList<>(List.of("ip", "netns", "exec", network.clientNamespace(), java(),
                "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                io.neptune.server.cli.NeptuneCli.class.getName(), "admin"));
        command.addAll(List.of(args));
        // --wait: on two busy cores a JGroups join can take longer than the default 5 s; it answers sooner
        // once the yellow page stopped changing
        command.addAll(List.of("--wait", "30s", "--config", config.toString(), "--certificate",
                identity.certificate().toString(),
                "--key", identity.key().toString()));
        String what = "neptune admin " + String.join(" ", args);
        try (NodeProcess admin = NodeProcess.start("admin", command,
                directory.resolve("admin-" + (++adminRuns) + ".log"), environment, directory)) {
            assertThat(admin.awaitExit(START)).as(what + " exits" + admin.details()).isTrue();
            assertThat(admin.exitValue()).as(what + "'s exit status" + admin.details()).isZero();
            List<String> said = admin.transcript().stream().filter(l -> ADMIN_OUTPUT.matcher(l).lookingAt()).toList();
            log("%s: %s", what, said);
            return said;
        }
    }

    /** Sends {@code command} to the client and returns its answer, which starts with {@code answer}. */
    private static String ask(NodeProcess client, String command, String answer) {
        client.send(command);
        String line = client.awaitLine(l -> l.startsWith(answer) || l.startsWith("ERROR "), START,
                "answer to " + command);
        assertThat(line).as("the client's answer to " + command + client.details()).startsWith(answer);
        return line;
    }

    private static long number(String line, String pattern) {
        Matcher matcher = Pattern.compile(pattern).matcher(line);
        assertThat(matcher.find()).as("%s in %s", pattern, line).isTrue();
        return Long.parseLong(matcher.group(1));
    }

    /** Prints a line of the test's progress, with the seconds since the test started. */
    private void log(String format, Object... args) {
        System.out.printf("StatefulSetIT [%5.1f s]: %s%n", (System.nanoTime() - started) / 1e9, format.formatted(args));
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** Stops every pod still running: SIGTERM twice (no drain), then close kills what is left. */
    private void stopAll() {
        for (NodeProcess pod : pods.values()) {
            if (pod.handle().isAlive()) {
                pod.signalTerm();
                pod.signalTerm();
            }
        }
        pods.values().forEach(NodeProcess::close);
        pods.clear();
    }
}
