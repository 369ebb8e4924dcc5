package io.neptune.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.neptune.client.BalancingPolicy;
import io.neptune.client.ClientConfig;
import io.neptune.core.ClusterSecret;
import io.neptune.core.ConfigException;
import io.neptune.core.MembershipConfig;
import io.neptune.core.SecurityConfig;
import io.neptune.core.ServiceClass;
import io.neptune.core.YieldFunction;
import io.neptune.core.internal.config.ConfigNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Config files: defaults, every section, and errors that name the key. */
class NodeConfigFileTest {
    @TempDir
    Path dir;

    /** How an error about a value of {@link #load}'s file starts: the file's path. */
    private String inFile() {
        return dir.resolve("node.yaml") + ": ";
    }

    private NodeConfigFile load(String yaml) throws IOException {
        Path file = dir.resolve("node.yaml");
        Files.writeString(file, yaml);
        return NodeConfigFile.load(file);
    }

    @Test
    void emptyFileGivesDefaults() throws IOException {
        NodeConfigFile file = load("");
        assertThat(file.services()).isEmpty();
        assertThat(file.node().bindAddress()).isEqualTo("127.0.0.1");
        assertThat(file.node().membership().stack()).isEqualTo(MembershipConfig.Stack.LOOPBACK);
        assertThat(file.node().membership().expiry()).isEqualTo(Duration.ofSeconds(5));
        assertThat(file.node().client().policy()).isEqualTo(BalancingPolicy.RANDOM_POLLING);
        assertThat(file.node().client().pollDeadline()).isEqualTo(Duration.ofMillis(10));
        assertThat(file.node().adminPort()).as("an admin port on a free port").isZero();
        assertThat(file.node().hasAdminPort()).isTrue();
    }

    @Test
    void adminPortIsReadAndCanBeTurnedOff() throws IOException {
        assertThat(load("admin-port: 9404\n").node().adminPort()).isEqualTo(9404);
        assertThat(load("admin-port: -1\n").node().hasAdminPort()).isFalse();
        assertThatThrownBy(() -> load("admin-port: 70000\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("70000 (expected: 0..65535)");
    }

    @Test
    void logRetentionIsReadWithDefaultsAndCheckedValues() throws IOException {
        assertThat(load("").node().logRetention()).isEqualTo(LogRetentionConfig.DEFAULT);
        assertThat(load("log-retention: 5000\nlog-checkpoint-interval: 100\n").node().logRetention())
                .isEqualTo(new LogRetentionConfig(5000, 100));
        assertThat(load("request-id-window: 5000\n").node().logRetention().requestIds()).isEqualTo(5000);
        // each error names the file's key, not the record component behind it
        assertThatThrownBy(() -> load("log-checkpoint-interval: 0\n")).isInstanceOf(ConfigException.class)
                .hasMessage(inFile() + "log-checkpoint-interval: '0' (expected: >= 1)");
        assertThatThrownBy(() -> load("log-retention: -1\n")).isInstanceOf(ConfigException.class)
                .hasMessage(inFile() + "log-retention: '-1' (expected: >= 0)");
        assertThatThrownBy(() -> load("request-id-window: 0\n")).isInstanceOf(ConfigException.class)
                .hasMessage(inFile() + "request-id-window: '0' (expected: 1..16777216)");
        assertThatThrownBy(() -> load("request-id-window: 100000000\n")).isInstanceOf(ConfigException.class)
                .hasMessage(inFile() + "request-id-window: '100000000' (expected: 1..16777216)");
    }

    @Test
    void wireVersionIsTheLatestUnlessPinnedToOne() throws IOException {
        assertThat(load("").node().wireVersion()).isEqualTo(2);
        assertThat(load("wire-version: 1\n").node().wireVersion()).isEqualTo(1);
        assertThatThrownBy(() -> load("wire-version: 3\n")).isInstanceOf(ConfigException.class)
                .hasMessage(inFile() + "wire-version: '3' (expected: 1..2)");
    }

    @Test
    void logWriterThreadsAreReadWithADefaultThatDoesNotDependOnPartitions() throws IOException {
        assertThat(load("").node().logWriterThreads()).isEqualTo(NodeConfig.DEFAULT_LOG_WRITER_THREADS);
        assertThat(load("log-writer-threads: 3\n").node().logWriterThreads()).isEqualTo(3);
        assertThatThrownBy(() -> load("log-writer-threads: 0\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("logWriterThreads: 0 (expected: >= 1)");
    }

    @Test
    void everySectionIsRead() throws IOException {
        NodeConfigFile file = load("""
                node: n-7
                port: 0
                max-frame-size: 64KiB
                membership:
                  stack: tcp
                  cluster: shop
                  initial-hosts: [127.0.0.1:7800, "127.0.0.1:7801"]
                  announce-interval: 250ms
                  expiry: 1.5s
                client:
                  policy: round-robin
                  poll-size: 2
                  poll-deadline: 20ms
                  discard-slow-polls: false
                  retries: 0
                services:
                  - class: io.neptune.server.EchoTestService
                    partitions: [0-2, 5]
                    priority: 3
                    workers: 2
                    queue-capacity: 10
                """);
        assertThat(file.node().node().value()).isEqualTo("n-7");
        assertThat(file.node().maxFrameBytes()).isEqualTo(64 * 1024);
        assertThat(file.node().membership().stack()).isEqualTo(MembershipConfig.Stack.TCP);
        assertThat(file.node().membership().initialHosts()).hasSize(2);
        assertThat(file.node().membership().expiry()).isEqualTo(Duration.ofMillis(1500));
        assertThat(file.node().client().policy()).isEqualTo(BalancingPolicy.ROUND_ROBIN);
        assertThat(file.node().client().discardSlowPolls()).isFalse();
        HostingConfig hosting = file.services().get(0).hosting();
        assertThat(hosting.partitions()).containsExactly(0, 1, 2, 5);
        assertThat(hosting.priority()).isEqualTo(3);
        assertThat(hosting.queueCapacity()).isEqualTo(10);
    }

    @Test
    void partitionsOmittedOrAllHostEveryPartitionAndAnEmptyListNoneYet() throws IOException {
        HostingConfig omitted = load("services:\n  - class: a.B\n").services().get(0).hosting();
        assertThat(omitted.allPartitions()).isTrue();
        assertThat(omitted.hosts(0, 4)).isTrue();
        assertThat(omitted.hosts(3, 4)).isTrue();
        assertThat(load("services:\n  - class: a.B\n    partitions: all\n").services().get(0).hosting())
                .isEqualTo(omitted);
        assertThat(load("services:\n  - class: a.B\n    partitions: [3, all]\n").services().get(0).hosting())
                .isEqualTo(omitted);

        HostingConfig none = load("services:\n  - class: a.B\n    partitions: []\n").services().get(0).hosting();
        assertThat(none.allPartitions()).isFalse();
        assertThat(none.partitions()).isEmpty();
        for (int p = 0; p < 4; p++) {
            assertThat(none.hosts(p, 4)).as("partition %s", p).isFalse();
        }
        HostingConfig some = load("services:\n  - class: a.B\n    partitions: [1-2]\n").services().get(0).hosting();
        assertThat(some.allPartitions()).isFalse();
        assertThat(some.hosts(0, 4)).isFalse();
        assertThat(some.hosts(2, 4)).isTrue();

        // the builder says the same: no call is all, an empty set is none
        assertThat(HostingConfig.builder().build()).isEqualTo(omitted);
        assertThat(HostingConfig.builder().partitions().build()).isEqualTo(none);
        assertThat(HostingConfig.builder().partitions().allPartitions().build()).isEqualTo(omitted);
        assertThatThrownBy(() -> new HostingConfig(new java.util.TreeSet<>(java.util.Set.of(1)), true, 0, 1, 1, 1,
                java.util.Map.of(), null)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("allPartitions");
    }

    @Test
    void unknownKeysAreNamed() {
        assertThatThrownBy(() -> load("nodee: x\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "nodee: unknown key");
        assertThatThrownBy(() -> load("membership:\n  stak: udp\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "membership.stak: unknown key").hasMessageContaining("stack");
        assertThatThrownBy(() -> load("services:\n  - class: a.B\n    worker: 3\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "services[0].worker: unknown key");
        // keys that are only looked for (present or not) are valid keys too, and the list says so
        assertThatThrownBy(() -> load("services:\n  - class: a.B\n    failovr: fail-stop\n"))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith(inFile()
                        + "services[0].failovr: unknown key")
                .hasMessageContaining("failover").hasMessageContaining("process");
    }

    @Test
    void theDnsStackNeedsAQueryAndReadsItsRecordTypeAndServer() throws IOException {
        assertThatThrownBy(() -> load("membership:\n  stack: dns\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "membership.dns-query: missing");
        assertThatThrownBy(() -> load("membership:\n  stack: dns\n  dns-query: x.test\n  dns-server: nowhere\n"))
                .isInstanceOf(ConfigException.class).hasMessage(inFile()
                        + "membership.dns-server: 'nowhere' (expected: host:port)");
        assertThatThrownBy(() -> load("membership:\n  stack: dns\n  dns-query: x.test\n  dns-record-type: mx\n"))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith(inFile()
                        + "membership.dns-record-type: 'mx'");
        MembershipConfig m = load("membership:\n  stack: dns\n  dns-query: _neptune._tcp.shop.test\n"
                + "  dns-record-type: srv\n  dns-server: 127.0.0.1:5353\n").node().membership();
        assertThat(m.stack()).isEqualTo(MembershipConfig.Stack.DNS);
        assertThat(m.dnsQuery()).isEqualTo("_neptune._tcp.shop.test");
        assertThat(m.dnsRecordType()).isEqualTo(MembershipConfig.DnsRecordType.SRV);
        assertThat(m.dnsServer()).isEqualTo("127.0.0.1:5353");
    }

    @Test
    void theRetryBackoffBudgetAndHedgingKeysAreRead() throws IOException {
        NodeConfigFile file = load("""
                client:
                  retry-backoff: 20ms
                  retry-backoff-multiplier: 1.5
                  retry-backoff-max: 500ms
                  retry-jitter: false
                  retry-budget-tokens: 0
                  retry-budget-token-ratio: 0.25
                  hedged-reads: true
                """);
        ClientConfig c = file.node().client();
        assertThat(c.retryBackoff()).isEqualTo(Duration.ofMillis(20));
        assertThat(c.retryBackoffMultiplier()).isEqualTo(1.5);
        assertThat(c.retryBackoffMax()).isEqualTo(Duration.ofMillis(500));
        assertThat(c.retryJitter()).isFalse();
        assertThat(c.retryBudgetTokens()).isZero();
        assertThat(c.retryBudgetTokenRatio()).isEqualTo(0.25);
        assertThat(c.hedgedReads()).isTrue();
    }

    @Test
    void badRetrySettingsAreNamedWithWhatIsExpected() {
        assertThatThrownBy(() -> load("client:\n  retry-backoff-multiplier: 0.5\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("retryBackoffMultiplier: 0.5 (expected: 1 to 100)");
        assertThatThrownBy(() -> load("client:\n  retry-backoff: 2s\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("(expected: >= retryBackoff, PT2S)");
        assertThatThrownBy(() -> load("client:\n  retry-budget-tokens: 5000\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("retryBudgetTokens: 5000 (expected: 0 for no budget, or 1 to 1000)");
        assertThatThrownBy(() -> load("client:\n  hedged-reads: sometimes\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("client.hedged-reads: 'sometimes' (expected: true or false)");
    }

    @Test
    void badValuesAreNamed() {
        assertThatThrownBy(() -> load("membership:\n  stack: udpp\n")).isInstanceOf(ConfigException.class)
                .hasMessage(inFile() + "membership.stack: 'udpp' (expected: one of loopback, udp, tcp, dns)");
        assertThatThrownBy(() -> load("client:\n  poll-deadline: soon\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "client.poll-deadline: 'soon'");
        assertThatThrownBy(() -> load("client:\n  policy: fastest\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("policy: 'fastest'").hasMessageContaining("random-polling");
        assertThatThrownBy(() -> load("port: 70000\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("port: 70000 (expected: 0..65535)");
        assertThatThrownBy(() -> load("io-threads: two\n")).isInstanceOf(ConfigException.class)
                .hasMessage(inFile() + "io-threads: 'two' (expected: an integer)");
        assertThatThrownBy(() -> load("services:\n  - partitions: all\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "services[0].class: missing");
        assertThatThrownBy(() -> load("services:\n  - class: a.B\n    partitions: 5-2\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "services[0].partitions: '5-2'");
        assertThatThrownBy(() -> load("services:\n  - class: a.B\n    partitions: 0-2147483647\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("expected: partition ids below 65536");
        assertThatThrownBy(() -> load("services:\n  - class: a.B\n    queue-capacity: 100000000\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("queueCapacity: 100000000 (expected: 1..1000000)");
        // refused while the config is read: nothing binds to the wildcard
        assertThatThrownBy(() -> load("bind-address: 0.0.0.0\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("bindAddress: '0.0.0.0' (expected: a specific address");
        assertThatThrownBy(() -> load("membership:\n  announce-interval: 3s\n  expiry: 4s\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("expiry");
        assertThatThrownBy(() -> load("- just\n- a list\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("mapping");
        assertThatThrownBy(() -> NodeConfigFile.load(dir.resolve("missing.yaml"))).isInstanceOf(ConfigException.class)
                .hasMessageContaining("does not exist");
    }

    @Test
    void aNodeOnANetworkAddressNeedsTlsOrToSayItIsInsecure() throws IOException {
        assertThatThrownBy(() -> load("bind-address: 10.1.2.3\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("security.tls: disabled on bind-address 10.1.2.3")
                .hasMessageContaining("security.insecure: true");
        assertThat(load("bind-address: 10.1.2.3\nsecurity:\n  insecure: true\n").node().security().insecure())
                .isTrue();
        assertThat(load("security:\n  tls: required\n  certificate: n.pem\n  key: n-key.pem\n  trust: ca.pem\n")
                .node().security().tls()).isEqualTo(SecurityConfig.TlsMode.REQUIRED);
        assertThatThrownBy(() -> load("security:\n  tls: required\n  certificate: n.pem\n  key: n-key.pem\n"))
                .isInstanceOf(ConfigException.class).hasMessageContaining("trust: missing (expected: a PEM file");
        assertThatThrownBy(() -> load("security:\n  tls: maybe\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("security.tls: 'maybe' (expected: one of disabled, permissive, required)");
    }

    @Test
    void theClusterSecretComesFromItsFileOrElseTheEnvironmentAndIsNeverPrinted() throws IOException {
        Path file = secretFile("cluster-secret", "the-file-secret-0123456789\n", "rw-------");
        String yaml = "security:\n  cluster-secret-file: " + file + "\n";
        Map<String, String> environment = Map.of("NEPTUNE_CLUSTER_SECRET", "the-environment-secret-0123456789");

        NodeConfig fromFile = parse(yaml, Map.of()).node();
        NodeConfig fileWins = parse(yaml, environment).node();
        NodeConfig fromEnvironment = parse("node: n\n", environment).node();

        assertThat(fromFile.security().clusterSecret()).isEqualTo(ClusterSecret.fromFile(file));
        assertThat(fileWins.security().clusterSecret()).as("the key, when both are set")
                .isEqualTo(ClusterSecret.fromFile(file));
        assertThat(fromEnvironment.security().clusterSecret()).isNotNull()
                .satisfies(secret -> assertThat(secret.file()).isEmpty());
        assertThat(parse("node: n\n", Map.of()).node().security().clusterSecret()).isNull();
        for (NodeConfig config : List.of(fromFile, fromEnvironment)) { // NeptuneNode logs it at start
            assertThat(config.toString()).contains("clusterSecret=ClusterSecret[", "redacted]")
                    .doesNotContain("the-file-secret", "the-environment-secret");
        }
    }

    @Test
    void aClusterSecretFileThatIsShortOrThatOthersMayReadIsRefusedNamingTheKey() throws IOException {
        Path shortSecret = secretFile("short", "fifteen-bytes!!", "rw-------");
        Path readable = secretFile("readable", "the-file-secret-0123456789", "rw-r--r--");
        Path missing = dir.resolve("missing");

        for (Path file : List.of(shortSecret, readable, missing)) {
            assertThatThrownBy(() -> load("security:\n  cluster-secret-file: " + file + "\n"))
                    .isInstanceOfSatisfying(ConfigException.class,
                            e -> assertThat(e.key()).isEqualTo("security.cluster-secret-file"))
                    .hasMessageStartingWith(inFile() + "security.cluster-secret-file: '" + file + "'");
        }
        assertThatThrownBy(() -> parse("node: n\n", Map.of("NEPTUNE_CLUSTER_SECRET", "too-short")))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.key()).isEqualTo("NEPTUNE_CLUSTER_SECRET"))
                .hasMessageContaining("9 bytes (expected: >= 16");
    }

    private Path secretFile(String name, String content, String permissions) throws IOException {
        Path file = dir.resolve(name);
        Files.writeString(file, content);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(permissions));
        return file;
    }

    private static NodeConfigFile parse(String yaml, Map<String, String> environment) throws IOException {
        return NodeConfigFile.parse(ConfigNode.of(new ObjectMapper(new YAMLFactory()).readTree(yaml)), environment);
    }

    @Test
    void serviceClassesAndTheSchedulingPolicyAreRead() throws IOException {
        NodeConfigFile file = load("""
                scheduling:
                  policy: adaptive
                  adaptive-drop-threshold: 0.1
                  adaptive-window: 10s
                classes:
                  - name: gold
                    yield: hybrid
                    full-yield: 4
                    deadline: 2s
                    share: 0.3
                  - name: bronze
                    yield: resptime
                    deadline: 500ms
                """);
        SchedulingConfig scheduling = file.node().scheduling();
        assertThat(scheduling.policy()).isEqualTo(SchedulingPolicy.ADAPTIVE);
        assertThat(scheduling.adaptiveDropThreshold()).isEqualTo(0.1);
        assertThat(scheduling.adaptiveWindow()).isEqualTo(Duration.ofSeconds(10));
        assertThat(scheduling.classes()).containsOnlyKeys("gold", "bronze", ServiceClass.DEFAULT_NAME);
        ServiceClass gold = scheduling.classes().get("gold");
        assertThat(gold.guaranteedShare()).isEqualTo(0.3);
        assertThat(gold.yield()).isEqualTo(YieldFunction.hybrid(4, Duration.ofSeconds(1), 2, Duration.ofSeconds(2)));
        assertThat(scheduling.classes().get("bronze").yield()).isEqualTo(YieldFunction.resptime(1,
                Duration.ofMillis(500)));
        assertThat(load("").node().scheduling().plainFifo()).isTrue();
    }

    @Test
    void badClassesAreNamed() {
        assertThatThrownBy(() -> load("classes:\n  - name: a\n    deadline: 1s\n    share: 0.6\n"
                + "  - name: b\n    deadline: 1s\n    share: 0.5\n")).isInstanceOf(ConfigException.class)
                .hasMessage(inFile()
                        + "classes: guaranteed shares sum to 1.1 (expected: at most 1, the whole of the workers' time)");
        assertThatThrownBy(() -> load("classes:\n  - name: a\n    deadline: 1s\n  - name: a\n    deadline: 2s\n"))
                .isInstanceOf(ConfigException.class).hasMessage(inFile() + "classes[1].name: 'a' declared twice");
        assertThatThrownBy(() -> load("classes:\n  - name: a\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "classes[0].deadline: missing");
        assertThatThrownBy(() -> load("classes:\n  - deadline: 1s\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "classes[0].name: missing");
        assertThatThrownBy(() -> load("classes:\n  - name: a\n    deadline: -1s\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile() + "classes[0].deadline: '-1s'");
        assertThatThrownBy(() -> load("classes:\n  - name: a\n    deadline: 1s\n    yield: linear\n"))
                .isInstanceOf(ConfigException.class)
                .hasMessage(inFile() + "classes[0].yield: 'linear' (expected: throughput, resptime or hybrid)");
        assertThatThrownBy(() -> load("classes:\n  - name: a\n    deadline: 1s\n    share: lots\n"))
                .isInstanceOf(ConfigException.class).hasMessage(inFile()
                        + "classes[0].share: 'lots' (expected: a number)");
        assertThatThrownBy(() -> load("classes:\n  - name: a\n    deadline: 1s\n    pre-deadline: 500ms\n"))
                .isInstanceOf(ConfigException.class).hasMessage(inFile()
                        + "classes[0].pre-deadline: given for yield 'throughput'"
                        + " (expected: only with yield: hybrid, whose D' and C' it sets)");
        assertThatThrownBy(() -> load("classes:\n  - name: a\n    deadline: 1s\n    dead-line: 2s\n"))
                .isInstanceOf(ConfigException.class).hasMessageStartingWith(inFile()
                        + "classes[0].dead-line: unknown key");
        assertThatThrownBy(() -> load("scheduling:\n  policy: lottery\n")).isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(inFile()
                        + "scheduling.policy: 'lottery' (expected: one of fifo, edf, yid, greedy, adaptive)");
        assertThatThrownBy(() -> load("scheduling:\n  adaptive-drop-threshold: 5\n")).isInstanceOf(ConfigException.class)
                .hasMessageContaining("adaptiveDropThreshold: 5.0 (expected: a fraction between 0 and 1)");
    }

    @Test
    void callersAreBoundToTheirClassAndBadBindingsAreNamed() throws IOException {
        NodeConfigFile file = load("""
                classes:
                  - name: gold
                    deadline: 1s
                    callers: [ "neptune://client/checkout", operator ]
                  - name: bronze
                    deadline: 5s
                    callers: client
                """);
        assertThat(file.node().scheduling().callerClasses()).containsOnly(Map.entry("neptune://client/checkout", "gold"),
                Map.entry("operator", "gold"), Map.entry("client", "bronze"));

        assertThatThrownBy(() -> load("classes:\n  - name: a\n    deadline: 1s\n    callers: [ root ]\n"))
                .isInstanceOf(ConfigException.class).hasMessage(inFile()
                        + "classes: 'root' (expected: a principal URI such as"
                        + " neptune://client/batch, or a role: node, operator, client, anonymous)");
        assertThatThrownBy(() -> load("classes:\n  - name: a\n    deadline: 1s\n    callers: client\n"
                + "  - name: b\n    deadline: 1s\n    callers: client\n")).isInstanceOf(ConfigException.class)
                .hasMessage(inFile()
                        + "classes[1].callers: 'client' bound to 'a' and to 'b' (expected: one class per caller)");
    }

    @Test
    void unknownServiceClassIsNamedWhenBuilding() throws IOException {
        NodeConfigFile file = load("services:\n  - class: com.example.Missing\n");
        assertThatThrownBy(file::toBuilder).isInstanceOf(ConfigException.class)
                .hasMessage("services[0].class: 'com.example.Missing' (expected: a class on the classpath)");
    }
}
